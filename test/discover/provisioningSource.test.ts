/**
 * DISC-30..DISC-36: discovery as a provisioning source, against a real Docker-compatible API (Podman's
 * `podman system service`, test/support/podman.ts): containers are created with labels (not started: crun cannot run
 * them on these machines) and removed; the server applies what it finds on the engine's events (source A, whose
 * interval is an hour) and on its interval (source B, every second, over tcp:// through a plain TCP relay in this
 * file that the test closes to make the engine unreachable).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { ConfigError, loadConfig } from '../../src/config/config';
import { provisioningSources } from '../../src/boards/fleet/provisioningSources';
import { describeDockerEvent } from '../../src/discover/dockerSource';
import { eventually } from '../support/eventually';
import { startPodman, type PodmanService } from '../support/podman';
import { startTestServer, useTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk } from '../boards-document/helpers';
import { freePort } from '../../scripts/free-port';

const root = mkdtempSync(path.join(os.tmpdir(), 'tessera-discsrc-'));
const configFile = path.join(root, 'provisioning.yaml');
const boardA = unique('disc-a-');
const boardB = unique('disc-b-');
const secret = unique('s3cr3t-');
let podman: PodmanService;

/** A TCP relay to Podman's socket: the engine at tcp://127.0.0.1:<port> while it is open, unreachable once closed. */
interface Relay {
  port: number;
  /** The connections open through it now (each a client's and the engine's side). */
  sockets: Set<Socket>;
  open(): Promise<void>;
  close(): Promise<void>;
}
async function makeRelay(): Promise<Relay> {
  const sockets = new Set<Socket>();
  let listening: Server | null = null;
  const relay: Relay = {
    port: await freePort(),
    sockets,
    async open() {
      const server = createServer((socket) => {
        const engine = createConnection(podman.socketPath);
        sockets.add(socket);
        sockets.add(engine);
        socket.pipe(engine).pipe(socket);
        const close = () => {
          socket.destroy();
          engine.destroy();
          sockets.delete(socket);
          sockets.delete(engine);
        };
        socket.on('error', close).on('close', close);
        engine.on('error', close).on('close', close);
      });
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(relay.port, '127.0.0.1', () => resolve()));
      listening = server;
    },
    async close() {
      const server = listening;
      listening = null;
      for (const socket of sockets) socket.destroy();
      if (server) await new Promise((resolve) => server.close(resolve));
    },
  };
  return relay;
}
let relay: Relay;
const openRelay = () => relay.open();
const closeRelay = async () => relay?.close();

const env: Record<string, string> = { PROVISIONING_DEBOUNCE_MS: '1000' };
beforeAll(async () => {
  podman = await startPodman();
  relay = await makeRelay();
  await openRelay();
  writeFileSync(
    configFile,
    toYaml({
      sources: [
        { source: 'docker', host: `unix://${podman.socketPath}`, managedBy: 'discovery-a', board: boardA, interval: 3600 },
        { source: 'docker', host: `tcp://127.0.0.1:${relay.port}`, managedBy: 'discovery-b', board: boardB, interval: 1 },
        { source: 'kubernetes', namespaces: ['media'], kubeconfig: 'no-such-kubeconfig', managedBy: 'discovery-k8s', interval: 3600 },
      ],
    }),
  );
  env.PROVISIONING_CONFIG = configFile;
}, 300_000);
const server = useTestServer(env);
beforeAll(async () => {
  // PROV-7: the sources are applied once the server listens; the tests start when they have been (and are watched).
  await server.provisioning;
});
afterAll(async () => {
  await closeRelay();
  await podman?.stop();
  rmSync(root, { recursive: true, force: true });
}, 120_000);

const slow = 120_000;
const boardNamed = async (target: Pick<TestServer, 'db'>, name: string) => target.db('boards').whereRaw('lower(name) = lower(?)', [name]).first('id');
const appsOn = async (name: string): Promise<[string, string | null][]> => {
  const board = await boardNamed(server, name);
  if (!board) return [];
  const file = expectOk(await server.call('GET', `/api/boards/${board.id}/export`));
  return file.items.map((item: any) => [item.app.name, item.app.href ?? null]).sort();
};
const historyOf = async (target: { call: TestServer['call'] }, name: string) => {
  const board = await boardNamed(server, name);
  return expectOk(await target.call('GET', `/api/boards/${board.id}/history?limit=500`)).entries as any[];
};
const statusOf = async (managedBy: string) => (expectOk(await server.call('GET', '/api/provisioning')).sources as any[]).find((s) => s.managedBy === managedBy);

const stable = unique('stable-');
const jelly = unique('jellyfin-');
const ids: Record<string, string> = {};

