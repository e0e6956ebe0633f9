/**
 * Every board management route x every kind of caller, on a fresh private board per case. Asserts the status
 * the spec implies (board permission failures are 404 `Board not found`, missing global permissions 403
 * `Permission denied`, anonymous writes 401) and that a refused request wrote nothing.
 */
import { unique } from '../support/unique';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { createBoard, expectError, grantGroup, grantUser } from './fixtures';

type ActorName =
  | 'anonymous'
  | 'plain'
  | 'noGrant'
  | 'view'
  | 'modify'
  | 'full'
  | 'groupModify'
  | 'creator'
  | 'boardViewAll'
  | 'boardModifyAll'
  | 'boardFullAll'
  | 'admin'
  | 'scopedKey';

const actorNames: ActorName[] = [
  'anonymous',
  'plain',
  'noGrant',
  'view',
  'modify',
  'full',
  'groupModify',
  'creator',
  'boardViewAll',
  'boardModifyAll',
  'boardFullAll',
  'admin',
  'scopedKey',
];

/** Who passes each board level on a private board (the scoped key is an admin's key narrowed to board-view-all). */
const viewers = new Set<ActorName>(['view', 'modify', 'full', 'groupModify', 'creator', 'boardViewAll', 'boardModifyAll', 'boardFullAll', 'admin', 'scopedKey']);
const modifiers = new Set<ActorName>(['modify', 'full', 'groupModify', 'creator', 'boardModifyAll', 'boardFullAll', 'admin']);
const fullHolders = new Set<ActorName>(['full', 'creator', 'boardFullAll', 'admin']);
/** Holders of board-create (directly, through board-full-all or admin). */
const boardCreators = new Set<ActorName>(['noGrant', 'view', 'modify', 'full', 'groupModify', 'creator', 'boardFullAll', 'admin']);

interface Actor {
  key: string | null;
  userId: string | null;
  groupId: string | null;
}

interface Route {
  name: string;
  request: (boardId: string) => { method: string; path: string; body?: unknown };
  /** Expected status for a non-anonymous caller. */
  expect: (actor: ActorName) => number;
}

const board404 = (allowed: Set<ActorName>, ok: number) => (actor: ActorName) => (allowed.has(actor) ? ok : 404);

const server = useTestServer();
const actors = {} as Record<ActorName, Actor>;
let viewActorId: string;

const routes: Route[] = [
  { name: 'GET /api/boards', request: () => ({ method: 'GET', path: '/api/boards' }), expect: () => 200 },
  {
    name: 'POST /api/boards',
    request: () => ({ method: 'POST', path: '/api/boards', body: { name: unique('new'), columnCount: 10, isPublic: false } }),
    expect: (actor) => (boardCreators.has(actor) ? 201 : 403),
  },
  {
    name: 'POST /api/boards/{id}/duplicate',
    request: (id) => ({ method: 'POST', path: `/api/boards/${id}/duplicate`, body: { name: unique('copy') } }),
    expect: (actor) => (!boardCreators.has(actor) ? 403 : viewers.has(actor) ? 201 : 404),
  },
  {
    name: 'PATCH /api/boards/{id}/name',
    request: (id) => ({ method: 'PATCH', path: `/api/boards/${id}/name`, body: { name: unique('renamed') } }),
    expect: board404(fullHolders, 204),
  },
  {
    name: 'PATCH /api/boards/{id}/visibility',
    request: (id) => ({ method: 'PATCH', path: `/api/boards/${id}/visibility`, body: { visibility: 'public' } }),
    expect: board404(fullHolders, 204),
  },
  {
    name: 'PATCH /api/boards/{id}/settings',
    request: (id) => ({ method: 'PATCH', path: `/api/boards/${id}/settings`, body: { pageTitle: 'Changed', opacity: 50 } }),
    expect: board404(modifiers, 204),
  },
  { name: 'PATCH /api/boards/{id}/home', request: (id) => ({ method: 'PATCH', path: `/api/boards/${id}/home` }), expect: board404(viewers, 204) },
  {
    name: 'PATCH /api/boards/{id}/mobile-home',
    request: (id) => ({ method: 'PATCH', path: `/api/boards/${id}/mobile-home` }),
    expect: board404(viewers, 204),
  },
  { name: 'DELETE /api/boards/{id}', request: (id) => ({ method: 'DELETE', path: `/api/boards/${id}` }), expect: board404(fullHolders, 204) },
  {
    name: 'GET /api/boards/{id}/permissions',
    request: (id) => ({ method: 'GET', path: `/api/boards/${id}/permissions` }),
    expect: board404(fullHolders, 200),
  },
  {
    name: 'PUT /api/boards/{id}/permissions',
    request: (id) => ({ method: 'PUT', path: `/api/boards/${id}/permissions`, body: { users: [{ userId: viewActorId, permission: 'modify' }], groups: [] } }),
    expect: board404(fullHolders, 200),
  },
  {
    name: 'GET /api/settings/board',
    request: () => ({ method: 'GET', path: '/api/settings/board' }),
    expect: (actor) => (actor === 'admin' ? 200 : 403),
  },
  {
    name: 'PATCH /api/settings/board',
    request: () => ({ method: 'PATCH', path: '/api/settings/board', body: { forceDisableStatus: false } }),
    expect: (actor) => (actor === 'admin' ? 200 : 403),
  },
];

