import { unique } from '../support/unique';
import { newId } from '../../src/db/ids';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { boardRow, createBoard, expectError, grantGroup, grantUser } from './fixtures';

const server = useTestServer();

async function serverSettings() {
  const result = await server.call('GET', '/api/settings/board');
  expect(result.status).toBe(200);
  return result.body;
}

describe('PATCH /api/boards/{id}/settings', () => {
  it('writes the supplied settings only, keeps the version and bumps the revision', async () => {
    const boardId = await createBoard(server);
    await server.db('boards').where({ id: boardId }).update({ version: 3, metaTitle: 'kept' });
    const before = await boardRow(server, boardId);
    const patch = {
      pageTitle: 'Home lab',
      logoImageUrl: 'https://example.com/logo.png',
      faviconImageUrl: '/favicon.ico',
      backgroundImageUrl: 'https://example.com/bg.jpg',
      backgroundImageAttachment: 'scroll',
      backgroundImageRepeat: 'repeat-x',
      backgroundImageSize: 'contain',
      primaryColor: '#228BE6',
      secondaryColor: '#000000',
      opacity: 0,
      customCss: 'body { margin: 0 }',
      iconColor: '#ffffff',
      itemRadius: 'xl',
      disableStatus: true,
    };
    expect(await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: patch })).toMatchObject({ status: 204, body: undefined });
    const after = await boardRow(server, boardId);
    expect(after).toMatchObject({ ...patch, metaTitle: 'kept', version: 3, revision: before!.revision + 1, name: before!.name });
  });

  it('stores blank text as null', async () => {
    const boardId = await createBoard(server);
    await server.db('boards').where({ id: boardId }).update({ pageTitle: 'x', iconColor: '#000000', customCss: 'a{}' });
    const result = await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { pageTitle: '   ', iconColor: '', metaTitle: null } });
    expect(result.status).toBe(204);
    expect(await boardRow(server, boardId)).toMatchObject({ pageTitle: null, iconColor: null, metaTitle: null, customCss: 'a{}' });
  });

  it.each([
    ['an empty body', {}],
    ['an unknown setting', { name: 'x' }],
    ['an opacity above 100', { opacity: 101 }],
    ['a negative opacity', { opacity: -1 }],
    ['a fractional opacity', { opacity: 0.5 }],
    ['a bad colour', { primaryColor: 'red' }],
    ['a null primary colour', { primaryColor: null }],
    ['a bad enum value', { itemRadius: 'xxl' }],
    ['a bad background size', { backgroundImageSize: 'stretch' }],
    ['a bad icon colour', { iconColor: '#12' }],
    ['an over-long custom CSS', { customCss: 'x'.repeat(16385) }],
    ['a string disableStatus', { disableStatus: 'yes' }],
  ])('answers 400 for %s and writes nothing', async (_label, body) => {
    const boardId = await createBoard(server);
    const before = await boardRow(server, boardId);
    expectError(await server.call('PATCH', `/api/boards/${boardId}/settings`, { body }), 400, 'BAD_REQUEST', 'Input validation failed');
    expect(await boardRow(server, boardId)).toEqual(before);
  });
});

describe('PATCH /api/boards/{id}/visibility', () => {
  it('switches between public and private without touching the version', async () => {
    const boardId = await createBoard(server);
    await server.db('boards').where({ id: boardId }).update({ version: 2 });
    const { revision } = (await boardRow(server, boardId))!;
    expect((await server.call('PATCH', `/api/boards/${boardId}/visibility`, { body: { visibility: 'public' } })).status).toBe(204);
    expect(await boardRow(server, boardId)).toMatchObject({ isPublic: true, version: 2, revision: revision + 1 });
    expect((await server.call('PATCH', `/api/boards/${boardId}/visibility`, { body: { visibility: 'private' } })).status).toBe(204);
    expect(await boardRow(server, boardId)).toMatchObject({ isPublic: false, version: 2, revision: revision + 2 });
  });

  it.each([['homeBoardId'], ['mobileHomeBoardId']])('refuses to make the server-wide %s private', async (setting) => {
    const boardId = await createBoard(server, { isPublic: true });
    expect((await server.call('PATCH', '/api/settings/board', { body: { [setting]: boardId } })).status).toBe(200);
    expectError(
      await server.call('PATCH', `/api/boards/${boardId}/visibility`, { body: { visibility: 'private' } }),
      400,
      'BAD_REQUEST',
      'Cannot make home board private',
    );
    expect((await boardRow(server, boardId))!.isPublic).toBe(true);
    // Making it public again is fine.
    expect((await server.call('PATCH', `/api/boards/${boardId}/visibility`, { body: { visibility: 'public' } })).status).toBe(204);
    await server.call('PATCH', '/api/settings/board', { body: { [setting]: null } });
    expect((await server.call('PATCH', `/api/boards/${boardId}/visibility`, { body: { visibility: 'private' } })).status).toBe(204);
  });

  it('a user home board (not the server default) may be made private', async () => {
    const boardId = await createBoard(server, { isPublic: true });
    expect((await server.call('PATCH', `/api/boards/${boardId}/home`)).status).toBe(204);
    expect((await server.call('PATCH', `/api/boards/${boardId}/visibility`, { body: { visibility: 'private' } })).status).toBe(204);
  });

  it.each([[{ visibility: 'hidden' }], [{}], [{ visibility: true }]])('answers 400 for %p', async (body) => {
    const boardId = await createBoard(server);
    expectError(await server.call('PATCH', `/api/boards/${boardId}/visibility`, { body }), 400, 'BAD_REQUEST', 'Input validation failed');
  });
});