describe('discovery as a provisioning source (DISC-30..)', () => {
  it(
    'DISC-30, DISC-32, DISC-34: a container created with labels adds its app (the event stream), with a history entry saying so',
    async () => {
      expect(await statusOf('discovery-a')).toMatchObject({ kind: 'docker', path: `docker unix://${podman.socketPath}`, ok: true, lastError: null, problems: [] });
      expect(await boardNamed(server, boardA)).toBeUndefined();
      ids.stable = await podman.createContainer(stable, { 'homepage.name': 'Stable', 'homepage.href': 'https://stable.example.com', 'homepage.widget.type': 'jellyfin', 'homepage.widget.key': secret });
      await eventually(async () => expect(await appsOn(boardA)).toEqual([['Stable', 'https://stable.example.com']]));
      const [entry] = await historyOf(server, boardA);
      expect(entry).toMatchObject({ operation: 'provisioning', origin: { managedBy: 'discovery-a', commit: null, message: `discovery: container ${stable} created` } });

      ids.jelly = await podman.createContainer(jelly, { 'homepage.name': 'Jellyfin', 'homepage.href': 'https://jellyfin.example.com' });
      await eventually(async () => expect(await appsOn(boardA)).toEqual([['Jellyfin', 'https://jellyfin.example.com'], ['Stable', 'https://stable.example.com']]));
      expect((await historyOf(server, boardA))[0].origin.message).toBe(`discovery: container ${jelly} created`);
      // Source B reads the same engine every second: its own board, its own label.
      await eventually(async () => expect((await appsOn(boardB)).map(([name]) => name)).toEqual(['Jellyfin', 'Stable']));
    },
    slow,
  );

  it(
    'DISC-32, DISC-34: a container replaced with other labels changes its app; nothing is written when nothing changed',
    async () => {
      const before = (await historyOf(server, boardA)).length;
      await podman.removeContainer(ids.jelly);
      ids.jelly = await podman.createContainer(jelly, { 'homepage.name': 'Jellyfin', 'homepage.href': 'https://media.example.com' });
      await eventually(async () => expect(await appsOn(boardA)).toContainEqual(['Jellyfin', 'https://media.example.com']));
      const entries = await historyOf(server, boardA);
      // The remove and the create are one burst (debounced) or, on a slow machine, two applies: each says what happened.
      expect(entries[0].origin.message).toMatch(new RegExp(`^discovery: (2 changes: container ${jelly} removed, )?container ${jelly} created$`));
      expect(entries.length - before).toBeLessThanOrEqual(2);
      // Source B re-reads every second and finds nothing more to change: its board has no entry past the change.
      await eventually(async () => expect(await appsOn(boardB)).toContainEqual(['Jellyfin', 'https://media.example.com']));
      const settled = (await historyOf(server, boardB)).length;
      const checked = (await statusOf('discovery-b')).checkedAt;
      await eventually(async () => expect((await statusOf('discovery-b')).checkedAt).not.toBe(checked));
      expect((await historyOf(server, boardB)).length).toBe(settled);
      expect((await statusOf('discovery-b')).summary).toMatchObject({ changed: false });
    },
    slow,
  );

  it(
    'DISC-32, PROV-4: a removed container loses its app',
    async () => {
      await podman.removeContainer(ids.jelly);
      await eventually(async () => expect(await appsOn(boardA)).toEqual([['Stable', 'https://stable.example.com']]));
      expect((await historyOf(server, boardA))[0].origin.message).toBe(`discovery: container ${jelly} removed`);
    },
    slow,
  );

  it('DISC-9: credentials in labels are never stored: no table holds the value of homepage.widget.key', async () => {
    const tables: { table_name: string }[] = (await server.db.raw(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)).rows;
    expect(tables.length).toBeGreaterThan(10);
    for (const { table_name } of tables) {
      const rows = (await server.db.raw(`SELECT * FROM "${table_name}"`)).rows;
      expect({ table: table_name, found: JSON.stringify(rows).includes(secret) }).toEqual({ table: table_name, found: false });
    }
    expect(JSON.stringify(expectOk(await server.call('GET', '/api/provisioning')))).not.toContain(secret);
  });

  it(
    'DISC-35: an engine that cannot be reached keeps the last good state and is reported in GET /api/provisioning; reached again, it applies',
    async () => {
      const good = await statusOf('discovery-b');
      expect(good).toMatchObject({ kind: 'docker', path: `docker tcp://127.0.0.1:${relay.port}`, ok: true });
      const apps = await appsOn(boardB);
      expect(apps.length).toBeGreaterThan(0);
      await closeRelay();
      const failed = await eventually(async () => {
        const status = await statusOf('discovery-b');
        expect(status.ok).toBe(false);
        return status;
      });
      expect(failed.problems).toEqual([{ file: `docker tcp://127.0.0.1:${relay.port}`, line: null, message: expect.stringContaining('not read, the last good state is kept') }]);
      expect(failed.lastError).toEqual({ message: failed.problems[0].message, at: failed.checkedAt });
      // appliedAt is the last success (before the relay closed); it stays through every failed check.
      expect(Date.parse(failed.appliedAt)).toBeGreaterThanOrEqual(Date.parse(good.appliedAt));
      expect(Date.parse(failed.appliedAt)).toBeLessThan(Date.parse(failed.checkedAt));
      expect(failed.boards).toBe(good.boards);
      // Nothing pruned: the board and its apps stay, however many times the source fails.
      const later = await eventually(async () => {
        const status = await statusOf('discovery-b');
        expect(status.checkedAt).not.toBe(failed.checkedAt);
        return status;
      });
      expect(later).toMatchObject({ ok: false, appliedAt: failed.appliedAt, boards: good.boards });
      expect(await appsOn(boardB)).toEqual(apps);

      await openRelay();
      const again = await eventually(async () => {
        const status = await statusOf('discovery-b');
        expect(status.ok).toBe(true);
        return status;
      });
      expect(Date.parse(again.appliedAt)).toBeGreaterThan(Date.parse(failed.appliedAt));
      // The last failure is kept (a later one than the first, perhaps: the interval kept reading while it was closed).
      expect(again.lastError.message).toContain('not read, the last good state is kept');
      expect(Date.parse(again.lastError.at)).toBeGreaterThanOrEqual(Date.parse(failed.lastError.at));
      expect(Date.parse(again.lastError.at)).toBeLessThan(Date.parse(again.appliedAt));
      expect(await appsOn(boardB)).toEqual(apps);
    },
    slow,
  );

  it('DISC-37, DISC-35: a kubernetes source that cannot be read is reported, and writes nothing', async () => {
    const status = await statusOf('discovery-k8s');
    expect(status).toMatchObject({ kind: 'kubernetes', path: `kubernetes namespaces media (${path.join(root, 'no-such-kubeconfig')})`, ok: false, appliedAt: null, boards: 0, summary: null });
    expect(status.problems).toHaveLength(1);
    expect(status.lastError).toEqual({ message: status.problems[0].message, at: status.checkedAt });
    expect(await server.db('boards').where({ managedBy: 'discovery-k8s' }).first('id')).toBeUndefined();
  });

  const onPostgres = process.env.TEST_DATABASE_URL ? it : it.skip;
  onPostgres(
    'DISC-36, PROV-6: two instances on one database: one applies a change, the other finds nothing to do',
    async () => {
      const sibling = await server.startSibling();
      try {
        await sibling.provisioning;
        const before = (await historyOf(server, boardA)).length;
        const added = unique('added-');
        ids.added = await podman.createContainer(added, { 'homepage.name': 'Added', 'homepage.href': 'https://added.example.com' });
        await eventually(async () => expect(await appsOn(boardA)).toContainEqual(['Added', 'https://added.example.com']));
        // Both instances heard the event; the second to apply finds the set as the first left it.
        await eventually(async () => expect((await statusOf('discovery-a')).summary).toMatchObject({ changed: false }));
        const entries = await historyOf(sibling, boardA);
        expect(entries.length).toBe(before + 1);
        expect(entries[0].origin.message).toBe(`discovery: container ${added} created`);
      } finally {
        await sibling.stop();
      }
    },
    slow,
  );
});

