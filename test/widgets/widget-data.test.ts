import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { pruneWidgetData } from '../../src/widgets/data/cacheStore';
import { createActor, type Actor } from '../support/actors';
import { expectError } from '../support/expect';
import { startGlances, type GlancesServer } from '../support/glances';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

/**
 * The widget request path (WDATA-*) over HTTP on the real app and database, with a real Glances (LIVE-4) and a local
 * stand-in for what no real service does on purpose (huge, slow, markup, wrong shape, 401): a hostile service.
 */
const server = useTestServer({ LIVE_DATA_TIMEOUT_MS: '1500', LIVE_DATA_MAX_BYTES: '65536' }, { captureLog: true });

let glances: GlancesServer;
let standIn: http.Server;
let standInUrl: string;
const sockets = new Set<Socket>();
/** Requests the stand-in received, by mode (the first path segment). */
const hits = new Map<string, number>();
const password = `glances-${randomBytes(8).toString('hex')}`;

const fs = (mnt: string) => [{ device_name: '/dev/sda1', fs_type: 'ext4', mnt_point: mnt, size: 1000, used: 400, free: 600, percent: 40 }];
function glancesAnswer(plugin: string, mode: string): unknown {
  const cpuTotal = mode === 'wrong' ? '<b>lots</b>' : 12.5;
  switch (plugin) {
    case 'cpu': return { total: cpuTotal, cpucore: 2 };
    case 'core': return { phys: 2, log: 2 };
    case 'mem': return { total: 1000, used: 250, percent: mode === 'negative' ? -5 : 25 };
    case 'load': return { min1: 0.5, min5: 0.4, min15: 0.3 };
    case 'uptime': return '1 day, 2:03:04';
    case 'fs': return fs(mode === 'markup' ? '<img src=x onerror=alert(1)>' : '/');
    case 'sensors': return [];
    default: return null;
  }
}

beforeAll(async () => {
  standIn = http.createServer((req, res) => {
    const [, mode, , , plugin] = (req.url ?? '').split('/');
    hits.set(mode, (hits.get(mode) ?? 0) + 1);
    if (mode === 'slow') return; // never answers: the deadline ends it
    if (mode === 'unauth') return res.writeHead(401, { 'Content-Type': 'text/plain' }).end(`Unauthorized ${req.headers.authorization ?? ''}`);
    if (mode === 'huge') return res.writeHead(200, { 'Content-Type': 'application/json' }).end(`"${'x'.repeat(200_000)}"`);
    if (mode === 'html') return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><script>alert(1)</script></html>');
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(glancesAnswer(plugin, mode)));
  });
  standIn.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
  glances = await startGlances();
}, 180_000);

afterAll(async () => {
  await glances?.stop();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => standIn?.close(resolve));
});

async function integration(url: string, kind = 'glances', secrets?: { kind: string; value: string }[]): Promise<string> {
  return expectOk(await server.call('POST', '/api/integrations', { body: { name: unique('Glances'), kind, url, ...(secrets ? { secrets } : {}) } }), 201).integrationId;
}