describe('PATCH /api/boards/{id}/home and /mobile-home', () => {
  it("sets the caller's own pointers, with or without an empty JSON body, and leaves the board alone", async () => {
    const viewer = await createActor(server);
    const boardId = await createBoard(server);
    await grantUser(server, boardId, viewer.userId, 'view');
    const before = await boardRow(server, boardId);
    expect((await server.call('PATCH', `/api/boards/${boardId}/home`, { key: viewer.key })).status).toBe(204);
    expect((await server.call('PATCH', `/api/boards/${boardId}/mobile-home`, { key: viewer.key, body: {} })).status).toBe(204);
    expect(await server.db('users').where({ id: viewer.userId }).first('homeBoardId', 'mobileHomeBoardId')).toEqual({
      homeBoardId: boardId,
      mobileHomeBoardId: boardId,
    });
    expect(await boardRow(server, boardId)).toEqual(before);
  });

  it('replaces an earlier home board', async () => {
    const actor = await createActor(server, { permissions: ['board-create'] });
    const first = await createBoard(server, { key: actor.key });
    const second = await createBoard(server, { key: actor.key });
    expect((await server.db('users').where({ id: actor.userId }).first('homeBoardId')).homeBoardId).toBe(first);
    expect((await server.call('PATCH', `/api/boards/${second}/home`, { key: actor.key })).status).toBe(204);
    expect((await server.db('users').where({ id: actor.userId }).first('homeBoardId')).homeBoardId).toBe(second);
  });
});

describe('DELETE /api/boards/{id}', () => {
  it('removes the board with its contents and grants, and clears every home pointer to it', async () => {
    const db = server.db;
    const other = await createBoard(server, { isPublic: true });
    const boardId = await createBoard(server, { isPublic: true });
    const user = await createActor(server, { permissions: [] });
    await grantUser(server, boardId, user.userId, 'view');
    await grantGroup(server, boardId, user.groupId!, 'modify');
    await server.call('PATCH', `/api/boards/${boardId}/home`, { key: user.key });
    await server.call('PATCH', `/api/boards/${boardId}/mobile-home`, { key: user.key });
    await db('groups').where({ id: user.groupId }).update({ homeBoardId: boardId, mobileHomeBoardId: boardId });
    expect((await server.call('PATCH', '/api/settings/board', { body: { homeBoardId: boardId, mobileHomeBoardId: other } })).status).toBe(200);

    const layoutId = (await db('layouts').where({ boardId }).first('id')).id;
    const sectionId = (await db('sections').where({ boardId }).first('id')).id;
    const itemId = newId();
    const integrationId = newId();
    await db('items').insert({ id: itemId, boardId, kind: 'clock' });
    await db('item_layouts').insert({ itemId, sectionId, layoutId, xOffset: 0, yOffset: 0, width: 1, height: 1 });
    await db('integrations').insert({ id: integrationId, name: 'x', kind: 'sonarr', url: 'http://x' });
    await db('integration_items').insert({ itemId, integrationId });
    await db('section_collapse_states').insert({ userId: user.userId, sectionId, collapsed: true });

    expect(await server.call('DELETE', `/api/boards/${boardId}`)).toMatchObject({ status: 204, body: undefined });

    expect(await boardRow(server, boardId)).toBeUndefined();
    for (const [table, where] of [
      ['layouts', { boardId }],
      ['sections', { boardId }],
      ['items', { boardId }],
      ['item_layouts', { itemId }],
      ['integration_items', { itemId }],
      ['section_collapse_states', { sectionId }],
      ['board_user_permissions', { boardId }],
      ['board_group_permissions', { boardId }],
    ] as const) {
      expect([table, await db(table).where(where)]).toEqual([table, []]);
    }
    expect(await db('users').where({ id: user.userId }).first('homeBoardId', 'mobileHomeBoardId')).toEqual({ homeBoardId: null, mobileHomeBoardId: null });
    expect(await db('groups').where({ id: user.groupId }).first('homeBoardId', 'mobileHomeBoardId')).toEqual({ homeBoardId: null, mobileHomeBoardId: null });
    // The server default naming the board is cleared; the other one is kept.
    expect(await serverSettings()).toMatchObject({ homeBoardId: null, mobileHomeBoardId: other });
    // The integration itself and the other board survive.
    expect(await db('integrations').where({ id: integrationId }).first('id')).toBeDefined();
    expect(await boardRow(server, other)).toBeDefined();
    await server.call('PATCH', '/api/settings/board', { body: { mobileHomeBoardId: null } });
  });

  it('a second delete is 404 `Board not found`', async () => {
    const boardId = await createBoard(server);
    expect((await server.call('DELETE', `/api/boards/${boardId}`)).status).toBe(204);
    expectError(await server.call('DELETE', `/api/boards/${boardId}`), 404, 'NOT_FOUND', 'Board not found');
  });
});

