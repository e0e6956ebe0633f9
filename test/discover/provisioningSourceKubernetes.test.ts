/**
 * DISC-31, DISC-33, DISC-35: a Kubernetes discovery source on the server, against the recorded answers of the real
 * API served by test/support/kubeApi.ts (no API server runs on these machines; its header says which API versions the
 * records follow). The server applies what `discoverFromKubernetes` finds, re-reads on its interval, prunes what went
 * away, and keeps the last good state while the API cannot be read. DISC-26, DISC-27: it watches the kinds it lists
 * (the stand-in streams watch events in the real API's format, its header says which) and applies a change on an event.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { discoverFromKubernetes } from '../../src/discover/kubernetes';
import { parseWatchEvent } from '../../src/discover/kubernetesReader';
import { expectOk } from '../boards-document/helpers';
import { eventually } from '../support/eventually';
import { loadRecords, startKubeApi, type KubeApi, type KubeItem } from '../support/kubeApi';
import { startTestServer, useTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';

const root = mkdtempSync(path.join(os.tmpdir(), 'tessera-discsrc-k8s-'));
const configFile = path.join(root, 'provisioning.yaml');
const kubeconfig = path.join(root, 'kubeconfig');
const managedBy = unique('discovery-k8s-');
const board = unique('cluster-');
let api: KubeApi;

const env: Record<string, string> = { PROVISIONING_DEBOUNCE_MS: '500' };
beforeAll(async () => {
  api = await startKubeApi(loadRecords());
  api.kubeconfig(kubeconfig);
  writeFileSync(configFile, toYaml({ sources: [{ source: 'kubernetes', kubeconfig: 'kubeconfig', managedBy, board, interval: 1 }] }));
  env.PROVISIONING_CONFIG = configFile;
}, 120_000);
const server = useTestServer(env);
afterAll(async () => {
  await api?.stop();
  rmSync(root, { recursive: true, force: true });
});

const statusOf = async () => (expectOk(await server.call('GET', '/api/provisioning')).sources as any[]).find((s) => s.managedBy === managedBy);
/** Each managed board's name with its apps' names, sorted. */
const appliedBoards = async () => {
  const rows = await server.db('boards').where({ managedBy }).select('id', 'name');
  const result: [string, string[]][] = [];
  for (const row of rows) {
    const file = expectOk(await server.call('GET', `/api/boards/${row.id}/export`));
    result.push([row.name, file.items.map((item: any) => item.app.name).sort()]);
  }
  return result.sort(([a], [b]) => a.localeCompare(b));
};
const expectedBoards = async () => {
  const { boards } = await discoverFromKubernetes({ kubeconfig, board, managedBy });
  return boards.map((file) => [file.name, file.items.map((item: any) => item.app.name).sort()] as [string, string[]]).sort(([a], [b]) => a.localeCompare(b));
};

describe('a Kubernetes discovery source on the server (DISC-31..35)', () => {
  it('DISC-31, DISC-33: the server applies exactly what discovery finds in the cluster, and only lists and watches (GET)', async () => {
    const expected = await expectedBoards();
    expect(expected.length).toBeGreaterThan(0);
    await eventually(async () => expect(await appliedBoards()).toEqual(expected), { timeoutMs: 120_000 });
    expect(await statusOf()).toMatchObject({ kind: 'kubernetes', ok: true, lastError: null });
    expect(api.requests.every((request) => request.startsWith('GET '))).toBe(true);
  }, 180_000);

  it('DISC-35: while the API refuses, the boards stay as they were; DISC-33: an object that went away is pruned on the next read', async () => {
    const before = await appliedBoards();
    api.forbidden.add('ingresses.networking.k8s.io');
    await eventually(async () => expect(await statusOf()).toMatchObject({ ok: false }), { timeoutMs: 120_000 });
    expect(await appliedBoards()).toEqual(before);

    api.forbidden.clear();
    api.records = { ...api.records, 'ingresses.networking.k8s.io': { ...api.records['ingresses.networking.k8s.io'], items: [] } };
    const expected = await expectedBoards();
    expect(expected).not.toEqual(before);
    await eventually(async () => expect(await appliedBoards()).toEqual(expected), { timeoutMs: 120_000 });
    expect(await statusOf()).toMatchObject({ ok: true, lastError: expect.anything() });
  }, 300_000);
});