/** A board with one item per entry (kind and bound integrations); answers the board and item ids. */
async function board(items: { kind: string; integrationIds?: string[] }[], isPublic = false): Promise<{ boardId: string; name: string; itemIds: string[] }> {
  const name = unique('live-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic } }), 201);
  const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const itemIds = items.map(() => unique('it'));
  expectOk(
    await server.call('PUT', `/api/boards/${boardId}`, {
      body: {
        sections: doc.sections,
        items: items.map((entry, index) => item(itemIds[index], [position(doc.layouts[0].id, doc.sections[0].id, (index % 6) * 2, Math.floor(index / 6) * 2, 2, 2)], { kind: entry.kind, integrationIds: entry.integrationIds ?? [] })),
      },
    }),
  );
  return { boardId, name, itemIds };
}

const data = (boardId: string, itemId: string, key?: string | null) => server.call('GET', `/api/boards/${boardId}/items/${itemId}/data`, key === undefined ? {} : { key });

describe('LIVE-4: Glances end to end', () => {
  it('LIVE-4: systemResources, healthMonitoring and systemDisks read a real Glances: a CPU percentage and a file system', async () => {
    const id = await integration(glances.url);
    const { boardId, itemIds } = await board([{ kind: 'systemResources', integrationIds: [id] }, { kind: 'healthMonitoring', integrationIds: [id] }, { kind: 'systemDisks', integrationIds: [id] }]);
    const resources = expectOk(await data(boardId, itemIds[0]));
    expect(resources).toMatchObject({ itemId: itemIds[0], kind: 'systemResources', live: true, ttlSeconds: 10 });
    expect(resources.results).toHaveLength(1);
    const [result] = resources.results;
    expect(result).toMatchObject({ integrationId: id, status: 'ok', message: null, actions: [] });
    expect(typeof result.data.cpu.percent).toBe('number');
    expect(result.data.cpu.percent).toBeGreaterThanOrEqual(0);
    expect(result.data.memory.totalBytes).toBeGreaterThan(0);
    const health = expectOk(await data(boardId, itemIds[1])).results[0];
    expect(health.status).toBe('ok');
    expect(health.data.fileSystems.map((f: { mountPoint: string }) => f.mountPoint)).toContain('/');
    expect(Array.isArray(health.data.temperatures)).toBe(true);
    const disks = expectOk(await data(boardId, itemIds[2])).results[0];
    expect(disks.data.disks.find((d: { mountPoint: string }) => d.mountPoint === '/').totalBytes).toBeGreaterThan(0);
  });

  it('WDATA-8: a kind without live data answers live: false and no results', async () => {
    const { boardId, itemIds } = await board([{ kind: 'notebook' }]);
    expect(expectOk(await data(boardId, itemIds[0]))).toEqual({ itemId: itemIds[0], kind: 'notebook', live: false, ttlSeconds: 0, results: [] });
  });
});

describe('WDATA-1..3: the binding rule, both ways', () => {
  let id: string;
  let viewer: Actor;
  let stranger: Actor;
  let own: { boardId: string; itemIds: string[] };
  beforeAll(async () => {
    id = await integration(`${standInUrl}/ok-binding`);
    viewer = await createActor(server);
    stranger = await createActor(server);
    own = await board([{ kind: 'systemResources', integrationIds: [id] }, { kind: 'systemResources' }]);
    expectOk(await server.call('PUT', `/api/boards/${own.boardId}/permissions`, { body: { users: [{ userId: viewer.userId, permission: 'view' }], groups: [] } }));
  });

  it('WDATA-1: a viewer of the board (no grant on the integration) sees the data of the integration bound to the item', async () => {
    const answer = expectOk(await data(own.boardId, own.itemIds[0], viewer.key));
    expect(answer.results).toEqual([expect.objectContaining({ integrationId: id, status: 'ok', actions: [] })]);
    expect(answer.results[0].data.cpu.percent).toBe(12.5);
  });

  it('WDATA-1: no view on the board is 404 Board not found, for users and anonymous callers alike, and for a missing board', async () => {
    expectError(await data(own.boardId, own.itemIds[0], stranger.key), 404, 'NOT_FOUND', 'Board not found');
    expectError(await data(own.boardId, own.itemIds[0], null), 404, 'NOT_FOUND', 'Board not found');
    expectError(await data('no-such-board', own.itemIds[0]), 404, 'NOT_FOUND', 'Board not found');
  });

  it('WDATA-2: an item of another board is 404 Item not found, so the integration is never reached through another board', async () => {
    const other = await board([{ kind: 'systemResources' }], true);
    expectError(await data(other.boardId, own.itemIds[0], null), 404, 'NOT_FOUND', 'Item not found');
    expectError(await data(other.boardId, own.itemIds[0]), 404, 'NOT_FOUND', 'Item not found');
    expect(expectOk(await data(other.boardId, other.itemIds[0], null)).results).toEqual([]);
  });

  it('WDATA-3: only integrations bound to that item, and only of kinds the widget reads', async () => {
    expect(expectOk(await data(own.boardId, own.itemIds[1], viewer.key)).results).toEqual([]);
    const before = hits.get('ok-other-kind') ?? 0;
    const qbt = await integration(`${standInUrl}/ok-other-kind`, 'qBittorrent');
    const mixed = await board([{ kind: 'systemResources', integrationIds: [qbt] }]);
    expect(expectOk(await data(mixed.boardId, mixed.itemIds[0])).results).toEqual([]);
    expect(hits.get('ok-other-kind') ?? 0).toBe(before);
  });

  it('WDATA-1: an anonymous caller on a public board gets the data', async () => {
    const pub = await board([{ kind: 'systemDisks', integrationIds: [id] }], true);
    const answer = expectOk(await data(pub.boardId, pub.itemIds[0], null));
    expect(answer.results[0]).toMatchObject({ integrationId: id, status: 'ok', data: { disks: [expect.objectContaining({ mountPoint: '/' })] } });
  });
});

describe('WDATA-4, WDATA-7: a hostile service gives a bounded, text-only error and never a 5xx', () => {
  it.each([
    ['huge', /answer larger than 65536 bytes/],
    ['slow', /no (complete )?answer within/],
    ['wrong', /^Glances answered no number for cpu\.total$/],
    ['unauth', /^Glances refused the credentials \(HTTP 401\)$/],
    ['html', /^Glances answered something that is not JSON for /],
    ['negative', /^the service answered data of an unexpected shape$/],
  ])('WDATA-4: %s', async (mode, message) => {
    const id = await integration(`${standInUrl}/${mode}`, 'glances', [{ kind: 'username', value: 'admin' }, { kind: 'password', value: password }]);
    const { boardId, itemIds } = await board([{ kind: 'systemResources', integrationIds: [id] }]);
    const answer = await data(boardId, itemIds[0]);
    expect(answer.status).toBe(200);
    const [result] = answer.body.results;
    expect(result).toMatchObject({ integrationId: id, status: 'error', data: null });
    expect(result.message).toMatch(message);
    expect(result.message.length).toBeLessThanOrEqual(300);
    expect(result.message).not.toContain(password);
    expect(result.message).not.toContain('<');
  }, 60_000);

  it('WDATA-4: an unreachable service is an error result', async () => {
    const id = await integration('http://127.0.0.1:1');
    const { boardId, itemIds } = await board([{ kind: 'systemResources', integrationIds: [id] }]);
    const [result] = expectOk(await data(boardId, itemIds[0])).results;
    expect(result).toMatchObject({ status: 'error', data: null, message: expect.stringMatching(/unreachable/) });
  });

  it('WDATA-7: markup in a text field stays text in the JSON answer, exactly as sent; the page renders text only', async () => {
    const id = await integration(`${standInUrl}/markup`);
    const { boardId, itemIds } = await board([{ kind: 'systemDisks', integrationIds: [id] }]);
    const [result] = expectOk(await data(boardId, itemIds[0])).results;
    expect(result.status).toBe('ok');
    expect(result.data.disks[0].mountPoint).toBe('<img src=x onerror=alert(1)>');
  });

  it('SECRET-5: the password sent to the service appears in no answer and no line of the server log', async () => {
    const log = server.logLines.join('\n');
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(password);
    expect(log).not.toContain(Buffer.from(`admin:${password}`).toString('base64'));
  });
});

describe('WDATA-6: one upstream request per TTL per integration, whoever asks', () => {
  (process.env.TEST_DATABASE_URL ? it : it.skip)('WDATA-6: two instances on one database: one upstream fetch (PostgreSQL)', async () => {
    const sibling = await server.startSibling();
    const id = await integration(`${standInUrl}/ok-siblings`);
    const { boardId, itemIds } = await board([{ kind: 'systemResources', integrationIds: [id] }], true);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? data(boardId, itemIds[0], null) : sibling.call('GET', `/api/boards/${boardId}/items/${itemIds[0]}/data`, { key: null }))));
    for (const answer of answers) expect(answer.body.results[0].status).toBe('ok');
    expect(hits.get('ok-siblings')).toBe(5);
  });

  it('WDATA-6: two concurrent requests, then twenty more, cause one upstream fetch', async () => {
    const id = await integration(`${standInUrl}/ok-cache`);
    const { boardId, itemIds } = await board([{ kind: 'systemResources', integrationIds: [id] }, { kind: 'systemResources', integrationIds: [id] }], true);
    const cpuRequests = () => hits.get('ok-cache') ?? 0;
    const [a, b] = await Promise.all([data(boardId, itemIds[0]), data(boardId, itemIds[1], null)]);
    expect(a.body.results[0].status).toBe('ok');
    expect(b.body.results[0].status).toBe('ok');
    expect(b.body.results[0].fetchedAt).toBe(a.body.results[0].fetchedAt);
    // one fetch = cpu, core, mem, load, uptime
    expect(cpuRequests()).toBe(5);
    const more = await Promise.all(Array.from({ length: 20 }, (_, i) => data(boardId, itemIds[i % 2], i % 3 === 0 ? null : undefined)));
    for (const answer of more) expect(answer.body.results[0].status).toBe('ok');
    expect(cpuRequests()).toBe(5);
    expect(await server.db('widget_data_cache').where({ integrationId: id })).toHaveLength(1);
  });
});