describe('board grants: GET and PUT /api/boards/{id}/permissions', () => {
  it('replaces every row, collapses repeats and reports the saved grants', async () => {
    const boardId = await createBoard(server);
    const a = await createActor(server, { permissions: [] });
    const b = await createActor(server);
    await grantUser(server, boardId, b.userId, 'full');
    await server.db('boards').where({ id: boardId }).update({ version: 4 });
    const before = await boardRow(server, boardId);

    const body = {
      users: [
        { userId: a.userId, permission: 'view' },
        { userId: a.userId, permission: 'view' },
        { userId: a.userId, permission: 'full' },
      ],
      groups: [
        { groupId: a.groupId, permission: 'modify' },
        { groupId: a.groupId, permission: 'modify' },
      ],
    };
    const result = await server.call('PUT', `/api/boards/${boardId}/permissions`, { body });
    expect(result.status).toBe(200);
    const expected = {
      users: [
        { userId: a.userId, permission: 'view' },
        { userId: a.userId, permission: 'full' },
      ],
      groups: [{ groupId: a.groupId, permission: 'modify' }],
    };
    expect(result.body).toEqual(expected);
    expect((await server.call('GET', `/api/boards/${boardId}/permissions`)).body).toEqual(expected);
    // b's row is gone, so b lost access.
    expectError(await server.call('GET', `/api/boards/${boardId}/permissions`, { key: b.key }), 404, 'NOT_FOUND', 'Board not found');
    expect((await server.call('GET', `/api/boards/${boardId}/permissions`, { key: a.key })).status).toBe(200);
    expect(await boardRow(server, boardId)).toMatchObject({ version: 4, revision: before!.revision + 1 });

    const cleared = await server.call('PUT', `/api/boards/${boardId}/permissions`, { body: { users: [], groups: [] } });
    expect(cleared).toMatchObject({ status: 200, body: { users: [], groups: [] } });
    expect(await server.db('board_user_permissions').where({ boardId })).toEqual([]);
  });

  it('answers 400 naming unknown users or groups and writes nothing', async () => {
    const boardId = await createBoard(server);
    const a = await createActor(server, { permissions: [] });
    await grantUser(server, boardId, a.userId, 'view');
    const before = await server.db('board_user_permissions').where({ boardId });
    expectError(
      await server.call('PUT', `/api/boards/${boardId}/permissions`, {
        body: { users: [{ userId: 'ghost1', permission: 'view' }, { userId: a.userId, permission: 'full' }, { userId: 'ghost2', permission: 'full' }], groups: [] },
      }),
      400,
      'BAD_REQUEST',
      'Unknown user ids: ghost1, ghost2',
    );
    expectError(
      await server.call('PUT', `/api/boards/${boardId}/permissions`, { body: { users: [], groups: [{ groupId: 'ghostgroup', permission: 'view' }] } }),
      400,
      'BAD_REQUEST',
      'Unknown group ids: ghostgroup',
    );
    expect(await server.db('board_user_permissions').where({ boardId })).toEqual(before);
  });

  it.each([
    ['a bad level', { users: [{ userId: 'x', permission: 'owner' }], groups: [] }],
    ['a missing groups array', { users: [] }],
    ['an extra property', { users: [], groups: [], everyone: 'view' }],
    ['a bad id', { users: [{ userId: 'has space', permission: 'view' }], groups: [] }],
  ])('answers 400 for %s', async (_label, body) => {
    const boardId = await createBoard(server);
    expectError(await server.call('PUT', `/api/boards/${boardId}/permissions`, { body }), 400, 'BAD_REQUEST', 'Input validation failed');
  });
});

