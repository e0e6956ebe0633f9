/**
 * The Kubernetes reader of discovery (DISC-13, DISC-14): lists Ingresses (networking.k8s.io/v1), Traefik IngressRoutes
 * (traefik.io/v1alpha1 and the older traefik.containo.us/v1alpha1) and Gateway API HTTPRoutes
 * (gateway.networking.k8s.io/v1) through @kubernetes/client-node, from a kubeconfig or the in-cluster service account,
 * cluster-wide or per namespace; read-only (list requests only). What the API answered is kept bounded: the
 * annotations of discovery's vocabularies and where each object routes to. The mapping is src/discover/kubernetes.ts.
 * Also here, for the server's discovery source: `watchKubernetes` (DISC-26, DISC-27), the same lists watched with
 * GET `?watch=true` (list and watch requests only), each event a change.
 */
import { existsSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { describeChange, readLines, reconnecting } from './eventStream';
import { boundedMap } from './services';

/** DISC-13: a configuration that cannot be used (the CLI's usage error, exit 2); the API never asked. */
export class KubeConfigError extends Error {}

export type RoutedKind = 'Ingress' | 'IngressRoute' | 'HTTPRoute';

/** DISC-15: where an object routes to: its first rule's host and path, and whether TLS covers that host. */
export interface Route {
  host: string | null;
  path: string | null;
  tls: boolean | null;
}

/** One Ingress, IngressRoute or HTTPRoute as discovery keeps it. */
export interface KubernetesRouted {
  kind: RoutedKind;
  apiVersion: string;
  namespace: string;
  name: string;
  /** DISC-14: the `gethomepage.dev/` and `tessera.dev/` annotations, bounded as labels are (DISC-2). */
  annotations: Record<string, string>;
  route: Route;
}

export interface KubernetesAnswer {
  /** Per kind, the objects listed; null when the API serves no such kind (its CRD is not installed: 404). */
  ingresses: KubernetesRouted[] | null;
  ingressRoutes: KubernetesRouted[] | null;
  httpRoutes: KubernetesRouted[] | null;
}

/** DISC-14: the annotation vocabularies discovery reads. */
export const annotationPrefixes = ['gethomepage.dev/', 'tessera.dev/'] as const;

/** DISC-13: at most this many objects of each kind (and API group) are read: one page of the list. */
export const maxObjects = 1000;
/** DISC-13: the deadline of each list request. */
const timeoutMs = 30_000;

/** DISC-13: the lists read, in this order: [kind, group, version, plural]. */
export const kubernetesLists = [
  ['Ingress', 'networking.k8s.io', 'v1', 'ingresses'],
  ['IngressRoute', 'traefik.io', 'v1alpha1', 'ingressroutes'],
  ['IngressRoute', 'traefik.containo.us', 'v1alpha1', 'ingressroutes'],
  ['HTTPRoute', 'gateway.networking.k8s.io', 'v1', 'httproutes'],
] as const satisfies readonly (readonly [RoutedKind, string, string, string])[];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown, max: number) => (typeof value === 'string' ? value.slice(0, max) : '');
const first = (value: unknown) => (Array.isArray(value) ? value[0] : undefined);
const strings = (value: unknown) => (Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : []);

