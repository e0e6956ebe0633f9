/**
 * Kubernetes discovery (DISC-13..25), pure: the Ingresses, Traefik IngressRoutes and Gateway API HTTPRoutes an API
 * server listed (src/discover/kubernetesReader.ts), in; board files and a report, out, with the same building blocks
 * as the Docker discovery (src/discover/services.ts). Vocabularies: homepage's annotations (`gethomepage.dev/*`) and
 * Tessera's own (`tessera.dev/*`) where homepage's has no word. Annotations are untrusted input.
 */
import type { Context } from '../convert/common';
import { readKubernetes, type KubernetesAnswer, type KubernetesRouted, type KubernetesSource } from './kubernetesReader';
import {
  cleanLabels,
  compareName,
  compareText,
  discoverServices,
  isWidgetKey,
  objectSource,
  placeService,
  reportWidgets,
  type Discovered,
  type DiscoverOptions,
  type DiscoverResult,
  type Placed,
  type Report,
  type Where,
} from './services';

export type { DiscoverOptions, DiscoverResult, DiscoverReport, DiscoverEntry } from './services';
export type { KubernetesAnswer, KubernetesRouted } from './kubernetesReader';

/** DISC-18: the board of the objects without `tessera.dev/board` and without --board. */
export const defaultKubernetesBoard = 'kubernetes';
/** DISC-18: the section of the objects that name no group (homepage's own default for Kubernetes). */
export const defaultKubernetesGroup = 'Kubernetes';

const homepage = 'gethomepage.dev/';
const tesseraPrefix = 'tessera.dev/';

/** DISC-16: homepage's annotations Tessera maps (after `enabled` and `instance`), besides `widget.*`. */
const homepageKeys = ['name', 'group', 'icon', 'description', 'href', 'weight', 'siteMonitor'] as const;
const homepageOther: Record<string, string> = {
  'pod-selector': 'the pods of the status and stats: Tessera checks the link (tessera.dev/ping), not pods',
  app: 'the pods of the status and stats: Tessera checks the link (tessera.dev/ping), not pods',
  ping: 'host ping (ICMP): Tessera pings http(s) addresses; use tessera.dev/ping',
  statusStyle: 'status display style: Tessera shows one status dot',
  external: 'homepage\'s external flag: every discovered link is an app link',
};
const tesseraKeys = ['board', 'section', 'width', 'height', 'ping'] as const;

/** The kinds in the order their objects are read (DISC-19). */
const kindOrder = ['Ingress', 'IngressRoute', 'HTTPRoute'] as const;

interface Found {
  found: Discovered;
  object: KubernetesRouted;
}

/** DISC-15: a path worth adding to a link: a plain absolute path other than `/` (no pattern, no regular expression). */
const plainPath = /^\/[A-Za-z0-9\-._~/%]*$/;

/**
 * DISC-15: the link an object's route gives when `gethomepage.dev/href` names none: https when TLS covers the host
 * (an Ingress's tls hosts, an IngressRoute's tls), http when not; an HTTPRoute's https is assumed (its Gateway's
 * listener decides, which discovery does not read); the path when it is not `/`. Null (reported) without a host.
 */
function inferredHref(object: KubernetesRouted, report: Report): Where | undefined {
  const { host, path, tls } = object.route;
  const what = object.kind === 'Ingress' ? 'the first rule of the Ingress' : object.kind === 'IngressRoute' ? 'the Host() of the first route' : 'the first hostname of the HTTPRoute';
  if (!host || host.includes('*') || !/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(host)) {
    report('', 'unmapped', `no link: ${what} names no single host${host ? ` (${host})` : ''}; set ${homepage}href`);
    return undefined;
  }
  let suffix = '';
  if (path && path !== '/') {
    if (plainPath.test(path)) suffix = path.replace(/\/+$/, '');
    else report('', 'unmapped', `the path ${path} is a pattern: the link is the host's root`);
  }
  const scheme = tls === false ? 'http' : 'https';
  const why =
    tls === null ? 'an HTTPRoute does not say: https assumed' : object.kind === 'Ingress' ? (tls ? 'its host is in the TLS hosts' : 'no TLS for its host') : tls ? 'the route has tls' : 'the route has no tls';
  const value = `${scheme}://${host}${suffix}`;
  report('', 'mapped', `no ${homepage}href: ${value} from ${what} (${why})`);
  return { value, label: '' };
}

/** DISC-17: why an object is not for this instance (homepage's `instance` and `instance.<name>` annotations), or null. */
function otherInstance(annotations: Map<string, Where>, instance: string | undefined): { label: string; detail: string } | null {
  const named = annotations.get('instance');
  const listed = [...annotations.keys()].filter((key) => /^instance\.[^.]+$/.test(key)).map((key) => key.slice('instance.'.length));
  const instances = [...(named && named.value !== '' ? [named.value] : []), ...listed];
  if (instances.length === 0) return null;
  const label = named && named.value !== '' ? named.label : `${homepage}instance.${listed[0]}`;
  if (instance === undefined) return { label, detail: `for homepage instance ${instances.join(', ')}: name it with --instance ${instances[0]} to read it` };
  if (instances.includes(instance)) return null;
  return { label, detail: `for homepage instance ${instances.join(', ')}, not ${instance}` };
}