beforeAll(async () => {
  const make = async (options: Parameters<typeof createActor>[1]): Promise<Actor> => {
    const actor = await createActor(server, options);
    return { key: actor.key, userId: actor.userId, groupId: actor.groupId };
  };
  actors.anonymous = { key: null, userId: null, groupId: null };
  actors.plain = await make({});
  actors.noGrant = await make({ permissions: ['board-create'] });
  actors.view = await make({ permissions: ['board-create'] });
  actors.modify = await make({ permissions: ['board-create'] });
  actors.full = await make({ permissions: ['board-create'] });
  actors.groupModify = await make({ permissions: ['board-create'] });
  actors.creator = await make({ permissions: ['board-create'] });
  actors.boardViewAll = await make({ permissions: ['board-view-all'] });
  actors.boardModifyAll = await make({ permissions: ['board-modify-all'] });
  actors.boardFullAll = await make({ permissions: ['board-full-all'] });
  actors.admin = await make({ permissions: ['admin'] });
  actors.scopedKey = await make({ permissions: ['admin'], scopes: ['board-view-all'] });
  viewActorId = actors.view.userId!;
});

/** A private board created by `creator`, with user rows for view/modify/full and a modify row for the group. */
async function freshBoard(): Promise<string> {
  const boardId = await createBoard(server, { key: actors.creator.key! });
  await grantUser(server, boardId, actors.view.userId!, 'view');
  await grantUser(server, boardId, actors.modify.userId!, 'modify');
  await grantUser(server, boardId, actors.full.userId!, 'full');
  await grantGroup(server, boardId, actors.groupModify.groupId!, 'modify');
  return boardId;
}

/** Everything a refused request must leave untouched. */
async function snapshot(boardId: string) {
  const db = server.db;
  return {
    board: await db('boards').where({ id: boardId }).first(),
    boardCount: (await db('boards').count({ n: '*' }))[0].n,
    homes: await db('users').orderBy('id').select('id', 'homeBoardId', 'mobileHomeBoardId'),
    userRows: await db('board_user_permissions').where({ boardId }).orderBy(['userId', 'permission']),
    groupRows: await db('board_group_permissions').where({ boardId }).orderBy(['groupId', 'permission']),
    settings: await db('server_settings').orderBy('key'),
  };
}

const cases = routes.flatMap((route) => actorNames.map((actor) => [route.name, actor, route] as const));

