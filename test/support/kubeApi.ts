/**
 * A stand-in for the Kubernetes API server's list endpoints (no API server runs on these machines: Debian packages
 * neither kube-apiserver nor k3s). It serves RECORDED answers shaped exactly as the real API answers them
 * (test/discover/kubernetes-records/*.json: Kubernetes 1.31 networking.k8s.io/v1 IngressList, Traefik v3's
 * traefik.io/v1alpha1 and Traefik v2's traefik.containo.us/v1alpha1 IngressRouteList, Gateway API v1.2
 * gateway.networking.k8s.io/v1 HTTPRouteList), cluster-wide (`/apis/<group>/<version>/<plural>`) and per namespace
 * (`/apis/<group>/<version>/namespaces/<ns>/<plural>`); a kind it has no record of answers 404 with a Status, as an
 * API server without that CRD does; a request without the bearer token answers 401. It writes a kubeconfig pointing
 * at itself, and records every request (to check that discovery only lists and watches).
 *
 * Watch requests (`?watch=true`, DISC-26) are served as the real API streams them (Kubernetes 1.31 watch: a 200 held
 * open, chunked, one JSON line per event `{"type":"ADDED"|"MODIFIED"|"DELETED"|"BOOKMARK"|"ERROR","object":{…}}`);
 * without a resourceVersion (or with "0") the objects present come first as ADDED events, as the real API sends them.
 * A test changes the cluster with `change()`: the records the next list answers change, the open watches of that
 * list hear the event, with the next resourceVersion. `expire()` ends the open watches with the ERROR event of an
 * expired resourceVersion (a Status 410 Gone), as the API does after compaction.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export type ListRecord = { kind: string; apiVersion: string; metadata: Record<string, unknown>; items: KubeItem[] };
export type KubeItem = { metadata: { name: string; namespace: string; annotations?: Record<string, string> } & Record<string, unknown> } & Record<string, unknown>;

/** The recorded lists by `<plural>.<group>` (the Ingress list by `ingresses.networking.k8s.io`). */
export type Records = Record<string, ListRecord>;

const recordsDir = path.join(__dirname, '../discover/kubernetes-records');

export function loadRecords(): Records {
  const read = (file: string) => JSON.parse(readFileSync(path.join(recordsDir, file), 'utf8')) as ListRecord;
  return {
    'ingresses.networking.k8s.io': read('ingresses.json'),
    'ingressroutes.traefik.io': read('ingressroutes.traefik.io.json'),
    'ingressroutes.traefik.containo.us': read('ingressroutes.traefik.containo.us.json'),
    'httproutes.gateway.networking.k8s.io': read('httproutes.json'),
  };
}

/** Every annotation value `from` of the records replaced by `to` (names unique to a test run). */
export function replaceAnnotation(records: Records, from: string, to: string): void {
  for (const list of Object.values(records)) {
    for (const item of list.items) {
      for (const [key, value] of Object.entries(item.metadata.annotations ?? {})) if (value === from) item.metadata.annotations![key] = to;
    }
  }
}

export interface KubeApi {
  url: string;
  token: string;
  /** `METHOD path?query` of each request, in order. */
  requests: string[];
  /** What the next requests are answered from (replace it to change the cluster). */
  records: Records;
  /** Lists (`<plural>.<group>`) answered 403 as RBAC refuses a list the service account may not read. */
  forbidden: Set<string>;
  /** The watches open now: which list (`<plural>.<group>`) and namespace (null: cluster-wide) each watches. */
  watches(): { list: string; namespace: string | null }[];
  /** How many watch connections were opened, and how many of them closed since. */
  watchCounts(): { opened: number; closed: number };
  /**
   * Changes the cluster: `item` (matched by namespace and name) is added, replaced or removed in the records of `list`
   * with the next resourceVersion, and every open watch of that list (and namespace) hears the event.
   */
  change(list: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', item: KubeItem): void;
  /** Ends every open watch with a 410 Gone ERROR event (its resourceVersion is too old). */
  expire(): void;
  kubeconfig(file: string): string;
  stop(): Promise<void>;
}

type OpenWatch = { list: string; namespace: string | null; res: ServerResponse };
const status = (code: number, reason: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

const notFound = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 });

