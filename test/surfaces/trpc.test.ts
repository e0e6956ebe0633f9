import { createTRPCUntypedClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import superjson from 'superjson';
import { procedures } from '../../src/trpc/procedures';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectError, expectOk, grantIntegration, item, position } from '../boards-document/helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const openApiDocument = require('../../generated/openapi.json');
const server = useTestServer();

/** The official client, untyped, with the superjson transformer and the ApiKey header (TRPC-1). */
function client(key: string | null, batch = false) {
  const options = { url: `${server.url}/api/trpc`, transformer: superjson, headers: key ? { ApiKey: key } : {} };
  return createTRPCUntypedClient({ links: [batch ? httpBatchLink(options) : httpLink(options)] });
}

async function rejection(call: Promise<unknown>): Promise<TRPCClientError<any>> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCClientError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('tRPC-compatible endpoints (TRPC-1..4)', () => {
  it('TRPC-4: board procedures run the REST operations: create, read by name, save, layouts, settings, rename, visibility, home, delete', async () => {
    const trpc = client(server.adminKey);
    const name = unique('trpc-');
    const { boardId } = (await trpc.mutation('board.createBoard', { name, columnCount: 12, isPublic: false })) as { boardId: string };
    const board = (await trpc.query('board.getBoardByName', { name })) as any;
    expect(board).toEqual(expectOk(await server.call('GET', `/api/boards/${boardId}`)));
    expect(((await trpc.query('board.getAllBoards', undefined)) as any[]).map((b) => b.id)).toContain(boardId);

    const saved = (await trpc.mutation('board.saveBoard', {
      id: boardId,
      sections: board.sections,
      items: [item(unique('clock'), [position(board.layouts[0].id, board.sections[0].id)])],
    })) as any;
    expect(saved.version).toBe(1);
    expect(saved.items).toHaveLength(1);
    const layouts = (await trpc.mutation('board.saveLayouts', {
      id: boardId,
      layouts: [...board.layouts, { id: 'new', name: 'Phone', columnCount: 4, breakpoint: 600 }],
    })) as any;
    expect(layouts.layouts.map((l: any) => l.name)).toEqual(['Base', 'Phone']);
    expect(await trpc.mutation('board.savePartialBoardSettings', { id: boardId, pageTitle: 'From tRPC' })).toBeUndefined();
    const renamed = unique('trpc-renamed-');
    await trpc.mutation('board.renameBoard', { id: boardId, name: renamed });
    await trpc.mutation('board.changeBoardVisibility', { id: boardId, visibility: 'public' });
    await trpc.mutation('board.setHomeBoard', { id: boardId });
    await trpc.mutation('board.setMobileHomeBoard', { id: boardId });
    const home = (await trpc.query('board.getHomeBoard', undefined)) as any;
    expect(home).toMatchObject({ id: boardId, name: renamed, pageTitle: 'From tRPC', isPublic: true });
    expect(await trpc.query('board.getBoardPermissions', { id: boardId })).toEqual(expectOk(await server.call('GET', `/api/boards/${boardId}/permissions`)));
    const { boardId: copyId } = (await trpc.mutation('board.duplicateBoard', { id: boardId, name: unique('trpc-copy-') })) as any;
    await trpc.mutation('board.deleteBoard', { id: copyId });
    expect((await server.call('GET', `/api/boards/${copyId}`)).status).toBe(404);
  });

  it('TRPC-4: docs/using-the-api.md names exactly the procedures there are, queries as queries and mutations as mutations', () => {
    const guide = readFileSync(path.resolve(__dirname, '../../docs/using-the-api.md'), 'utf8');
    const paragraph = /\*\*tRPC\*\*([^]*?)Errors are tRPC errors/.exec(guide)?.[1] ?? '';
    const [queries, mutations] = paragraph.split('Mutations:').map((part) => [...part.matchAll(/`([a-z]+\.[A-Za-z]+)/g)].map((match) => match[1]).sort());
    const ofType = (type: string) => Object.keys(procedures).filter((name) => procedures[name].type === type).sort();
    expect({ queries, mutations }).toEqual({ queries: ofType('query'), mutations: ofType('mutation') });
  });

  it('BOARD-9: board.getHomeBoard falls back to the server default home board; without either it is Board not found', async () => {
    const user = await createActor(server);
    const missing = await rejection(client(user.key).query('board.getHomeBoard', undefined));
    expect(missing.message).toBe('Board not found');
    const name = unique('trpc-default-home-');
    const { boardId } = (await client(server.adminKey).mutation('board.createBoard', { name, columnCount: 12, isPublic: true })) as any;
    expectOk(await server.call('PATCH', '/api/settings/board', { body: { homeBoardId: boardId } }));
    expect(((await client(user.key).query('board.getHomeBoard', undefined)) as any).id).toBe(boardId);
    expectOk(await server.call('PATCH', '/api/settings/board', { body: { homeBoardId: null } }));
  });

  it('TRPC-2: errors carry the REST message, the code name, the HTTP status and the path', async () => {
    const trpc = client(server.adminKey);
    const missing = await rejection(trpc.query('board.getBoardByName', { name: unique('nothing-') }));
    expect(missing.message).toBe('Board not found');
    expect(missing.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, path: 'board.getBoardByName' });
    expect(missing.shape).toMatchObject({ code: -32004 });

    const name = unique('trpc-');
    await trpc.mutation('board.createBoard', { name, columnCount: 12, isPublic: false });
    const clash = await rejection(trpc.mutation('board.createBoard', { name, columnCount: 12, isPublic: false }));
    expect(clash.message).toBe('Board with similar name already exists');
    expect(clash.data).toMatchObject({ code: 'CONFLICT', httpStatus: 409 });

    const stranger = await createActor(server);
    const hidden = await rejection(client(stranger.key).query('board.getBoardByName', { name }));
    expect(hidden.message).toBe('Board not found');
    const denied = await rejection(client(stranger.key).mutation('board.createBoard', { name: unique('x-'), columnCount: 12, isPublic: false }));
    expect(denied.data).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
    const anonymous = await rejection(client(null).mutation('board.createBoard', { name: unique('x-'), columnCount: 12, isPublic: false }));
    expect(anonymous.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    const invalid = await rejection(trpc.mutation('board.createBoard', { name: 'has space', columnCount: 12, isPublic: false }));
    expect(invalid.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
  });

  it('TRPC-2, BIND-2: a binding the caller may not add is the REST 403 with its message', async () => {
    const user = await createActor(server, { permissions: ['board-create'] });
    const trpc = client(user.key);
    const name = unique('trpc-bind-');
    const { boardId } = (await trpc.mutation('board.createBoard', { name, columnCount: 12, isPublic: false })) as any;
    const board = (await trpc.query('board.getBoardByName', { name })) as any;
    const integration = unique('integration');
    await server.db('integrations').insert({ id: integration, name: `I ${integration}`, kind: 'mock', url: 'http://127.0.0.1:1' });
    const body = { id: boardId, sections: board.sections, items: [item(unique('clock'), [position(board.layouts[0].id, board.sections[0].id)], { integrationIds: [integration] })] };
    const refused = await rejection(trpc.mutation('board.saveBoard', body));
    expect(refused.message).toBe(`No access to integrations: ${integration}`);
    expect(refused.data).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403, path: 'board.saveBoard' });
    await grantIntegration(server, integration, user.userId);
    expect(((await trpc.mutation('board.saveBoard', body)) as any).items[0].integrationIds).toEqual([integration]);
    expect(((await trpc.query('integration.all', undefined)) as any[]).map((i) => i.id)).toEqual([integration]);
  });

  it('TRPC-4: app procedures; app.create answers appId and id', async () => {
    const trpc = client(server.adminKey);
    const created = (await trpc.mutation('app.create', { name: unique('app'), iconUrl: 'https://example.com/i.png', href: 'https://example.com' })) as any;
    expect(created.appId).toBe(created.id);
    expect(await trpc.query('app.byId', { id: created.id })).toMatchObject({ id: created.id, href: 'https://example.com' });
    expect(((await trpc.query('app.all', undefined)) as any[]).map((a) => a.id)).toContain(created.id);
    expect(((await trpc.query('app.selectable', undefined)) as any[]).map((a) => a.id)).toContain(created.id);
    expect(await trpc.mutation('app.update', { id: created.id, description: 'Updated' })).toMatchObject({ description: 'Updated' });
    await trpc.mutation('app.delete', { id: created.id });
    expect((await rejection(trpc.query('app.byId', { id: created.id }))).message).toBe('App not found');
  });

  it('TRPC-3: a batch answers in order, 207 when the statuses differ', async () => {
    const trpc = client(server.adminKey, true);
    const name = unique('trpc-batch-');
    await client(server.adminKey).mutation('board.createBoard', { name, columnCount: 12, isPublic: false });
    const [board, apps] = await Promise.all([trpc.query('board.getBoardByName', { name }), trpc.query('app.all', undefined)]);
    expect((board as any).name).toBe(name);
    expect(Array.isArray(apps)).toBe(true);

    const input = encodeURIComponent(JSON.stringify({ 0: { json: { name } }, 1: { json: { name: unique('none-') } } }));
    // The comma percent-encoded, as the official client sends it (a literal one reads as an array to the contract proxy).
    const mixed = await server.call('GET', `/api/trpc/board.getBoardByName%2Cboard.getBoardByName?batch=1&input=${input}`);
    expect(mixed.status).toBe(207);
    expect(mixed.body[0].result.data.json.name).toBe(name);
    expect(mixed.body[1].error.json).toMatchObject({ message: 'Board not found', code: -32004, data: { code: 'NOT_FOUND', httpStatus: 404 } });
  });

  it('TRPC-2: names of Object.prototype members (toString, constructor, __proto__) are unknown procedures, 404', async () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
      for (const method of ['GET', 'POST']) {
        const answer = await server.call(method, `/api/trpc/${name}`, method === 'POST' ? { body: { json: null } } : {});
        expect(answer.status).toBe(404);
        expect(answer.body.error.json).toMatchObject({ message: `No procedure found on path "${name}"`, data: { code: 'NOT_FOUND', httpStatus: 404 } });
      }
    }
  });

  it('TRPC-2: a procedure path longer than the contract allows is a 400 whose error names no path (found by the fuzzer through the contract proxy); one of the longest allowed is named', async () => {
    // The one limit, as the contract declares it (src/trpc/handlers.ts reads the same value).
    const longest: number = openApiDocument.paths['/api/trpc/{procedures}'].parameters.find((p: { name: string }) => p.name === 'procedures').schema.maxLength;
    expect(longest).toBe(2000);
    for (const batch of ['', '?batch=true']) {
      const answer = await server.call('POST', `/api/trpc/${'a'.repeat(longest + 1)}${batch}`, { body: { json: null } });
      expect(answer.status).toBe(400);
      expect(answer.body.error.json).toMatchObject({ message: 'Input validation failed', data: { code: 'BAD_REQUEST', httpStatus: 400 } });
      expect(answer.body.error.json.data).not.toHaveProperty('path');
    }
    const named = await server.call('POST', `/api/trpc/${'a'.repeat(longest)}`, { body: { json: null } });
    expect(named.status).toBe(404);
    expect(named.body.error.json).toMatchObject({ message: `No procedure found on path "${'a'.repeat(longest)}"`, data: { code: 'NOT_FOUND', httpStatus: 404, path: 'a'.repeat(longest) } });
  });

  it('TRPC-1, TRPC-2: the three forms of no input; unknown procedure 404; wrong method 405; a body that is not JSON 415', async () => {
    const noInput = [
      '',
      `?input=${encodeURIComponent(JSON.stringify({ json: null, meta: { values: ['undefined'], v: 1 } }))}`,
      `?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`,
    ];
    for (const query of noInput) {
      const answer = await server.call('GET', `/api/trpc/app.all${query}`);
      expect(answer.status).toBe(200);
      expect(Array.isArray(answer.body.result.data.json)).toBe(true);
    }
    const unknown = await server.call('GET', '/api/trpc/board.nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.json).toMatchObject({ message: 'No procedure found on path "board.nothing"', data: { code: 'NOT_FOUND', httpStatus: 404 } });
    const wrongMethod = await server.call('POST', '/api/trpc/app.all', { body: { json: null } });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error.json.data).toMatchObject({ code: 'METHOD_NOT_SUPPORTED', httpStatus: 405 });
    expect((await server.call('GET', '/api/trpc/board.createBoard')).status).toBe(405);
    const text = await server.call('POST', '/api/trpc/board.createBoard', { raw: 'name=x', headers: { 'Content-Type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.error.json.data).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', httpStatus: 415 });
    const badKey = await server.call('GET', '/api/trpc/app.all', { key: 'nope.nope' });
    expect(badKey.status).toBe(401);
    expect(badKey.body.error.json.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, path: 'app.all' });
  });

  it('TRPC-1: the session cookie works, and a cookie-authenticated mutation refuses a cross-site request', async () => {
    const user = await createActor(server, { permissions: ['board-create'], password: 'cookie-pass-1' });
    const login = await server.call('POST', '/api/auth/login', { key: null, body: { username: user.username, password: 'cookie-pass-1' } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const body = { json: { name: unique('cookie-'), columnCount: 12, isPublic: false } };
    const crossSite = await server.call('POST', '/api/trpc/board.createBoard', { key: null, body, headers: { Cookie: cookie, Origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error.json.data.code).toBe('FORBIDDEN');
    const sameSite = await server.call('POST', '/api/trpc/board.createBoard', { key: null, body, headers: { Cookie: cookie } });
    expect(sameSite.status).toBe(200);
    expect(sameSite.body.result.data.json.boardId).toEqual(expect.any(String));
  });
});

describe('tRPC user and group procedures for Homarr clients (TRPC-5)', () => {
  it('TRPC-5: user.getAll, user.search, group.getAll and group.getById answer in Homarr\'s shapes; addMember and removeMember change the membership', async () => {
    const trpc = client(server.adminKey);
    const suffix = unique('').replace(/[^a-z0-9]/gi, '').slice(-8).toLowerCase();
    const alice = await createActor(server, { name: `alice_${suffix}` });
    const bob = await createActor(server, { name: `bob_${suffix}` });
    const { groupId } = expectOk(await server.call('POST', '/api/groups', { body: { name: `crew-${suffix}` } }), 201);

    const users = (await trpc.query('user.getAll', undefined)) as any[];
    expect(users.find((u) => u.id === alice.userId)).toEqual({ id: alice.userId, name: alice.username, email: null, emailVerified: null, image: null });
    expect(await trpc.query('user.search', { query: `ALICE_${suffix}` })).toEqual([{ id: alice.userId, name: alice.username, image: null }]);
    expect(await trpc.query('user.search', { query: suffix, limit: 1 })).toHaveLength(1);
    expect(((await trpc.query('user.search', { query: suffix })) as any[]).map((u) => u.name)).toEqual([alice.username, bob.username]);

    expect(await trpc.mutation('group.addMember', { groupId, userId: alice.userId })).toBeUndefined();
    await trpc.mutation('group.addMember', { groupId, userId: bob.userId });
    await trpc.mutation('group.removeMember', { groupId, userId: bob.userId });
    const all = (await trpc.query('group.getAll', undefined)) as any[];
    expect(all.find((g) => g.id === groupId)).toEqual({
      id: groupId,
      name: `crew-${suffix}`,
      ownerId: expect.any(String),
      homeBoardId: null,
      mobileHomeBoardId: null,
      position: 0,
      members: [{ id: alice.userId, name: alice.username, email: null, image: null }],
    });
    const one = (await trpc.query('group.getById', { id: groupId })) as any;
    expect(one).toMatchObject({ id: groupId, members: [{ id: alice.userId, name: alice.username, email: null, image: null, provider: 'credentials' }], permissions: [] });
    expect(one.owner).toMatchObject({ id: one.ownerId });
    expect(expectOk(await server.call('GET', `/api/groups/${groupId}`))).toMatchObject({ id: groupId, memberIds: [alice.userId], permissions: [] });
  });

  it('TRPC-5: errors are the REST ones: unknown group 404 Group not found, a removed membership 404, bad search input 400, a non-admin 403', async () => {
    const trpc = client(server.adminKey);
    const missing = await rejection(trpc.query('group.getById', { id: unique('nogroup') }));
    expect(missing.message).toBe('Group not found');
    expect(missing.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, path: 'group.getById' });
    expectError(await server.call('GET', `/api/groups/${unique('nogroup')}`), 404, 'NOT_FOUND', 'Group not found');

    const { groupId } = expectOk(await server.call('POST', '/api/groups', { body: { name: unique('g-') } }), 201);
    const user = await createActor(server);
    const notMember = await rejection(trpc.mutation('group.removeMember', { groupId, userId: user.userId }));
    expect(notMember.message).toBe('Membership not found');
    const badLimit = await rejection(trpc.query('user.search', { query: 'a', limit: 101 }));
    expect(badLimit.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    expect(badLimit.message).toBe('Input validation failed');

    const stranger = client(user.key);
    for (const call of [stranger.query('user.getAll', undefined), stranger.query('user.search', { query: 'a' }), stranger.query('group.getAll', undefined), stranger.query('group.getById', { id: groupId }), stranger.mutation('group.addMember', { groupId, userId: user.userId })]) {
      expect((await rejection(call)).data).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
    }
    expectError(await server.call('GET', `/api/groups/${groupId}`, { key: user.key }), 403, 'FORBIDDEN');
  });
});