describe('permission matrix of the board management routes', () => {
  it.each(cases)('%s as %s', async (_name, actorName, route) => {
    const boardId = await freshBoard();
    const actor = actors[actorName];
    const { method, path, body } = route.request(boardId);
    const before = await snapshot(boardId);
    const result = await server.call(method, path, { key: actor.key, body });

    const expected = actorName === 'anonymous' && route.name !== 'GET /api/boards' ? 401 : route.expect(actorName);
    if (expected >= 400) {
      if (expected === 401) expectError(result, 401, 'UNAUTHORIZED');
      else if (expected === 403) expectError(result, 403, 'FORBIDDEN', 'Permission denied');
      else expectError(result, 404, 'NOT_FOUND', 'Board not found');
      expect(await snapshot(boardId)).toEqual(before);
      return;
    }
    // The body rides along so that a failure shows the error.
    expect({ status: result.status, body: result.body }).toEqual({ status: expected, body: result.body });
    if (route.name === 'GET /api/boards') {
      const listed = (result.body as { id: string }[]).some((b) => b.id === boardId);
      expect(listed).toBe(viewers.has(actorName));
    }
  });

  it('anonymous callers and callers without a grant see a public board, but cannot change it', async () => {
    const boardId = await createBoard(server, { key: actors.creator.key!, isPublic: true });
    const anonymousList = await server.call('GET', '/api/boards', { key: null });
    expect(anonymousList.body.map((b: { id: string }) => b.id)).toContain(boardId);
    expect((await server.call('PATCH', `/api/boards/${boardId}/home`, { key: actors.noGrant.key })).status).toBe(204);
    expect((await server.call('PATCH', `/api/boards/${boardId}/home`, { key: null })).status).toBe(401);
    expectError(
      await server.call('PATCH', `/api/boards/${boardId}/settings`, { key: actors.noGrant.key, body: { pageTitle: 'x' } }),
      404,
      'NOT_FOUND',
      'Board not found',
    );
    expectError(await server.call('DELETE', `/api/boards/${boardId}`, { key: actors.noGrant.key }), 404, 'NOT_FOUND', 'Board not found');
    const duplicated = await server.call('POST', `/api/boards/${boardId}/duplicate`, { key: actors.noGrant.key, body: { name: unique('board-') } });
    expect(duplicated.status).toBe(201);
  });

  it('a group full row grants full access and a group view row only view access', async () => {
    const fullBoard = await createBoard(server, { key: actors.creator.key! });
    await grantGroup(server, fullBoard, actors.groupModify.groupId!, 'full');
    expect((await server.call('PATCH', `/api/boards/${fullBoard}/name`, { key: actors.groupModify.key, body: { name: unique('board-') } })).status).toBe(204);

    const viewBoard = await createBoard(server, { key: actors.creator.key! });
    await grantGroup(server, viewBoard, actors.groupModify.groupId!, 'view');
    expect((await server.call('PATCH', `/api/boards/${viewBoard}/home`, { key: actors.groupModify.key })).status).toBe(204);
    expectError(
      await server.call('PATCH', `/api/boards/${viewBoard}/settings`, { key: actors.groupModify.key, body: { opacity: 1 } }),
      404,
      'NOT_FOUND',
      'Board not found',
    );
  });

  it('a missing board is 404 `Board not found` even for an admin', async () => {
    for (const route of routes.filter((r) => r.request('x').path.includes('/x'))) {
      const { method, path, body } = route.request('nosuchboard');
      expectError(await server.call(method, path, { body }), 404, 'NOT_FOUND', 'Board not found');
    }
  });

  it('a grant on another board gives nothing on this one', async () => {
    const boardId = await createBoard(server, { key: actors.creator.key! });
    expectError(await server.call('GET', `/api/boards/${boardId}/permissions`, { key: actors.full.key }), 404, 'NOT_FOUND', 'Board not found');
  });
});