describe('DISC-38: shutdown', () => {
  it(
    'DISC-38: a stopping server ends its event streams (and its timers: the stop settles)',
    async () => {
      const own = await makeRelay();
      await own.open();
      const file = path.join(root, 'shutdown.yaml');
      writeFileSync(file, toYaml({ sources: [{ source: 'docker', host: `tcp://127.0.0.1:${own.port}`, managedBy: 'discovery-stop', interval: 3600 }] }));
      const other = await startTestServer({ PROVISIONING_CONFIG: file });
      try {
        await other.provisioning;
        // The event stream stays open (the read's connection is closed once answered).
        await eventually(async () => expect(own.sockets.size).toBe(2));
      } finally {
        await other.stop();
      }
      await eventually(async () => expect(own.sockets.size).toBe(0));
      await own.close();
    },
    slow,
  );
});

describe('DISC-31: pruning', () => {
  it(
    'DISC-31, PROV-4: the last container gone, the source prunes its board',
    async () => {
      for (const id of Object.values(ids)) await podman.removeContainer(id).catch(() => undefined);
      await eventually(async () => expect(await boardNamed(server, boardA)).toBeUndefined());
      await eventually(async () => expect(await boardNamed(server, boardB)).toBeUndefined());
      expect(await statusOf('discovery-a')).toMatchObject({ ok: true, boards: 0 });
    },
    slow,
  );
});