/** DISC-14..18: one object as an app item, or null when it is skipped (not enabled, another instance). */
function mapObject(ctx: Context, { found, object }: Found, options: DiscoverOptions, report: Report): Placed | null {
  const home = new Map<string, Where>();
  const tessera = new Map<string, Where>();
  for (const where of cleanLabels(object.annotations, report)) {
    if (where.label.startsWith(homepage)) home.set(where.label.slice(homepage.length), where);
    else if (where.label.startsWith(tesseraPrefix)) tessera.set(where.label.slice(tesseraPrefix.length), where);
  }
  // DISC-16: `gethomepage.dev/enabled: "true"` opts in; without it, Tessera's own annotations do; `false` opts out.
  const enabled = home.get('enabled');
  if (enabled && enabled.value.toLowerCase() !== 'true') {
    report(enabled.label, 'skipped', `not enabled (${enabled.label}: "${enabled.value}"): not discovered`);
    return null;
  }
  if (!enabled && tessera.size === 0) {
    report('', 'skipped', `no ${homepage}enabled: "true" and no ${tesseraPrefix}* annotations: not discovered`);
    return null;
  }
  const elsewhere = otherInstance(home, options.instance);
  if (elsewhere) {
    report(elsewhere.label, 'skipped', `${elsewhere.detail}: not discovered`);
    return null;
  }
  for (const [key, where] of tessera) if (!(tesseraKeys as readonly string[]).includes(key)) report(where.label, 'unmapped', 'not a tessera.dev annotation (board, section, width, height, ping)');
  reportWidgets(home, 'annotations', report);
  for (const [key, where] of home) {
    if ((homepageKeys as readonly string[]).includes(key) || isWidgetKey(key) || key === 'enabled' || key === 'instance' || /^instance\.[^.]+$/.test(key)) continue;
    report(where.label, 'unmapped', homepageOther[key] ?? 'not a homepage annotation Tessera reads');
  }
  const pick = (key: string, map = home) => {
    const where = map.get(key);
    return where && where.value !== '' ? where : undefined;
  };
  return placeService(
    ctx,
    found,
    {
      name: pick('name'),
      href: pick('href') ?? inferredHref(object, report),
      icon: pick('icon'),
      description: pick('description'),
      group: pick('group'),
      weight: home.get('weight'),
      siteMonitor: pick('siteMonitor'),
      openInNewTab: true,
      tessera: { board: tessera.get('board'), section: pick('section', tessera), width: tessera.get('width'), height: tessera.get('height'), ping: tessera.get('ping') },
    },
    options,
    { board: defaultKubernetesBoard, group: defaultKubernetesGroup, word: 'annotation' },
    report,
  );
}

/** DISC-19: `ingress media/emby`, `ingressroute media/emby`, `httproute media/emby`. */
const objectName = (object: KubernetesRouted) => `${object.kind.toLowerCase()} ${object.namespace}/${object.name}`;

/**
 * DISC-13..21: the objects an API server listed as board files (one app item per enabled object, a section per group,
 * items by weight then name, one file per board) and the report. The same objects give the same files, byte for byte,
 * whatever order the API listed them in (DISC-21).
 */
export function discoverKubernetes(answer: KubernetesAnswer, options: DiscoverOptions = {}): DiscoverResult {
  const all = [...(answer.ingresses ?? []), ...(answer.ingressRoutes ?? []), ...(answer.httpRoutes ?? [])].sort(
    (a, b) =>
      kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind) ||
      compareName(a.namespace, b.namespace) ||
      compareName(a.name, b.name) ||
      // DISC-19: an IngressRoute of traefik.io before its namesake of the older traefik.containo.us.
      compareText(a.apiVersion.startsWith('traefik.io/') ? '0' : a.apiVersion, b.apiVersion.startsWith('traefik.io/') ? '0' : b.apiVersion),
  );
  const objects: Found[] = [];
  const duplicates: KubernetesRouted[] = [];
  const seen = new Set<string>();
  for (const object of all) {
    const key = `${object.kind.toLowerCase()}:${object.namespace}/${object.name}`;
    if (seen.has(key)) {
      duplicates.push(object);
      continue;
    }
    seen.add(key);
    objects.push({ object, found: { kind: object.kind, name: object.name, key, source: objectSource(objectName(object), object.annotations) } });
  }
  const { boards, reportBoards, entries } = discoverServices(objects, options, (ctx, object, report) => mapObject(ctx, object, options, report));
  for (const object of duplicates) {
    entries.push({ object: objectName(object), label: '', status: 'skipped', detail: `${object.apiVersion}: the IngressRoute of the same name under traefik.io is read instead` });
  }
  const count = (list: KubernetesRouted[] | null) => (list === null ? null : list.length);
  return {
    boards,
    report: {
      source: 'kubernetes',
      found: { ingresses: count(answer.ingresses), ingressRoutes: count(answer.ingressRoutes), httpRoutes: count(answer.httpRoutes) },
      boards: reportBoards,
      entries,
    },
  };
}

/**
 * DISC-13, DISC-25: reads the API server the kubeconfig (or the pod's service account) names, in the given namespaces
 * (all when none), and maps what it listed: `tessera discover kubernetes` and the server's discovery source both come
 * here.
 */
export async function discoverFromKubernetes(options: { kubeconfig?: string; namespaces?: string[] } & DiscoverOptions): Promise<DiscoverResult> {
  const { kubeconfig, namespaces, ...discover } = options;
  const source: KubernetesSource = { kubeconfig, namespaces };
  const { server: _server, ...answer } = await readKubernetes(source);
  return discoverKubernetes(answer, discover);
}