describe('a Kubernetes discovery source is watched (DISC-26, DISC-27)', () => {
  const watchedBy = unique('discovery-k8s-watch-');
  const watchedBoard = unique('watched-');
  const watchedConfig = path.join(root, 'watched.yaml');
  const watchedKubeconfig = path.join(root, 'watched-kubeconfig');
  const namespaces = ['media', 'tools'];
  let cluster: KubeApi;
  let watched: TestServer | null = null;

  afterAll(async () => {
    await watched?.stop();
    await cluster?.stop();
  });

  const boardsOf = async (target: TestServer) => {
    const rows = await target.db('boards').where({ managedBy: watchedBy }).select('id', 'name');
    const result: [string, string[]][] = [];
    for (const row of rows) result.push([row.name, expectOk(await target.call('GET', `/api/boards/${row.id}/export`)).items.map((item: any) => item.app.name).sort()]);
    return result.sort(([a], [b]) => a.localeCompare(b));
  };
  const discovered = async () => {
    const { boards } = await discoverFromKubernetes({ kubeconfig: watchedKubeconfig, namespaces, board: watchedBoard, managedBy: watchedBy });
    return boards.map((file) => [file.name, file.items.map((item: any) => item.app.name).sort()] as [string, string[]]).sort(([a], [b]) => a.localeCompare(b));
  };
  /** The newest history entry's message of each managed board. */
  const latestMessages = async (target: TestServer) => {
    const rows = await target.db('boards').where({ managedBy: watchedBy }).select('id');
    const messages: string[] = [];
    for (const row of rows) messages.push(...(expectOk(await target.call('GET', `/api/boards/${row.id}/history?limit=1`)).entries as any[]).map((entry) => entry.origin?.message));
    return messages;
  };

  it(
    'DISC-26: a watch event re-reads the cluster (the interval is an hour): the change is applied and its history entry names the event; ' +
      'DISC-27: each served kind is watched per namespace, a kind not served (404) is not, only GET requests, and stopping the server ends the watches',
    async () => {
      const records = loadRecords();
      // This cluster serves no traefik.containo.us IngressRoutes (that CRD is not installed: its list and watch answer 404).
      delete (records as Partial<typeof records>)['ingressroutes.traefik.containo.us'];
      cluster = await startKubeApi(records);
      cluster.kubeconfig(watchedKubeconfig);
      writeFileSync(watchedConfig, toYaml({ sources: [{ source: 'kubernetes', kubeconfig: 'watched-kubeconfig', namespaces, managedBy: watchedBy, board: watchedBoard, interval: 3600 }] }));
      watched = await startTestServer({ PROVISIONING_CONFIG: watchedConfig, PROVISIONING_DEBOUNCE_MS: '500' });

      const expected = await discovered();
      await eventually(async () => expect(await boardsOf(watched!)).toEqual(expected), { timeoutMs: 120_000 });
      const served = ['httproutes.gateway.networking.k8s.io', 'ingresses.networking.k8s.io', 'ingressroutes.traefik.io'];
      const expectedWatches = served.flatMap((list) => namespaces.map((namespace) => `${list} ${namespace}`)).sort();
      await eventually(async () => expect(cluster.watches().map(({ list, namespace }) => `${list} ${namespace}`).sort()).toEqual(expectedWatches), { timeoutMs: 120_000 });

      // A new Ingress appears in the cluster: the next list has it, and the open watch of its namespace hears ADDED.
      const name = unique('watched-app-');
      const appName = unique('Watched App ');
      const ingress: KubeItem = {
        metadata: { name, namespace: 'media', annotations: { 'gethomepage.dev/enabled': 'true', 'gethomepage.dev/name': appName, 'gethomepage.dev/group': 'Media' } },
        spec: { ingressClassName: 'nginx', rules: [{ host: `${name}.example.com`, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: 80 } } } }] } }] },
      };
      cluster.change('ingresses.networking.k8s.io', 'ADDED', ingress);
      const changed = await discovered();
      expect(changed.flatMap(([, apps]) => apps)).toContain(appName);
      await eventually(async () => expect(await boardsOf(watched!)).toEqual(changed), { timeoutMs: 120_000 });
      await eventually(async () => expect(await latestMessages(watched!)).toContain(`discovery: ingress media/${name} added`), { timeoutMs: 120_000 });

      // Removed again: the DELETED event prunes it.
      cluster.change('ingresses.networking.k8s.io', 'DELETED', ingress);
      await eventually(async () => expect(await boardsOf(watched!)).toEqual(expected), { timeoutMs: 120_000 });
      await eventually(async () => expect(await latestMessages(watched!)).toContain(`discovery: ingress media/${name} removed`), { timeoutMs: 120_000 });

      // The API compacted past the watches' resourceVersion (410 Gone): each lists again and watches from the new list.
      const watchRequests = () => cluster.requests.filter((request) => request.includes('watch=true')).length;
      // (The re-read finds nothing new: it writes no history entry.)
      const listRequests = () => cluster.requests.filter((request) => request.includes('limit=1') && !request.includes('watch=')).length;
      const before = { watches: watchRequests(), lists: listRequests() };
      cluster.expire();
      await eventually(async () => {
        expect(listRequests()).toBeGreaterThanOrEqual(before.lists + expectedWatches.length);
        expect(watchRequests()).toBeGreaterThanOrEqual(before.watches + expectedWatches.length);
        expect(cluster.watches().map(({ list, namespace }) => `${list} ${namespace}`).sort()).toEqual(expectedWatches);
      }, { timeoutMs: 120_000 });
      const again: KubeItem = { ...ingress, metadata: { ...ingress.metadata, name: `${name}-again` } };
      cluster.change('ingresses.networking.k8s.io', 'ADDED', again);
      // (Within the debounce of the re-lists, it is one apply naming them too: `discovery: 7 changes: … listed again …, ingress … added`.)
      await eventually(async () => expect((await latestMessages(watched!)).join('\n')).toMatch(new RegExp(`^discovery: .*ingress media/${name}-again added$`, 'm')), { timeoutMs: 120_000 });
      expect((await boardsOf(watched!)).flatMap(([, apps]) => apps)).toContain(appName);

      expect(cluster.requests.every((request) => request.startsWith('GET '))).toBe(true);
      expect(cluster.requests.filter((request) => request.includes('watch=true')).length).toBeGreaterThanOrEqual(expectedWatches.length);
      expect(cluster.requests.filter((request) => request.includes('watch=true')).every((request) => /[?&]resourceVersion=\d+/.test(request))).toBe(true);

      await watched.stop();
      watched = null;
      await eventually(async () => expect(cluster.watches()).toEqual([]), { timeoutMs: 120_000 });
      const counts = cluster.watchCounts();
      expect(counts.closed).toBe(counts.opened);
    },
    600_000,
  );
});