/** DISC-15: Traefik's `Host(`a.example.com`)` (the first host named) and `PathPrefix(`/x`)` / `Path(`/x`)` of a match. */
export function traefikRoute(match: string, tls: boolean): Route {
  const host = /\bHost\(\s*`([^`]*)`/.exec(match);
  const prefix = /\bPath(?:Prefix)?\(\s*`([^`]*)`/.exec(match);
  return { host: host ? host[1] : null, path: prefix ? prefix[1] : null, tls };
}

/** DISC-15: the route of one listed object, by its kind. */
function routeOf(kind: RoutedKind, spec: Record<string, unknown>): Route {
  if (kind === 'Ingress') {
    const rule = first(spec.rules);
    const host = isRecord(rule) ? text(rule.host, 253) || null : null;
    const httpPath = isRecord(rule) && isRecord(rule.http) ? first(rule.http.paths) : undefined;
    const tlsHosts = Array.isArray(spec.tls) ? spec.tls.flatMap((entry) => (isRecord(entry) ? strings(entry.hosts) : [])) : [];
    return { host, path: isRecord(httpPath) ? text(httpPath.path, 1024) || null : null, tls: host !== null && tlsHosts.includes(host) };
  }
  if (kind === 'IngressRoute') {
    const route = first(spec.routes);
    return traefikRoute(isRecord(route) ? text(route.match, 4096) : '', spec.tls !== undefined && spec.tls !== null);
  }
  const rule = first(spec.rules);
  const match = isRecord(rule) ? first(rule.matches) : undefined;
  const pathMatch = isRecord(match) && isRecord(match.path) ? match.path : null;
  const usable = pathMatch && pathMatch.type !== 'RegularExpression';
  // An HTTPRoute does not say whether its Gateway's listener is https: null (the mapping says what it assumes).
  return { host: strings(spec.hostnames)[0]?.slice(0, 253) ?? null, path: usable ? text(pathMatch.value, 1024) || null : null, tls: null };
}

/**
 * DISC-13: one list answer (`{kind: "…List", items: […]}`) as discovery keeps it; anything but a list of objects is a
 * bad answer. At most `maxObjects` items; names, namespaces and versions cut to Kubernetes' own bounds.
 */
export function parseKubernetesList(body: unknown, kind: RoutedKind, shown: string): KubernetesRouted[] {
  if (!isRecord(body) || !Array.isArray(body.items) || !body.items.every(isRecord)) throw new Error(`${shown}: the ${kind} list is not a list of objects`);
  return (body.items as Record<string, unknown>[]).slice(0, maxObjects).map((item) => {
    const metadata = isRecord(item.metadata) ? item.metadata : {};
    return {
      kind,
      apiVersion: text(item.apiVersion, 253),
      namespace: text(metadata.namespace, 253),
      name: text(metadata.name, 253),
      annotations: boundedMap(metadata.annotations, annotationPrefixes),
      route: routeOf(kind, isRecord(item.spec) ? item.spec : {}),
    };
  });
}

export interface KubernetesSource {
  /** A kubeconfig file; else $KUBECONFIG, else ~/.kube/config, else the in-cluster service account. */
  kubeconfig?: string;
  /** DISC-13: only these namespaces (each listed on its own); none: all namespaces. */
  namespaces?: string[];
}

type ClientNode = typeof import('@kubernetes/client-node');

/** The client, loaded on use: it is an ES module that takes a while to load, and only discovery needs it. */
function clientNode(): ClientNode {
  return require('@kubernetes/client-node') as ClientNode;
}

/**
 * DISC-13: the configuration the lists are read with: `--kubeconfig`, else KUBECONFIG, else ~/.kube/config, else the
 * service account of the pod it runs in. None of them: a usage error naming the three.
 */
export function loadKubeConfig(source: KubernetesSource, env: NodeJS.ProcessEnv = process.env): { config: InstanceType<ClientNode['KubeConfig']>; server: string } {
  const { KubeConfig } = clientNode();
  const config = new KubeConfig();
  const home = path.join(env.HOME || os.homedir(), '.kube', 'config');
  try {
    if (source.kubeconfig !== undefined) {
      if (!existsSync(source.kubeconfig)) throw new KubeConfigError(`kubeconfig ${source.kubeconfig}: no such file`);
      config.loadFromFile(source.kubeconfig);
    } else if (env.KUBECONFIG) config.loadFromDefault();
    else if (existsSync(home)) config.loadFromFile(home);
    else if (env.KUBERNETES_SERVICE_HOST) config.loadFromCluster();
    else throw new KubeConfigError('no Kubernetes configuration: pass --kubeconfig FILE, set KUBECONFIG, or run in a pod with a service account');
  } catch (error) {
    if (error instanceof KubeConfigError) throw error;
    throw new KubeConfigError(`the kubeconfig cannot be read: ${String((error as Error).message ?? error).split('\n')[0]}`);
  }
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new KubeConfigError('the kubeconfig names no current cluster (current-context)');
  return { config, server: cluster.server };
}

/** The Kubernetes Status message of a refused request, when the API sent one. */
function statusMessage(body: unknown): string {
  try {
    const parsed = typeof body === 'string' ? JSON.parse(body) : body;
    return isRecord(parsed) && typeof parsed.message === 'string' ? `: ${parsed.message.slice(0, 300)}` : '';
  } catch {
    return '';
  }
}

/**
 * DISC-13: every list of `kubernetesLists`, cluster-wide (`/apis/<group>/<version>/<plural>`) or per namespace
 * (`/apis/<group>/<version>/namespaces/<ns>/<plural>`), `limit=1000`. A 404 means the API serves no such kind (a CRD
 * not installed): that kind is null. Any other refusal (401, 403, …), an unreachable API, a deadline passed: an error
 * naming the server and the list.
 */
export async function readKubernetes(source: KubernetesSource): Promise<KubernetesAnswer & { server: string }> {
  const { config, server } = loadKubeConfig(source);
  const k8s = clientNode();
  const api = config.makeApiClient(k8s.CustomObjectsApi);
  const namespaces = source.namespaces && source.namespaces.length > 0 ? [...new Set(source.namespaces)].sort() : null;
  const lists: Record<string, KubernetesRouted[] | null> = {};
  for (const [kind, group, version, plural] of kubernetesLists) {
    const shown = `${plural}.${group}`;
    const read = async (namespace: string | null): Promise<unknown> => {
      const signal = AbortSignal.timeout(timeoutMs);
      // The deadline: a middleware that hands the request its abort signal (the object API takes observable ones).
      const deadline: import('@kubernetes/client-node').ObservableMiddleware = {
        pre: (context) => {
          context.setSignal(signal);
          return new k8s.Observable(Promise.resolve(context));
        },
        post: (response) => new k8s.Observable(Promise.resolve(response)),
      };
      const options = { middleware: [deadline], middlewareMergeStrategy: 'append' as const };
      try {
        return namespace === null
          ? await api.listClusterCustomObject({ group, version, plural, limit: maxObjects }, options)
          : await api.listNamespacedCustomObject({ group, version, namespace, plural, limit: maxObjects }, options);
      } catch (error) {
        if (error instanceof k8s.ApiException) {
          if (error.code === 404) return null;
          throw new Error(`${server}: the Kubernetes API refused the ${shown} list${namespace ? ` of namespace ${namespace}` : ''} (HTTP ${error.code}${statusMessage(error.body)})`);
        }
        const reason = signal.aborted ? `no answer within ${timeoutMs / 1000} s` : String((error as Error).message ?? error).split('\n')[0];
        throw new Error(`${server}: the Kubernetes API cannot be reached: ${reason}`);
      }
    };
    let objects: KubernetesRouted[] | null = null;
    for (const namespace of namespaces ?? [null]) {
      const body = await read(namespace);
      if (body === null) continue;
      objects = [...(objects ?? []), ...parseKubernetesList(body, kind, server)];
    }
    const key = kind === 'Ingress' ? 'ingresses' : kind === 'IngressRoute' ? 'ingressRoutes' : 'httpRoutes';
    lists[key] = objects === null ? lists[key] ?? null : [...(lists[key] ?? []), ...objects];
  }
  return { server, ingresses: lists.ingresses ?? null, ingressRoutes: lists.ingressRoutes ?? null, httpRoutes: lists.httpRoutes ?? null };
}

/** DISC-26: the words of a watch event's type as the message says them. */
const watchVerbs: Record<string, string> = { ADDED: 'added', MODIFIED: 'updated', DELETED: 'removed' };
/** DISC-27: a list answer read for its resourceVersion is cut off past this many bytes (it asks for one object). */
const maxListBytes = 4 * 1024 * 1024;

/**
 * DISC-26: a watch event line (`{"type":"ADDED","object":{…}}`) as what the watch does with it: a change
 * (`ingress media/jellyfin added`) with the resourceVersion to resume from, a bookmark (only the resourceVersion), an
 * expired resourceVersion (a Status 410 ERROR event: list again) or another ERROR, or null for a line that is none.
 * Only the type, the object's namespace, name and resourceVersion are read.
 */
export function parseWatchEvent(
  line: string,
  kind: RoutedKind,
): { change: string | null; resourceVersion: string | null } | { error: string; expired: boolean } | null {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isRecord(event) || typeof event.type !== 'string' || !isRecord(event.object)) return null;
  const object = event.object;
  if (event.type === 'ERROR') {
    return { error: text(object.message, 300) || `HTTP ${String(object.code)}`, expired: object.code === 410 };
  }
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const resourceVersion = text(metadata.resourceVersion, 64) || null;
  if (event.type === 'BOOKMARK') return { change: null, resourceVersion };
  const verb = watchVerbs[event.type];
  if (!verb) return null;
  const namespace = text(metadata.namespace, 64);
  const name = `${namespace ? `${namespace}/` : ''}${text(metadata.name, 253)}`;
  return { change: describeChange(kind.toLowerCase(), name, verb), resourceVersion };
}

