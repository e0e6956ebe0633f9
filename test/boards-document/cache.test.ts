import { unique } from '../support/unique';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { buildApp } from '../../src/server';
import { createActor } from '../support/actors';
import { call, startTestServer, TestServer, testSecretKey } from '../support/server';
import { categorySection, createBoard, emptySection, expectOk, getBoard, item, position } from './helpers';

/**
 * Each instance caches serialized board documents. These tests run two instances on one database and check
 * that a cached document is never served once the database says the board (or the caller's view of it) changed.
 */
let server: TestServer;
let second: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  server = await startTestServer();
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', VALIDATE_RESPONSES: 'true', SECRET_ENCRYPTION_KEY: testSecretKey }), port: 0, host: '127.0.0.1' };
  const { app, close: closeApp } = await buildApp({ db: server.db, config, logger: pino({ level: 'silent' }), lifecycle: { ready: true, shuttingDown: false } });
  const listener = http.createServer(app);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  second = {
    url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`,
    close: async () => {
      await closeApp();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
});
afterAll(async () => {
  await second.close();
  await server.stop();
});

const readOnSecond = (boardId: string, key: string | null = server.adminKey) => call(second.url, 'GET', `/api/boards/${boardId}`, { key });

describe('board document cache', () => {
  it('serves identical bytes and ETag on repeated reads', async () => {
    const board = await createBoard(server);
    const first = await getBoard(server, board.boardId);
    const again = await getBoard(server, board.boardId);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('shows a write made through another instance at once', async () => {
    const board = await createBoard(server);
    const before = expectOk(await readOnSecond(board.boardId));
    expectOk(await readOnSecond(board.boardId)); // now cached on the second instance
    const saved = await server.call('PUT', `/api/boards/${board.boardId}`, {
      body: {
        sections: [emptySection(board.sectionId)],
        items: [item(unique('item'), [position(board.layoutId, board.sectionId)])],
        expectedVersion: before.version,
      },
    });
    expectOk(saved);
    const after = expectOk(await readOnSecond(board.boardId));
    expect(after.version).toBe(before.version + 1);
    expect(after.items).toHaveLength(1);
  });

  it('shows writes that leave the version alone (POST items, settings) at once', async () => {
    const board = await createBoard(server);
    const before = expectOk(await readOnSecond(board.boardId));
    expect((await server.call('POST', '/api/boards/items', { body: { boardId: board.boardId, kind: 'clock' } })).status).toBe(201);
    const afterItem = expectOk(await readOnSecond(board.boardId));
    expect(afterItem.version).toBe(before.version);
    expect(afterItem.items).toHaveLength(1);
    expect((await server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { pageTitle: 'Fresh' } })).status).toBe(204);
    expect(expectOk(await readOnSecond(board.boardId)).pageTitle).toBe('Fresh');
  });

  it("follows the caller's permission rows, memberships and collapsed sections", async () => {
    const actor = await createActor(server);
    const board = await createBoard(server, { isPublic: true });
    const group = await server.call('POST', '/api/groups', { body: { name: unique('cachegroup') } });
    const groupId = group.body.groupId;
    await server.db('board_group_permissions').insert({ boardId: board.boardId, groupId, permission: 'view' });
    const categoryId = unique('cat');
    await server.call('PUT', `/api/boards/${board.boardId}`, {
      body: { sections: [emptySection(board.sectionId), categorySection(categoryId, 'Media')], items: [] },
    });

    const plain = expectOk(await readOnSecond(board.boardId, actor.key));
    expect(plain.groupPermissions).toEqual([]);
    expect(plain.sections.find((s: any) => s.id === categoryId).collapsed).toBe(false);

    await server.call('POST', `/api/groups/${groupId}/members`, { body: { userId: actor.userId } });
    expect(expectOk(await readOnSecond(board.boardId, actor.key)).groupPermissions).toEqual([{ groupId, permission: 'view' }]);

    await server.db('section_collapse_states').insert({ userId: actor.userId, sectionId: categoryId, collapsed: true });
    expect(expectOk(await readOnSecond(board.boardId, actor.key)).sections.find((s: any) => s.id === categoryId).collapsed).toBe(true);
    // Other callers keep their own view of the same revision.
    expect(expectOk(await readOnSecond(board.boardId)).sections.find((s: any) => s.id === categoryId).collapsed).toBe(false);
  });

  it('drops the creator at once when the creator is deleted', async () => {
    const creator = await createActor(server);
    const board = await createBoard(server, { creatorId: creator.userId });
    expect(expectOk(await readOnSecond(board.boardId)).creator.id).toBe(creator.userId);
    expect((await server.call('DELETE', `/api/users/${creator.userId}`)).status).toBe(204);
    const after = expectOk(await readOnSecond(board.boardId));
    expect(after.creatorId).toBeNull();
    expect(after.creator).toBeNull();
  });

  it('refuses a cached board to a caller who lost access', async () => {
    const actor = await createActor(server);
    const board = await createBoard(server);
    await server.db('board_user_permissions').insert({ boardId: board.boardId, userId: actor.userId, permission: 'view' });
    expectOk(await readOnSecond(board.boardId, actor.key));
    await server.call('PUT', `/api/boards/${board.boardId}/permissions`, { body: { users: [], groups: [] } });
    const denied = await readOnSecond(board.boardId, actor.key);
    expect(denied.status).toBe(404);
    expect(denied.body).toMatchObject({ code: 'NOT_FOUND', message: 'Board not found' });
  });

  it('builds a board once for concurrent reads that miss the cache together', async () => {
    const board = await createBoard(server);
    const items = Array.from({ length: 200 }, (_, n) => item(unique('item'), [position(board.layoutId, board.sectionId, n % 12, Math.floor(n / 12))]));
    expectOk(await server.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: [emptySection(board.sectionId)], items } }));
    // A revision the instance's state cache does not hold (as if another instance had written), so the build reads
    // the board: the snapshot's read of the item positions, once per build.
    await server.db('boards').where({ id: board.boardId }).increment('revision', 1);
    let builds = 0;
    const listener = (query: { sql: string }) => {
      if (query.sql.includes('from "item_layouts"')) builds += 1;
    };
    server.db.on('query', listener);
    try {
      const reads = await Promise.all(Array.from({ length: 12 }, () => getBoard(server, board.boardId)));
      expect(new Set(reads.map((read) => `${read.status} ${read.headers.get('etag')}`)).size).toBe(1);
      expect(reads[0].body.items).toHaveLength(200);
    } finally {
      server.db.removeListener('query', listener);
    }
    expect(builds).toBe(1);
  });
});

describe('DOC-7: the state cache of board rows', () => {
  const onPostgres = process.env.TEST_DATABASE_URL !== undefined;
  (onPostgres ? it : it.skip)('never misses a write another instance made in between (PostgreSQL: two instances)', async () => {
    const sibling = await server.startSibling();
    const board = await createBoard(server);
    const [x, y] = [unique('x'), unique('y')];
    const start = expectOk(await server.call('GET', `/api/boards/${board.boardId}`));
    // This instance writes (and keeps the rows), the other writes on top, then this one changes one item.
    const first = expectOk(await server.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: start.sections, items: [item(x, [position(board.layoutId, board.sectionId)])] } }));
    expectOk(await sibling.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: first.sections, items: [...first.items, item(y, [position(board.layoutId, board.sectionId, 1)])] } }));
    const patched = expectOk(await server.call('PATCH', `/api/boards/${board.boardId}/items/${x}`, { body: { options: { n: 1 } } }));
    expect(patched.items.map((i: any) => i.id).sort()).toEqual([x, y].sort());
    expect(patched).toEqual(expectOk(await sibling.call('GET', `/api/boards/${board.boardId}`)));
  });

  it('answers later writes from the rows it kept exactly as the database has them', async () => {
    const board = await createBoard(server);
    const start = expectOk(await server.call('GET', `/api/boards/${board.boardId}`));
    const ids = Array.from({ length: 5 }, () => unique('i'));
    expectOk(await server.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: start.sections, items: ids.map((id, n) => item(id, [position(board.layoutId, board.sectionId, n)])) } }));
    for (const [n, id] of ids.entries()) {
      // The first write reads the board; the second starts from the rows the first one left.
      expectOk(await server.call('PATCH', `/api/boards/${board.boardId}/items/${id}`, { body: { advancedOptions: { title: `t${n}` } } }));
      const answer = expectOk(await server.call('PATCH', `/api/boards/${board.boardId}/items/${id}`, { body: { options: { n, z: { b: 1, a: 2 } } } }));
      // A document read with the caches bypassed: a revision this instance never wrote.
      await server.db('boards').where({ id: board.boardId }).increment('revision', 1);
      const read = await server.call('GET', `/api/boards/${board.boardId}`);
      expect(JSON.stringify(answer)).toBe(JSON.stringify(expectOk(read)));
    }
  });
});