describe('server-wide board settings', () => {
  it('starts at the defaults', async () => {
    expect(await serverSettings()).toEqual({ homeBoardId: null, mobileHomeBoardId: null, enableStatusByDefault: true, forceDisableStatus: false });
  });

  it('merges a patch over the stored settings and returns the merged object', async () => {
    const publicBoard = await createBoard(server, { isPublic: true });
    const first = await server.call('PATCH', '/api/settings/board', { body: { homeBoardId: publicBoard, forceDisableStatus: true } });
    expect(first).toMatchObject({
      status: 200,
      body: { homeBoardId: publicBoard, mobileHomeBoardId: null, enableStatusByDefault: true, forceDisableStatus: true },
    });
    const second = await server.call('PATCH', '/api/settings/board', { body: { enableStatusByDefault: false } });
    expect(second.body).toEqual({ homeBoardId: publicBoard, mobileHomeBoardId: null, enableStatusByDefault: false, forceDisableStatus: true });
    expect(await serverSettings()).toEqual(second.body);
    const empty = await server.call('PATCH', '/api/settings/board', { body: {} });
    expect(empty).toMatchObject({ status: 200, body: second.body });
    await server.call('PATCH', '/api/settings/board', { body: { homeBoardId: null, enableStatusByDefault: true, forceDisableStatus: false } });
  });

  it('refuses home board ids that are private or missing, listing them, and writes nothing', async () => {
    const privateBoard = await createBoard(server, { isPublic: false });
    const publicBoard = await createBoard(server, { isPublic: true });
    const before = await serverSettings();
    expectError(
      await server.call('PATCH', '/api/settings/board', { body: { homeBoardId: privateBoard, mobileHomeBoardId: 'nosuchboard', forceDisableStatus: true } }),
      400,
      'BAD_REQUEST',
      `Board settings home board IDs must reference public boards: ${privateBoard}, nosuchboard`,
    );
    expectError(
      await server.call('PATCH', '/api/settings/board', { body: { homeBoardId: publicBoard, mobileHomeBoardId: privateBoard } }),
      400,
      'BAD_REQUEST',
      `Board settings home board IDs must reference public boards: ${privateBoard}`,
    );
    expect(await serverSettings()).toEqual(before);
  });

  it('concurrent patches of different fields both land', async () => {
    const results = await Promise.all([
      server.call('PATCH', '/api/settings/board', { body: { forceDisableStatus: true } }),
      server.call('PATCH', '/api/settings/board', { body: { enableStatusByDefault: false } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(await serverSettings()).toMatchObject({ forceDisableStatus: true, enableStatusByDefault: false });
    await server.call('PATCH', '/api/settings/board', { body: { forceDisableStatus: false, enableStatusByDefault: true } });
  });

  it.each([
    ['an unknown field', { theme: 'dark' }],
    ['a non-boolean flag', { forceDisableStatus: 'true' }],
    ['a malformed id', { homeBoardId: 'has space' }],
  ])('answers 400 for %s', async (_label, body) => {
    expectError(await server.call('PATCH', '/api/settings/board', { body }), 400, 'BAD_REQUEST', 'Input validation failed');
  });

  it('is admin only: board-full-all is not enough', async () => {
    const fullAll = await createActor(server, { permissions: ['board-full-all'] });
    expectError(await server.call('GET', '/api/settings/board', { key: fullAll.key }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(
      await server.call('PATCH', '/api/settings/board', { key: fullAll.key, body: { forceDisableStatus: true } }),
      403,
      'FORBIDDEN',
      'Permission denied',
    );
    expectError(await server.call('GET', '/api/settings/board', { key: null }), 401, 'UNAUTHORIZED');
  });
});

describe('names across routes', () => {
  it('a board renamed away frees its old name for a new board', async () => {
    const name = unique('Free');
    const boardId = await createBoard(server, { name });
    expect((await server.call('PATCH', `/api/boards/${boardId}/name`, { body: { name: unique('board-') } })).status).toBe(204);
    expect((await server.call('POST', '/api/boards', { body: { name: name.toLowerCase(), columnCount: 2, isPublic: false } })).status).toBe(201);
  });
});
