import { unique } from '../support/unique';
import { newId } from '../../src/db/ids';
import { withNameConflictAs409 } from '../../src/boards/management/names';
import { ApiError } from '../../src/core/errors';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { boardRow, createBoard, expectError, grantGroup, grantUser } from './fixtures';
import { countQueries } from '../support/queries';

// HOOK-12: no webhook delivery rounds on this instance, whose queries would be counted with a route's.
const server = useTestServer({ WEBHOOK_POLL_MS: '0' });

async function boardCount(): Promise<number> {
  return Number((await server.db('boards').count({ n: '*' }))[0].n);
}

describe('POST /api/boards', () => {
  it('creates the board with one empty section and the layout Base at breakpoint 0, in creation defaults', async () => {
    const actor = await createActor(server, { permissions: ['board-create'] });
    const name = unique('Home_Lab');
    const result = await server.call('POST', '/api/boards', { key: actor.key, body: { name, columnCount: 7, isPublic: true } });
    expect(result.status).toBe(201);
    expect(result.body).toEqual({ boardId: expect.stringMatching(/^[a-z][a-z0-9]{23}$/) });
    const boardId = result.body.boardId;

    const board = await boardRow(server, boardId);
    expect(board).toMatchObject({
      name,
      isPublic: true,
      creatorId: actor.userId,
      version: 0,
      pageTitle: null,
      backgroundImageAttachment: 'fixed',
      backgroundImageRepeat: 'no-repeat',
      backgroundImageSize: 'cover',
      primaryColor: '#fa5252',
      secondaryColor: '#fd7e14',
      opacity: 100,
      itemRadius: 'lg',
      disableStatus: false,
    });
    const sections = await server.db('sections').where({ boardId });
    expect(sections).toEqual([expect.objectContaining({ kind: 'empty', xOffset: 0, yOffset: 0, name: null })]);
    const layouts = await server.db('layouts').where({ boardId });
    expect(layouts).toEqual([expect.objectContaining({ name: 'Base', columnCount: 7, breakpoint: 0 })]);
    // No grant rows: the creator has full access by being the creator.
    expect(await server.db('board_user_permissions').where({ boardId })).toEqual([]);
  });

  it("sets the creator's home board when it has none, and leaves an existing one alone", async () => {
    const actor = await createActor(server, { permissions: ['board-create'] });
    const first = await createBoard(server, { key: actor.key });
    expect(await server.db('users').where({ id: actor.userId }).first('homeBoardId', 'mobileHomeBoardId')).toEqual({
      homeBoardId: first,
      mobileHomeBoardId: null,
    });
    await createBoard(server, { key: actor.key });
    expect((await server.db('users').where({ id: actor.userId }).first('homeBoardId')).homeBoardId).toBe(first);
  });

  it.each([
    ['an empty name', { name: '', columnCount: 1, isPublic: false }],
    ['a space', { name: 'my board', columnCount: 1, isPublic: false }],
    ['a dot', { name: 'my.board', columnCount: 1, isPublic: false }],
    ['a non-ASCII letter', { name: 'über', columnCount: 1, isPublic: false }],
    ['256 characters', { name: 'a'.repeat(256), columnCount: 1, isPublic: false }],
    ['columnCount 0', { name: 'ok-name', columnCount: 0, isPublic: false }],
    ['columnCount 25', { name: 'ok-name', columnCount: 25, isPublic: false }],
    ['a fractional columnCount', { name: 'ok-name', columnCount: 1.5, isPublic: false }],
    ['a huge columnCount', { name: 'ok-name', columnCount: 2 ** 40, isPublic: false }],
    ['a missing isPublic', { name: 'ok-name', columnCount: 3 }],
    ['a missing name', { columnCount: 3, isPublic: true }],
    ['a missing columnCount', { name: 'ok-name', isPublic: true }],
    ['a string isPublic', { name: 'ok-name', columnCount: 3, isPublic: 'yes' }],
    ['an unknown property', { name: 'ok-name', columnCount: 3, isPublic: true, owner: 'x' }],
  ])('answers 400 for %s and writes nothing', async (_label, body) => {
    const before = await boardCount();
    expectError(await server.call('POST', '/api/boards', { body }), 400, 'BAD_REQUEST', 'Input validation failed');
    expect(await boardCount()).toBe(before);
  });

  it('accepts 255 characters of letters, digits, hyphen and underscore, and columnCount 1 and 24', async () => {
    const long = ('Ab9-_' + 'x'.repeat(250)).slice(0, 255);
    expect((await server.call('POST', '/api/boards', { body: { name: long, columnCount: 1, isPublic: false } })).status).toBe(201);
    expect((await server.call('POST', '/api/boards', { body: { name: unique('board-'), columnCount: 24, isPublic: false } })).status).toBe(201);
  });

  it.each([['the same name'], ['an upper-case variant'], ['a mixed-case variant']])(
    'answers 409 for %s of an existing board and writes nothing',
    async (variant) => {
      const name = unique('Taken');
      await createBoard(server, { name });
      const clash = variant === 'the same name' ? name : variant === 'an upper-case variant' ? name.toUpperCase() : name.toLowerCase();
      const before = await boardCount();
      expectError(
        await server.call('POST', '/api/boards', { body: { name: clash, columnCount: 4, isPublic: false } }),
        409,
        'CONFLICT',
        'Board with similar name already exists',
      );
      expect(await boardCount()).toBe(before);
    },
  );

  it('lets exactly one of two simultaneous creates with the same name win; the other gets 409', async () => {
    for (let round = 0; round < 3; round++) {
      const name = unique('race');
      const results = await Promise.all([
        server.call('POST', '/api/boards', { body: { name, columnCount: 4, isPublic: false } }),
        server.call('POST', '/api/boards', { body: { name: name.toUpperCase(), columnCount: 4, isPublic: false } }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      const loser = results.find((r) => r.status === 409)!;
      expectError(loser, 409, 'CONFLICT', 'Board with similar name already exists');
      expect(await server.db('boards').whereRaw('lower(name) = lower(?)', [name])).toHaveLength(1);
    }
  });

  it('turns a violation of the lower(name) index into the 409 (the path a lost race takes)', async () => {
    const name = unique('Indexed');
    await createBoard(server, { name });
    const write = withNameConflictAs409(() => server.db('boards').insert({ id: newId(), name: name.toLowerCase() }));
    await expect(write).rejects.toBeInstanceOf(ApiError);
    await expect(withNameConflictAs409(() => server.db('boards').insert({ id: newId(), name: name.toUpperCase() }))).rejects.toMatchObject({
      status: 409,
      code: 'CONFLICT',
      message: 'Board with similar name already exists',
    });
  });
});

describe('PATCH /api/boards/{id}/name', () => {
  it('renames without touching the version, and bumps the revision', async () => {
    const boardId = await createBoard(server);
    await server.db('boards').where({ id: boardId }).update({ version: 5 });
    const before = await boardRow(server, boardId);
    const name = unique('Renamed');
    expect(await server.call('PATCH', `/api/boards/${boardId}/name`, { body: { name } })).toMatchObject({ status: 204, body: undefined });
    const after = await boardRow(server, boardId);
    expect(after).toMatchObject({ name, version: 5, revision: before!.revision + 1 });
  });

  it('answers 409 when another board has the name in any letter case, and writes nothing', async () => {
    const taken = unique('newName');
    await createBoard(server, { name: taken });
    const boardId = await createBoard(server);
    const before = await boardRow(server, boardId);
    for (const clash of [taken, taken.toUpperCase(), 'N' + taken.slice(1)]) {
      expectError(
        await server.call('PATCH', `/api/boards/${boardId}/name`, { body: { name: clash } }),
        409,
        'CONFLICT',
        'Board with similar name already exists',
      );
    }
    expect(await boardRow(server, boardId)).toEqual(before);
  });

  it("allows changing the letter case of the board's own name", async () => {
    const name = unique('mine');
    const boardId = await createBoard(server, { name });
    expect((await server.call('PATCH', `/api/boards/${boardId}/name`, { body: { name: name.toUpperCase() } })).status).toBe(204);
    expect((await boardRow(server, boardId))!.name).toBe(name.toUpperCase());
  });

  it.each([['bad name'], ['a.b'], [''], ['x'.repeat(256)]])('answers 400 for the name %p', async (name) => {
    const boardId = await createBoard(server);
    expectError(await server.call('PATCH', `/api/boards/${boardId}/name`, { body: { name } }), 400, 'BAD_REQUEST', 'Input validation failed');
  });
});

describe('GET /api/boards', () => {
  it('describes each board with its creator, home flags and the caller’s own rows', async () => {
    const creator = await createActor(server, { permissions: ['board-create'] });
    await server.db('users').where({ id: creator.userId }).update({ email: 'creator@example.com' });
    const viewer = await createActor(server, { permissions: [] });
    const otherGroup = (await createActor(server, { permissions: [] })).groupId!;
    const boardId = await createBoard(server, { key: creator.key });
    await grantUser(server, boardId, viewer.userId, 'view');
    await grantUser(server, boardId, viewer.userId, 'modify');
    await grantGroup(server, boardId, viewer.groupId!, 'view');
    await grantGroup(server, boardId, otherGroup, 'full');
    await server.call('PATCH', `/api/boards/${boardId}/mobile-home`, { key: viewer.key });

    const list = await server.call('GET', '/api/boards', { key: viewer.key });
    expect(list.status).toBe(200);
    expect(list.body.filter((b: { isPublic: boolean }) => !b.isPublic)).toEqual([
      {
        id: boardId,
        name: expect.any(String),
        logoImageUrl: null,
        isPublic: false,
        // FLEET-1: no source manages a board made through the API.
        managedBy: null,
        // PRIV-1: the creator's e-mail is the creator's and the admins' to see.
        creator: { id: creator.userId, name: creator.username, image: null, email: null },
        isHome: false,
        isMobileHome: true,
        userPermissions: [{ permission: 'modify' }, { permission: 'view' }],
        // Only rows of the caller's own groups, never another group's row.
        groupPermissions: [{ permission: 'view' }],
      },
    ]);

    const creatorView = (await server.call('GET', '/api/boards', { key: creator.key })).body.find((b: { id: string }) => b.id === boardId);
    expect(creatorView).toMatchObject({ isHome: true, isMobileHome: false, userPermissions: [], groupPermissions: [] });
    expect(creatorView.creator.email).toBe('creator@example.com');
  });

  it('never shows other groups’ rows to a caller without groups (the upstream quirk is not copied)', async () => {
    const loner = await createActor(server);
    const someGroup = (await createActor(server, { permissions: [] })).groupId!;
    const boardId = await createBoard(server, { isPublic: true });
    await grantGroup(server, boardId, someGroup, 'full');
    const entry = (await server.call('GET', '/api/boards', { key: loner.key })).body.find((b: { id: string }) => b.id === boardId);
    expect(entry).toMatchObject({ userPermissions: [], groupPermissions: [] });
    const anonymous = (await server.call('GET', '/api/boards', { key: null })).body.find((b: { id: string }) => b.id === boardId);
    expect(anonymous).toMatchObject({ isHome: false, isMobileHome: false, userPermissions: [], groupPermissions: [] });
  });

  it('shows anonymous callers public boards only, in creation order', async () => {
    const publicA = await createBoard(server, { isPublic: true });
    const privateB = await createBoard(server, { isPublic: false });
    const publicC = await createBoard(server, { isPublic: true });
    const list = await server.call('GET', '/api/boards', { key: null });
    expect(list.status).toBe(200);
    const ids = list.body.map((b: { id: string }) => b.id);
    expect(ids).not.toContain(privateB);
    expect(ids.indexOf(publicA)).toBeLessThan(ids.indexOf(publicC));
    expect(list.body.every((b: { isPublic: boolean }) => b.isPublic)).toBe(true);
  });

  it('shows everything to board-view-all, in creation order', async () => {
    const all = await createActor(server, { permissions: ['board-view-all'] });
    const list = await server.call('GET', '/api/boards', { key: all.key });
    const expected = await server.db('boards').orderBy(['createdAt', 'id']).pluck('id');
    expect(list.body.map((b: { id: string }) => b.id)).toEqual(expected);
  });

  it('shows a board whose creator was deleted with a null creator', async () => {
    const creator = await createActor(server, { permissions: ['board-create'] });
    const boardId = await createBoard(server, { key: creator.key });
    expect((await server.call('DELETE', `/api/users/${creator.userId}`)).status).toBe(204);
    const entry = (await server.call('GET', '/api/boards')).body.find((b: { id: string }) => b.id === boardId);
    expect(entry.creator).toBeNull();
  });

  it('answers 401 for an invalid key instead of falling back to anonymous', async () => {
    expectError(await server.call('GET', '/api/boards', { key: `nosuchkey.${'a'.repeat(48)}` }), 401, 'UNAUTHORIZED');
  });

  it('runs a fixed number of queries whatever the number of boards', async () => {
    const actor = await createActor(server, { permissions: ['board-create'] });
    const listQueries = () =>
      countQueries(server, async () => expect((await server.call('GET', '/api/boards', { key: actor.key })).status).toBe(200));
    await createBoard(server, { key: actor.key });
    const few = await listQueries();
    for (let i = 0; i < 5; i++) {
      const id = await createBoard(server, { key: actor.key });
      await grantUser(server, id, actor.userId, 'view');
    }
    expect(await listQueries()).toBe(few);
  });
});
