/**
 * The apps a board page draws (VIEW-2) and their reachability (PING-1..5), over HTTP on the real app; the checked
 * addresses are small HTTP servers of this test on loopback, counting what they are asked.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CheckLimiter, mayBeDue, pingTarget, stateOfAnswer } from '../../src/apps/reachability';
import { pingedAppIds } from '../../src/apps/boardApps';
import { pageSources, widenPolicy } from '../../src/pages/csp';
import { pageSecurityHeaders } from '../../src/pages/html';
import { createActor } from '../support/actors';
import { expectError } from '../support/expect';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, grantBoard, item, position } from '../boards-document/helpers';

// A long interval (PING-2): no check of the tests below falls due again by the clock while they run; one that should
// is made due by moving its stored time back.
const server = useTestServer({ PING_TIMEOUT_MS: '1000', PING_INTERVAL_S: '3600' });

interface Target {
  url: string;
  hits: { method: string; path: string }[];
  close(): Promise<void>;
}

/** A loopback HTTP server answering every request with `answer`, recording what it was asked. */
async function target(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Target> {
  const hits: Target['hits'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const srv = http.createServer((req, res) => {
    hits.push({ method: req.method!, path: req.url! });
    answer(req, res);
  });
  srv.on('connection', (socket) => (sockets.add(socket), socket.on('close', () => sockets.delete(socket))));
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/health`;
  return { url, hits, close: () => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), srv.close(() => resolve()))) };
}
const targets: Target[] = [];
afterAll(async () => Promise.all(targets.map((t) => t.close())));
const answering = async (answer: Parameters<typeof target>[0]) => {
  const t = await target(answer);
  targets.push(t);
  return t;
};

async function createApp(fields: Record<string, unknown>, key = server.adminKey): Promise<string> {
  const created = expectOk(await server.call('POST', '/api/apps', { key, body: { name: unique('App'), iconUrl: 'https://icons.example.com/a.svg', ...fields } }), 201);
  return created.appId;
}

/** A board (admin-created) whose items are written by `key`. */
async function boardWith(widgets: { kind: string; options: Record<string, unknown> }[], options: { isPublic?: boolean; key?: string; boardId?: string } = {}) {
  let boardId = options.boardId;
  if (!boardId) boardId = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('pingb-'), columnCount: 12, isPublic: options.isPublic ?? true } }), 201).boardId as string;
  const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const items = widgets.map((w, i) => item(unique('it'), [position(doc.layouts[0].id, doc.sections[0].id, i % 12, Math.floor(i / 12))], w));
  expectOk(await server.call('PUT', `/api/boards/${boardId}`, { key: options.key ?? server.adminKey, body: { sections: doc.sections, items: [...doc.items, ...items] } }));
  return boardId;
}

const statusOf = async (boardId: string, key: string | null = server.adminKey) => server.call('GET', `/api/boards/${boardId}/apps/status`, { key });

/** Asks again until a result is stored (a check still running answers its previous result, PING-4). */
async function settled(boardId: string, appId: string) {
  for (;;) {
    const entry = expectOk(await statusOf(boardId)).statuses.find((s: any) => s.appId === appId);
    if (entry?.state !== 'unknown') return entry;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('VIEW-2: GET /api/boards/{id}/apps', () => {
  it('VIEW-2: lists the apps of app and bookmarks widgets the caller may read, by name; anonymous callers see vouched apps of public boards', async () => {
    const [a, b] = [await createApp({ name: unique('Zeta'), href: 'https://z.example.com' }), await createApp({ name: unique('Alpha'), description: 'first' })];
    const boardId = await boardWith([
      { kind: 'app', options: { appId: a } },
      { kind: 'bookmarks', options: { items: [b, a, 'no-such-app', 42] } },
      { kind: 'clock', options: { appId: b } },
    ]);
    const anonymous = expectOk(await server.call('GET', `/api/boards/${boardId}/apps`, { key: null }));
    expect(anonymous.apps.map((app: any) => app.id)).toEqual([b, a]);
    expect(anonymous.apps[0]).toEqual({ id: b, name: expect.stringContaining('Alpha'), description: 'first', iconUrl: 'https://icons.example.com/a.svg', href: null });
    expect(anonymous.apps[0]).not.toHaveProperty('pingUrl');
  });

  it('VIEW-2: an app the writer could not use is left out; a private board is 404 `Board not found` for others', async () => {
    const writer = await createActor(server, { permissions: [] });
    const hidden = await createApp({});
    const boardId = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('pingb-'), columnCount: 12, isPublic: true } }), 201).boardId;
    await grantBoard(server, boardId, writer.userId, 'modify');
    await boardWith([{ kind: 'app', options: { appId: hidden } }], { boardId, key: writer.key });
    expect(expectOk(await server.call('GET', `/api/boards/${boardId}/apps`, { key: null })).apps).toEqual([]);
    expect(expectOk(await server.call('GET', `/api/boards/${boardId}/apps`, { key: writer.key })).apps).toEqual([]);
    expect(expectOk(await server.call('GET', `/api/boards/${boardId}/apps`)).apps.map((app: any) => app.id)).toEqual([hidden]);

    const privateBoard = await boardWith([{ kind: 'app', options: { appId: hidden } }], { isPublic: false });
    expectError(await server.call('GET', `/api/boards/${privateBoard}/apps`, { key: null }), 404, 'NOT_FOUND', 'Board not found');
    expectError(await server.call('GET', `/api/boards/${privateBoard}/apps`, { key: writer.key }), 404, 'NOT_FOUND', 'Board not found');
    expectError(await server.call('GET', `/api/boards/no-such-board/apps`), 404, 'NOT_FOUND', 'Board not found');
  });
});

describe('PING: GET /api/boards/{id}/apps/status', () => {
  it('PING-1: only apps of app widgets with pingEnabled, only those the caller may read; nothing else is asked', async () => {
    const up = await answering((_req, res) => res.writeHead(200).end('ok'));
    const quiet = await answering((_req, res) => res.writeHead(200).end());
    const pinged = await createApp({ pingUrl: up.url });
    const notPinged = await createApp({ pingUrl: quiet.url });
    const viewer = await createActor(server, { permissions: [] });
    const boardId = await boardWith([
      { kind: 'app', options: { appId: pinged, pingEnabled: true } },
      { kind: 'app', options: { appId: notPinged, pingEnabled: false } },
      { kind: 'bookmarks', options: { items: [notPinged], pingEnabled: true } },
    ], { isPublic: false });
    await grantBoard(server, boardId, viewer.userId, 'view');

    // The viewer may view the board but not read the app (no use access, not on a public board): nothing checked.
    expect(expectOk(await statusOf(boardId, viewer.key))).toEqual({ statuses: [] });
    expect(up.hits).toEqual([]);
    expectError(await statusOf(boardId, null), 404, 'NOT_FOUND', 'Board not found');
    expect(up.hits).toEqual([]);

    const entry = await settled(boardId, pinged);
    expect(entry).toEqual({ appId: pinged, state: 'up', httpStatus: 200, checkedAt: expect.any(String) });
    expect(expectOk(await statusOf(boardId)).statuses.map((s: any) => s.appId)).toEqual([pinged]);
    expect(up.hits).toEqual([{ method: 'HEAD', path: '/health' }]);
    expect(quiet.hits).toEqual([]);
  });

  it('PING-2: at most one check per app per interval, whoever asks and however often; a stale result is checked again', async () => {
    const up = await answering((_req, res) => res.writeHead(204).end());
    const appId = await createApp({ pingUrl: up.url });
    const boardId = await boardWith([{ kind: 'app', options: { appId, pingEnabled: true } }, { kind: 'app', options: { appId, pingEnabled: true } }]);
    const other = await boardWith([{ kind: 'app', options: { appId, pingEnabled: true } }]);
    await Promise.all([statusOf(boardId), statusOf(boardId, null), statusOf(other), statusOf(other, null)]);
    await settled(boardId, appId);
    if (process.env.TEST_DATABASE_URL) {
      // A second instance on the same database sees the stored result and checks nothing.
      const sibling = await server.startSibling();
      const fromSibling = expectOk(await sibling.call('GET', `/api/boards/${boardId}/apps/status`));
      expect(fromSibling.statuses[0]).toMatchObject({ appId, state: 'up', httpStatus: 204 });
      await sibling.stop();
    }
    expect(up.hits.length).toBe(1);

    // Fresh results are answered without writing: the stored row is not touched by further questions.
    const before = await server.db('app_reachability').where({ appId }).first();
    await Promise.all([statusOf(boardId), statusOf(other, null)]);
    expect(await server.db('app_reachability').where({ appId }).first()).toEqual(before);

    await server.db('app_reachability').where({ appId }).update({ checkedAt: new Date(Date.now() - 2 * 3_600_000) });
    await statusOf(boardId);
    for (; up.hits.length < 2; ) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(up.hits.length).toBe(2);
  });

  it('PING-6: changing the ping URL does not make a check due: one check per app per interval across address changes', async () => {
    const counting = await answering((_req, res) => res.writeHead(200).end());
    const appId = await createApp({ pingUrl: counting.url });
    const boardId = await boardWith([{ kind: 'app', options: { appId, pingEnabled: true } }]);
    const first = await settled(boardId, appId);
    expect(first).toMatchObject({ state: 'up', httpStatus: 200 });
    expect(counting.hits).toHaveLength(1);
    const stored = await server.db('app_reachability').where({ appId }).first();
    for (let change = 1; change <= 6; change++) {
      expectOk(await server.call('PATCH', `/api/apps/${appId}`, { body: { pingUrl: `${counting.url}?v=${change}` } }));
      // The result stored is for another address: unknown until the app's interval has passed.
      const entry = expectOk(await statusOf(boardId)).statuses.find((s: any) => s.appId === appId);
      expect(entry).toEqual({ appId, state: 'unknown', httpStatus: null, checkedAt: null });
      // Nothing was claimed (the claim is the statement that starts a check, before the answer): the stored check,
      // its address and time, is the first one, so the next check is not due any earlier and no probe is under way.
      expect(await server.db('app_reachability').where({ appId }).first()).toEqual(stored);
    }
    expect(counting.hits).toHaveLength(1);
    // Once the interval has passed, the check is made at the current address.
    await server.db('app_reachability').where({ appId }).update({ checkedAt: new Date(Date.now() - 2 * 3_600_000) });
    expect(await settled(boardId, appId)).toMatchObject({ state: 'up', httpStatus: 200 });
    expect(counting.hits).toEqual([
      { method: 'HEAD', path: '/health' },
      { method: 'HEAD', path: '/health?v=6' },
    ]);
  });

  it('PING-7: an anonymous viewer of a public board is told up or down only, never the status code; a signed-in viewer sees it', async () => {
    const guarded = await answering((_req, res) => res.writeHead(401).end());
    const moved = await answering((_req, res) => res.writeHead(302, { Location: 'http://127.0.0.1:1/' }).end());
    const failing = await answering((_req, res) => res.writeHead(503).end());
    const apps = [await createApp({ pingUrl: guarded.url }), await createApp({ pingUrl: moved.url }), await createApp({ pingUrl: failing.url })];
    const boardId = await boardWith(apps.map((appId) => ({ kind: 'app', options: { appId, pingEnabled: true } })));
    for (const appId of apps) await settled(boardId, appId);
    const byApp = (statuses: any[]) => Object.fromEntries(statuses.map((s) => [s.appId, [s.state, s.httpStatus]]));
    expect(byApp(expectOk(await statusOf(boardId)).statuses)).toEqual({ [apps[0]]: ['up', 401], [apps[1]]: ['up', 302], [apps[2]]: ['down', 503] });
    const anonymous = expectOk(await statusOf(boardId, null)).statuses;
    expect(byApp(anonymous)).toEqual({ [apps[0]]: ['up', null], [apps[1]]: ['up', null], [apps[2]]: ['down', null] });
    for (const entry of anonymous) expect(entry.checkedAt).toEqual(expect.any(String));
  });

  it('PING-3: redirects are answers, never followed; 5xx, refused connections and timeouts are down; HEAD refused falls back to GET', async () => {
    const elsewhere = await answering((_req, res) => res.writeHead(200).end());
    const redirecting = await answering((_req, res) => res.writeHead(302, { Location: elsewhere.url.replace('127.0.0.1', 'localhost') }).end());
    const failing = await answering((_req, res) => res.writeHead(503).end());
    const headless = await answering((req, res) => res.writeHead(req.method === 'HEAD' ? 405 : 200).end());
    const silent = await answering(() => undefined); // never answers
    const closed = await answering((_req, res) => res.end());
    const closedUrl = closed.url;
    await closed.close();
    const apps = {
      redirect: await createApp({ pingUrl: redirecting.url }),
      failing: await createApp({ pingUrl: failing.url }),
      headless: await createApp({ pingUrl: headless.url }),
      silent: await createApp({ pingUrl: silent.url }),
      closed: await createApp({ pingUrl: closedUrl }),
      relative: await createApp({ href: '/local/app' }),
    };
    const boardId = await boardWith(Object.values(apps).map((appId) => ({ kind: 'app', options: { appId, pingEnabled: true } })));
    expect(await settled(boardId, apps.redirect)).toMatchObject({ state: 'up', httpStatus: 302 });
    expect(elsewhere.hits).toEqual([]);
    expect(await settled(boardId, apps.failing)).toMatchObject({ state: 'down', httpStatus: 503 });
    expect(await settled(boardId, apps.headless)).toMatchObject({ state: 'up', httpStatus: 200 });
    expect(headless.hits.map((h) => h.method)).toEqual(['HEAD', 'GET']);
    expect(await settled(boardId, apps.closed)).toMatchObject({ state: 'down', httpStatus: null });
    expect(await settled(boardId, apps.silent)).toMatchObject({ state: 'down', httpStatus: null });
    // An app without an absolute http(s) address is never checked.
    expect(expectOk(await statusOf(boardId)).statuses.find((s: any) => s.appId === apps.relative)).toEqual({ appId: apps.relative, state: 'unknown', httpStatus: null, checkedAt: null });
  });
});

describe('PING-4: bounded checks, bounded answer', () => {
  // How long the answer waits (one timeout) is a time bound, not asserted here: a loaded machine moves every timer.
  // What is deterministic is checked: eight checks at once and no more, and the queued ones stored when they end.
  it('PING-4: 12 apps due at once: at most 8 checks run at the same time, and the queued ones are stored when they end', async () => {
    // One loopback server for all twelve addresses. It holds the first requests until eight are in flight (a ninth
    // cannot come before one of them ends), then answers them all; later requests are answered at once.
    let inFlight = 0;
    let most = 0;
    const held: Array<() => void> = [];
    const slow = await answering((_req, res) => {
      most = Math.max(most, ++inFlight);
      const answer = () => (inFlight--, res.writeHead(200).end());
      if (most < 8) held.push(answer);
      else if (held.length > 0) for (const release of [...held.splice(0), answer]) release();
      else answer();
    });
    const apps: string[] = [];
    for (let i = 0; i < 12; i++) apps.push(await createApp({ pingUrl: `${slow.url}/${i}` }));
    const boardId = await boardWith(apps.map((appId) => ({ kind: 'app', options: { appId, pingEnabled: true } })));

    const first = expectOk(await statusOf(boardId));
    expect(first.statuses).toHaveLength(12);
    for (const entry of first.statuses) expect(['unknown', 'up']).toContain(entry.state);
    for (const appId of apps) expect(await settled(boardId, appId)).toMatchObject({ state: 'up', httpStatus: 200 });
    expect(slow.hits.length).toBe(12);
    expect(most).toBe(8);
  }, 60_000);
});

describe('PING and VIEW pure rules', () => {
  it('PING-2: the address checked is the ping URL, else an absolute http(s) link', () => {
    expect(pingTarget({ pingUrl: 'http://jf.internal:8096', href: 'https://jf.example.com' })).toBe('http://jf.internal:8096/');
    expect(pingTarget({ pingUrl: null, href: 'https://jf.example.com/web' })).toBe('https://jf.example.com/web');
    expect(pingTarget({ pingUrl: null, href: '/relative' })).toBeNull();
    expect(pingTarget({ pingUrl: null, href: null })).toBeNull();
  });

  it('PING-2/PING-6: a check may be due when never made or made too long ago (at any address), and not claimed within the lease', () => {
    const config = { intervalMs: 60_000, timeoutMs: 1_000, concurrency: 8 };
    const now = Date.parse('2026-11-25T12:00:00Z');
    const ago = (ms: number) => new Date(now - ms).toISOString();
    expect(mayBeDue(undefined, 'http://a/', now, config)).toBe(true);
    expect(mayBeDue({ url: 'http://a/', checkedAt: ago(10_000), claimedAt: null }, 'http://a/', now, config)).toBe(false);
    expect(mayBeDue({ url: 'http://a/', checkedAt: ago(61_000), claimedAt: null }, 'http://a/', now, config)).toBe(true);
    // PING-6: another address does not make a check due before the interval.
    expect(mayBeDue({ url: 'http://old/', checkedAt: ago(10_000), claimedAt: null }, 'http://a/', now, config)).toBe(false);
    expect(mayBeDue({ url: 'http://old/', checkedAt: ago(61_000), claimedAt: null }, 'http://a/', now, config)).toBe(true);
    expect(mayBeDue({ url: 'http://a/', checkedAt: null, claimedAt: ago(2_000) }, 'http://a/', now, config)).toBe(false);
    expect(mayBeDue({ url: 'http://a/', checkedAt: null, claimedAt: ago(3_001) }, 'http://a/', now, config)).toBe(true);
  });

  it('PING-3: below 500 is up, 500 and more or no answer is down', () => {
    expect([200, 302, 404, 499, 500, 503, null].map(stateOfAnswer)).toEqual(['up', 'up', 'up', 'up', 'down', 'down', 'down']);
  });

  it('PING-1: only app widgets with pingEnabled true name apps to check', () => {
    expect(
      pingedAppIds([
        { kind: 'app', options: { appId: 'a', pingEnabled: true } },
        { kind: 'app', options: { appId: 'a', pingEnabled: true } },
        { kind: 'app', options: { appId: 'b', pingEnabled: 'true' } },
        { kind: 'bookmarks', options: { items: ['c'], pingEnabled: true } },
        { kind: 'app', options: null },
      ]),
    ).toEqual(['a']);
  });

  it('PING-4: the limiter runs at most its limit at once', async () => {
    const limiter = new CheckLimiter(2);
    let running = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const tasks = Array.from({ length: 5 }, () =>
      limiter.run(async () => {
        most = Math.max(most, ++running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
      }),
    );
    while (gates.length > 0 || running > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      gates.shift()?.();
    }
    await Promise.all(tasks);
    expect(most).toBe(2);
  });

  it('VIEW-5: the page policy allows https: images, the http origins of app icons and the origins of iframe widgets only', () => {
    const sources = pageSources(
      [{ iconUrl: 'http://nas.lan:5000/icon.png' }, { iconUrl: 'https://cdn.example.com/x.svg' }, { iconUrl: '/local.png' }, { iconUrl: 'data:image/png;base64,AA' }],
      [{ embedUrl: 'https://grafana.example.com/d/1' }, { embedUrl: 'javascript:alert(1)' }, { embedUrl: 'http://cam.lan/live' }, null, { embedUrl: 7 }],
    );
    expect(sources).toEqual({ imageOrigins: ['http://nas.lan:5000'], frameOrigins: ['http://cam.lan', 'https://grafana.example.com'] });
    const policy = widenPolicy(pageSecurityHeaders['Content-Security-Policy'], sources);
    expect(policy).toContain("img-src 'self' data: https: http://nas.lan:5000;");
    expect(policy).toContain('frame-src http://cam.lan https://grafana.example.com');
    expect(policy).toContain("script-src 'self';");
    expect(widenPolicy(pageSecurityHeaders['Content-Security-Policy'], { imageOrigins: [], frameOrigins: [] })).not.toContain('frame-src');
  });
});