describe('WDATA-6: the hourly prune', () => {
  it('WDATA-6: deletes entries expired for a day, keeps the others', async () => {
    const old = unique('old');
    const recent = unique('recent');
    await server.db('widget_data_cache').insert([
      { cacheKey: old, status: 'ok', data: '{}', fetchedAt: server.db.raw(`now() - interval '3 days'`), expiresAt: server.db.raw(`now() - interval '2 days'`) },
      { cacheKey: recent, status: 'ok', data: '{}', fetchedAt: server.db.raw(`now() - interval '1 hour'`), expiresAt: server.db.raw(`now() - interval '50 minutes'`) },
    ]);
    expect(await pruneWidgetData(server.db)).toBeGreaterThanOrEqual(1);
    expect((await server.db('widget_data_cache').whereIn('cacheKey', [old, recent])).map((r: { cacheKey: string }) => r.cacheKey)).toEqual([recent]);
  });
});

describe('WDATA-9: actions', () => {
  let id: string;
  let target: { boardId: string; itemIds: string[] };
  beforeAll(async () => {
    id = await integration(`${standInUrl}/ok-actions`);
    target = await board([{ kind: 'systemResources', integrationIds: [id] }, { kind: 'systemResources' }], true);
  });
  const act = (key: string | null, itemId: string, body: Record<string, unknown>, boardId = target.boardId) =>
    server.call('POST', `/api/boards/${boardId}/items/${itemId}/data/actions`, { key, body: { integrationId: id, action: 'pause', ids: ['a'], ...body } });

  it('WDATA-9: needs view on the board (404), the integration bound to the item (400), interact (403), an action of the kind (400)', async () => {
    const user = await createActor(server);
    const privateBoard = await board([{ kind: 'systemResources', integrationIds: [id] }]);
    expectError(await act(user.key, privateBoard.itemIds[0], {}, privateBoard.boardId), 404, 'NOT_FOUND', 'Board not found');
    expectError(await act(user.key, target.itemIds[1], {}), 400, 'BAD_REQUEST', `Integration ${id} is not bound to this item`);
    expectError(await act(user.key, target.itemIds[0], {}), 403, 'FORBIDDEN', 'Permission denied');
    const interacting = await createActor(server, { permissions: ['integration-interact-all'] });
    expectError(await act(interacting.key, target.itemIds[0], {}), 400, 'BAD_REQUEST', 'The systemResources widget has no action "pause"');
    expectError(await act(null, target.itemIds[0], {}), 401, 'UNAUTHORIZED');
  });

  it('WDATA-8: the data answer offers no action to anyone on a kind without actions', async () => {
    const [result] = expectOk(await data(target.boardId, target.itemIds[0])).results;
    expect(result.actions).toEqual([]);
  });
});