/**
 * DISC-26, DISC-27: watches every list of `kubernetesLists` (per namespace when namespaces are given) with the
 * credentials of the kubeconfig until `stop()`: GET the list (`limit=1`) for its resourceVersion, then GET
 * `…?watch=true&resourceVersion=…&allowWatchBookmarks=true` and read the event lines. Each ADDED, MODIFIED or DELETED
 * event is handed to `onChange` (`ingress media/jellyfin added`). A kind the API does not serve (404) is not watched.
 * A watch that fails or ends is told to `onError` and opened again as Docker's stream is (5 s doubling to 60 s),
 * from the last resourceVersion it saw; an expired resourceVersion (410 Gone) lists again at once, and that is a change
 * (events may have been missed). `ready` settles once every watch answered (or failed to). A configuration that
 * cannot be used throws (KubeConfigError), as a read does.
 */
export function watchKubernetes(source: KubernetesSource, onChange: (change: string) => void, onError: (error: Error) => void): { stop(): void; ready: Promise<void> } {
  const { config, server } = loadKubeConfig(source);
  const namespaces = source.namespaces && source.namespaces.length > 0 ? [...new Set(source.namespaces)].sort() : null;
  const base = server.replace(/\/+$/, '');
  const streams: { stop(): void; ready: Promise<void> }[] = [];
  for (const [kind, group, version, plural] of kubernetesLists) {
    for (const namespace of namespaces ?? [null]) {
      const listPath = `/apis/${group}/${version}/${namespace === null ? '' : `namespaces/${encodeURIComponent(namespace)}/`}${plural}`;
      const shown = `${plural}.${group}${namespace === null ? '' : ` of namespace ${namespace}`}`;
      let resourceVersion: string | null = null;
      let relist = false;
      streams.push(
        reconnecting((attempt) => {
          let current: ClientRequest | null = null;
          let aborted = false;
          const refused = (status: number | undefined, body: string, what: string) =>
            new Error(`${server}: the Kubernetes API refused the ${shown} ${what} (HTTP ${status}${statusMessage(body)})`);
          const unreachable = (error: Error) => attempt.lost(new Error(`${server}: the Kubernetes API cannot be reached (${shown} watch): ${String(error.message).split('\n')[0]}`));
          /** One GET with the kubeconfig's credentials; the answer is handed over with its status. */
          const get = async (query: string, answered: (response: IncomingMessage) => void) => {
            const options: import('node:https').RequestOptions = {};
            await config.applyToHTTPSOptions(options);
            if (aborted) return;
            const url = new URL(`${base}${listPath}?${query}`);
            const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { ...options, method: 'GET', headers: { ...options.headers, accept: 'application/json' } }, answered);
            current = req;
            req.on('error', unreachable);
            req.end();
          };
          /** The body of a short answer, bounded. */
          const bodyOf = (response: IncomingMessage) =>
            new Promise<string>((resolve) => {
              let body = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => {
                body += chunk;
                if (body.length > maxListBytes) response.destroy();
              });
              response.on('end', () => resolve(body));
              response.on('close', () => resolve(body));
              response.on('error', () => resolve(body));
            });
          const watch = () =>
            get(`watch=true&resourceVersion=${encodeURIComponent(resourceVersion!)}&allowWatchBookmarks=true`, (response) => {
              if (response.statusCode === 404) {
                response.resume();
                return attempt.finished();
              }
              if (response.statusCode === 410) {
                response.resume();
                resourceVersion = null;
                relist = true;
                return attempt.lost(new Error(`${server}: the ${shown} watch expired (410 Gone): listing again`), true);
              }
              if (response.statusCode !== 200) return void bodyOf(response).then((body) => attempt.lost(refused(response.statusCode, body, 'watch')));
              attempt.opened();
              readLines(response, (line) => {
                if (!attempt.current) return;
                const event = parseWatchEvent(line, kind);
                if (event === null) return;
                if ('error' in event) {
                  if (event.expired) {
                    resourceVersion = null;
                    relist = true;
                  }
                  attempt.lost(new Error(`${server}: the ${shown} watch ended: ${event.error}${event.expired ? ': listing again' : ''}`), event.expired);
                  return;
                }
                if (event.resourceVersion) resourceVersion = event.resourceVersion;
                if (event.change) onChange(event.change);
              });
              response.on('end', () => attempt.lost(new Error(`${server}: the ${shown} watch ended`)));
              response.on('error', (error) => attempt.lost(new Error(`${server}: the ${shown} watch failed: ${error.message}`)));
            });
          const list = () =>
            get('limit=1', (response) => {
              void bodyOf(response).then((body) => {
                if (!attempt.current) return;
                if (response.statusCode === 404) return attempt.finished();
                if (response.statusCode !== 200) return attempt.lost(refused(response.statusCode, body, 'list'));
                let version: unknown;
                try {
                  const parsed: unknown = JSON.parse(body);
                  version = isRecord(parsed) && isRecord(parsed.metadata) ? parsed.metadata.resourceVersion : undefined;
                } catch {
                  version = undefined;
                }
                if (typeof version !== 'string' || version === '') return attempt.lost(new Error(`${server}: the ${shown} list has no resourceVersion to watch from`));
                resourceVersion = version.slice(0, 64);
                // DISC-27: after an expired watch, what changed meanwhile is not known: the source is read again.
                if (relist) onChange(`${shown} listed again (the watch expired)`);
                relist = false;
                void watch().catch((error: Error) => unreachable(error));
              });
            });
          void (resourceVersion === null ? list() : watch()).catch((error: Error) => unreachable(error));
          return () => {
            aborted = true;
            (current as ClientRequest | null)?.destroy();
          };
        }, onError),
      );
    }
  }
  return {
    ready: Promise.all(streams.map((stream) => stream.ready)).then(() => undefined),
    stop: () => {
      for (const stream of streams) stream.stop();
    },
  };
}