describe('a Kubernetes watch event (DISC-26, DISC-27)', () => {
  it('DISC-26: is read for its type, namespace and name only; a bookmark moves the resourceVersion on; DISC-27: a 410 ERROR is an expired resourceVersion', () => {
    const object = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'jelly\u001bfin', namespace: 'media', resourceVersion: '48300', annotations: { 'gethomepage.dev/widget.key': 'never-read-7731' } } };
    expect(parseWatchEvent(JSON.stringify({ type: 'ADDED', object }), 'Ingress')).toEqual({ change: 'ingress media/jellyfin added', resourceVersion: '48300' });
    expect(parseWatchEvent(JSON.stringify({ type: 'MODIFIED', object }), 'IngressRoute')).toEqual({ change: 'ingressroute media/jellyfin updated', resourceVersion: '48300' });
    expect(parseWatchEvent(JSON.stringify({ type: 'DELETED', object }), 'HTTPRoute')).toEqual({ change: 'httproute media/jellyfin removed', resourceVersion: '48300' });
    expect(JSON.stringify(parseWatchEvent(JSON.stringify({ type: 'ADDED', object }), 'Ingress'))).not.toContain('never-read-7731');
    expect(parseWatchEvent(JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Ingress', metadata: { resourceVersion: '48400' } } }), 'Ingress')).toEqual({ change: null, resourceVersion: '48400' });
    const gone = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (48213)', reason: 'Expired', code: 410 };
    expect(parseWatchEvent(JSON.stringify({ type: 'ERROR', object: gone }), 'Ingress')).toEqual({ error: 'too old resource version: 1 (48213)', expired: true });
    expect(parseWatchEvent(JSON.stringify({ type: 'ERROR', object: { ...gone, code: 500, message: 'etcd' } }), 'Ingress')).toEqual({ error: 'etcd', expired: false });
    expect(parseWatchEvent('not json', 'Ingress')).toBeNull();
    expect(parseWatchEvent(JSON.stringify({ type: 'SYNC', object }), 'Ingress')).toBeNull();
  });
});