export async function startKubeApi(records: Records, token = 'discovery-token-0451'): Promise<KubeApi> {
  const api: Pick<KubeApi, 'token' | 'requests' | 'records' | 'forbidden'> = { token, requests: [], records, forbidden: new Set() };
  const open = new Set<OpenWatch>();
  const counts = { opened: 0, closed: 0 };
  let resourceVersion = Math.max(...Object.values(records).map((list) => Number(list.metadata.resourceVersion) || 0));
  const send = (watch: OpenWatch, type: string, object: unknown) => watch.res.write(`${JSON.stringify({ type, object })}\n`);
  const server: Server = createServer((req, res) => {
    api.requests.push(`${req.method} ${req.url}`);
    const answer = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json', 'audit-id': '00000000-0000-0000-0000-000000000000' });
      res.end(body);
    };
    if (req.headers.authorization !== `Bearer ${api.token}`) {
      answer(401, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }));
      return;
    }
    const url = new URL(req.url ?? '/', 'http://kube');
    const match = /^\/apis\/([^/]+)\/([^/]+)\/(?:namespaces\/([^/]+)\/)?([^/]+)$/.exec(url.pathname);
    const list = match && req.method === 'GET' ? api.records[`${match[4]}.${match[1]}`] : undefined;
    if (!match || !list || list.apiVersion !== `${match[1]}/${match[2]}`) {
      answer(404, notFound);
      return;
    }
    const namespace = match[3];
    if (api.forbidden.has(`${match[4]}.${match[1]}`)) {
      const message = `${match[4]}.${match[1]} is forbidden: User "system:serviceaccount:tessera:discovery" cannot list resource "${match[4]}" in API group "${match[1]}" ${namespace ? `in the namespace "${namespace}"` : 'at the cluster scope'}`;
      answer(403, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details: { group: match[1], kind: match[4] }, code: 403 }));
      return;
    }
    const items = list.items.filter((item) => namespace === undefined || item.metadata.namespace === namespace);
    const watching = url.searchParams.get('watch');
    if (watching === 'true' || watching === '1') {
      // A watch: held open, one JSON line per event, chunked (no content-length), as the API server streams it.
      res.writeHead(200, { 'content-type': 'application/json', 'audit-id': '00000000-0000-0000-0000-000000000000', 'cache-control': 'no-cache, private' });
      res.flushHeaders();
      const watch: OpenWatch = { list: `${match[4]}.${match[1]}`, namespace: namespace ?? null, res };
      open.add(watch);
      counts.opened++;
      res.on('close', () => {
        if (open.delete(watch)) counts.closed++;
      });
      const from = url.searchParams.get('resourceVersion');
      if (from === null || from === '' || from === '0') for (const item of items) send(watch, 'ADDED', { apiVersion: list.apiVersion, kind: list.kind.replace(/List$/, ''), ...item });
      return;
    }
    answer(200, JSON.stringify({ ...list, metadata: { ...list.metadata, resourceVersion: String(resourceVersion) }, items }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    requests: api.requests,
    forbidden: api.forbidden,
    get token() {
      return api.token;
    },
    set token(value: string) {
      api.token = value;
    },
    get records() {
      return api.records;
    },
    set records(value: Records) {
      api.records = value;
    },
    url,
    watches: () => [...open].map(({ list, namespace }) => ({ list, namespace })),
    watchCounts: () => ({ ...counts }),
    change(list, type, item) {
      const record = api.records[list];
      resourceVersion++;
      const object = { ...item, metadata: { ...item.metadata, resourceVersion: String(resourceVersion) } };
      const others = record.items.filter((entry) => entry.metadata.namespace !== item.metadata.namespace || entry.metadata.name !== item.metadata.name);
      api.records = { ...api.records, [list]: { ...record, metadata: { ...record.metadata, resourceVersion: String(resourceVersion) }, items: type === 'DELETED' ? others : [...others, object] } };
      for (const watch of open) {
        if (watch.list === list && (watch.namespace === null || watch.namespace === item.metadata.namespace)) send(watch, type, { apiVersion: record.apiVersion, kind: record.kind.replace(/List$/, ''), ...object });
      }
    },
    expire() {
      for (const watch of open) {
        send(watch, 'ERROR', status(410, 'Expired', `too old resource version: 1 (${resourceVersion})`));
        watch.res.end();
      }
    },
    kubeconfig(file) {
      writeFileSync(
        file,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          '- name: recorded',
          '  cluster:',
          `    server: ${url}`,
          '    insecure-skip-tls-verify: true',
          'contexts:',
          '- name: recorded',
          '  context:',
          '    cluster: recorded',
          '    user: discovery',
          'current-context: recorded',
          'users:',
          '- name: discovery',
          '  user:',
          `    token: ${token}`,
          '',
        ].join('\n'),
      );
      return file;
    },
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // Watches are held open by the server until their client goes: the stand-in ending ends them.
        server.closeAllConnections();
      }),
  };
}