describe('DISC-30: a bad discovery source stops the start with a ConfigError', () => {
  const sourcesOf = (entry: unknown) => {
    const file = path.join(root, `${unique('bad-')}.yaml`);
    writeFileSync(file, toYaml({ sources: [entry] }));
    return () => provisioningSources(loadConfig({ PROVISIONING_CONFIG: file }));
  };
  it.each([
    [{ source: 'swarm', managedBy: 'x' }, 'sources[0].source must be docker or kubernetes, got "swarm"'],
    [{ source: 'docker', host: 'http://docker:2375', managedBy: 'x' }, 'sources[0].host must be unix:///path/to/docker.sock or tcp://host:port, got "http://docker:2375"'],
    [{ source: 'docker', path: 'boards', managedBy: 'x' }, 'sources[0] names both a path and a source: one or the other'],
    [{ source: 'docker', managedBy: 'x', namespaces: ['media'] }, 'sources[0]: "namespaces" is not a key of a docker source (source, host, managedBy, prune, allowApiUpdates, board, instance, interval)'],
    [{ source: 'docker', managedBy: 'x', interval: 0 }, 'sources[0].interval must be a whole number of seconds from 1 to 86400'],
    [{ source: 'docker', managedBy: 'x', board: 'no spaces' }, 'sources[0].board must be a board name: 1 to 200 letters, digits, - and _'],
    [{ source: 'kubernetes', managedBy: 'x', namespaces: ['Media'] }, 'sources[0].namespaces must be a list of namespace names (lowercase letters, digits and -, at most 63)'],
    [{ source: 'docker' }, 'sources[0].managedBy must be a label of 1 to 128 characters'],
  ])('DISC-30: %j', (entry, reason) => {
    const read = sourcesOf(entry);
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(`: ${reason}`);
  });

  it('DISC-30: good entries: docker (the default socket, a tcp host) and kubernetes (namespaces, kubeconfig relative to the file)', () => {
    const file = path.join(root, 'good.yaml');
    writeFileSync(
      file,
      toYaml({
        sources: [
          { source: 'docker', managedBy: 'd1' },
          { source: 'docker', host: 'tcp://socket-proxy:2375', managedBy: 'd2', prune: false, board: 'home', instance: 'main', interval: 30 },
          { source: 'kubernetes', managedBy: 'k1', namespaces: ['media', 'tools'], kubeconfig: 'kube/config' },
        ],
      }),
    );
    expect(provisioningSources(loadConfig({ PROVISIONING_CONFIG: file }))).toEqual([
      { path: 'docker unix:///var/run/docker.sock', managedBy: 'd1', prune: true, allowApiUpdates: false, discovery: { source: 'docker', host: { kind: 'unix', socketPath: '/var/run/docker.sock' }, intervalMs: 60_000 } },
      {
        path: 'docker tcp://socket-proxy:2375',
        managedBy: 'd2',
        prune: false,
        allowApiUpdates: false,
        discovery: { source: 'docker', host: { kind: 'tcp', baseUrl: 'http://socket-proxy:2375' }, board: 'home', instance: 'main', intervalMs: 30_000 },
      },
      {
        path: `kubernetes namespaces media, tools (${path.join(root, 'kube', 'config')})`,
        managedBy: 'k1',
        prune: true,
        allowApiUpdates: false,
        discovery: { source: 'kubernetes', namespaces: ['media', 'tools'], kubeconfig: path.join(root, 'kube', 'config'), intervalMs: 60_000 },
      },
    ]);
  });

  it('DISC-32: an engine event is described by its type, name and action only (its labels are never read)', () => {
    const line = JSON.stringify({ Type: 'container', Action: 'start', Actor: { ID: 'abc', Attributes: { name: 'jellyfin', 'homepage.widget.key': secret } } });
    expect(describeDockerEvent(line)).toBe('container jellyfin started');
    expect(describeDockerEvent(JSON.stringify({ Type: 'service', Action: 'update', Actor: { ID: 'abcdef0123456789', Attributes: {} } }))).toBe('service abcdef012345 updated');
    expect(describeDockerEvent(JSON.stringify({ Type: 'image', Action: 'pull' }))).toBeNull();
    expect(describeDockerEvent('not json')).toBeNull();
  });
});
