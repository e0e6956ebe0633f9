/**
 * MOCK-1: what `npm run mock` answers to `Prefer: code=<status>` is what the server answers. For every operation and
 * declared error status that a request can provoke, the same request goes to a real test server and to the Prism mock
 * (with `Prefer: code=<status>`, nothing else: no example name), and status, `message` and `code` must be equal (ids
 * inside messages compared as shapes). Every declared pair is either compared here or listed in `notProvokable` with
 * the reason: an operation or status added to the document without either fails the completeness test.
 */
import { readFileSync } from 'node:fs';
import { listOperations, Operation } from '../fuzz/openapi';
import { Request, validRequest } from '../fuzz/runner';
import { createActor } from '../support/actors';
import { RunningPrism, specFile, startPrism } from '../support/prism';
import { call, CallOptions, CallResult, useTestServer } from '../support/server';

const document = JSON.parse(readFileSync(specFile, 'utf8'));
const operations = listOperations(document);
const mockKey = 'mockkey.0123456789abcdef0123456789abcdef';
const missingId = 'zq0000000000000000000000';
const bodyLimit = 10 * 1024 * 1024;

const nameOf = (op: Operation) => `${op.method.toUpperCase()} ${op.path}`;
const errorStatuses = (op: Operation) => Object.keys(op.responses).filter((status) => Number(status) >= 400);

/** Pairs no client request can provoke on a healthy server, by status for every operation or by `<op> <status>`. */
const notProvokable: Record<string, string> = {
  '500': 'an unexpected server fault: never the answer to a request (ERR-2); test/faults provokes it by breaking the server',
  '503': 'the database is unreachable or the instance is shutting down: a server state, not a request (test/faults)',
  'DELETE /api/boards/{id}/items/{itemId} 409': 'only a concurrent write between the read and the save of this one request (a race, CONC-2)',
  'PATCH /api/boards/{id}/items/{itemId} 409': 'only a concurrent write between the read and the save of this one request (a race, CONC-2)',
  'DELETE /api/boards/{id}/sections/{sectionId} 409': 'only a concurrent write between the read and the save of this one request (a race, CONC-2)',
  'PATCH /api/boards/{id}/sections/{sectionId} 409': 'only a concurrent write between the read and the save of this one request (a race, CONC-2)',
};

/**
 * Pairs a request can provoke that this file does not compare yet, with what provokes them. They are listed so that
 * the completeness test keeps new operations honest; each one taken out of here gets a scenario below.
 */
const notComparedYet: Record<string, string> = {};
const boardRouteForbidden = 'a binding to an integration the caller may not use (PUT, plan, restore, items), or full access short of a grant';
/** Board writes whose only 403 is the refusal of a cross-site cookie write (a missing permission is a 404, BOARD-3). */
function crossSiteOnly(op: Operation): boolean {
  const binds = ['PUT /api/boards/{id}', 'POST /api/boards/{id}/plan', 'POST /api/boards/{id}/restore', 'POST /api/boards/items', 'PATCH /api/boards/{id}/items/{itemId}'];
  return op.path.startsWith('/api/boards/{id}') && op.method !== 'get' && !binds.includes(nameOf(op)) && op.path !== '/api/boards/{id}/duplicate';
}
const noParameterToBreak = 'no parameter or body to break: the server ignores unknown query parameters and bodies of GET';
for (const op of listOperations(document)) {
  const name = `${op.method.toUpperCase()} ${op.path}`;
  if (/^\/api\/boards\/(\{id\}|items)/.test(op.path) && op.responses['403'] && !crossSiteOnly(op)) notComparedYet[`${name} 403`] = boardRouteForbidden;
  if (op.path.startsWith('/api/trpc/')) for (const status of Object.keys(op.responses)) notComparedYet[`${name} ${status}`] = 'tRPC error envelopes ({error: {message, code, data}}): not compared yet';
  if (!op.path.startsWith('/api/') || op.path === '/api/docs' || op.path === '/api/openapi.json') for (const status of ['400', '401', '404']) if (op.responses[status]) notComparedYet[`${name} ${status}`] = 'an HTML or static page answer, not an error body';
  if (op.responses['400'] && !op.body && !op.parameters.some((p) => p.in === 'path' || p.schema.type === 'integer' || p.schema.enum)) notComparedYet[`${name} 400`] ??= noParameterToBreak;
}
Object.assign(notComparedYet, {
  'PATCH /api/boards/{id}/layouts 412': 'an If-Match that is not the board\'s ETag on a body the server accepts up to that check: not written yet',
  'POST /api/boards/{id}/layouts/plan 412': 'an If-Match that is not the board\'s ETag on a body the server accepts up to that check: not written yet',
  'POST /api/boards/{id}/restore 412': 'an If-Match that is not the board\'s ETag on a body the server accepts up to that check: not written yet',
  'DELETE /api/boards/{id}/items/{itemId} 412': 'an If-Match that is not the board\'s ETag, on an item of the board: not written yet',
  'PATCH /api/boards/{id}/items/{itemId} 412': 'an If-Match that is not the board\'s ETag, on an item of the board: not written yet',
  'POST /api/auth/login 429': 'the eleventh failed login of a username within the window (test/identity/loginThrottle)',
  'GET /api/boards/{id}/events 429': 'too many open event streams of one caller (test/boards-events)',
  'POST /api/mcp 406': 'an Accept header without application/json and text/event-stream: not an error body of the REST shape',
  'POST /api/mcp/mcp 406': 'an Accept header without application/json and text/event-stream: not an error body of the REST shape',
  'POST /api/auth/logout 400': 'a logout body is ignored: no request found that provokes it',
  'POST /api/auth/logout 401': 'logout without a session answers 204 (it is idempotent): no request found that provokes it',
  'POST /api/auth/logout 403': 'a cookie session logout marked cross-site',
  'DELETE /api/api-keys/{keyId} 403': "revoking another user's key without admin, or a key holding more than the caller's",
  'POST /api/boards/import 403': 'an import without board-create, or over a board without full access',
  'POST /api/boards/import 404': 'an import with onConflict=replace over a board the caller may not see',
  'POST /api/boards/import 409': 'an import over an existing name with onConflict=fail',
  'POST /api/boards/apply 403': 'a set with a new board and a caller without board-create, or a prune of a board without full access (test/fleet/apply)',
  'POST /api/boards/apply 404': 'a set naming a board the caller may not write (test/fleet/apply)',
  'POST /api/boards/apply 409': 'a set with a stale board, or a board another source manages (test/fleet/apply)',
  'GET /api/boards/{id}/drift 409': 'a provisioned board whose file cannot be read now (needs a provisioning directory)',
  'DELETE /api/boards/{id} 409': 'a board provisioned with allowApiUpdates false (test/fleet/provisioning)',
  'POST /api/boards/items 409': 'a board provisioned with allowApiUpdates false (test/fleet/provisioning)',
  'PATCH /api/boards/{id}/layouts 409': 'a board provisioned with allowApiUpdates false (test/fleet/provisioning)',
  'PATCH /api/boards/{id}/visibility 409': 'a board provisioned with allowApiUpdates false (test/fleet/provisioning)',
  'PATCH /api/boards/{id}/settings 409': 'a board provisioned with allowApiUpdates false (test/fleet/provisioning)',
  'DELETE /api/users/{userId} 409': 'deleting the last user holding admin (ADMIN-1; test/identity/last-admin): the fixture keeps its admin',
  'DELETE /api/groups/{groupId} 409': 'deleting the last group granting admin (ADMIN-1; test/identity/last-admin): the fixture keeps its admin',
  'DELETE /api/groups/{groupId}/members/{userId} 409': 'removing the last admin from the last admin group (ADMIN-1; test/identity/last-admin): the fixture keeps its admin',
  'PUT /api/groups/{groupId}/permissions 409': 'taking admin from the last group granting it (ADMIN-1; test/identity/last-admin): the fixture keeps its admin',
  'PATCH /api/apps/{id} 403': 'a caller with use access but not modify access to the app',
  'PATCH /api/apps/{id} 409': 'renaming an app onto the name and href of another',
  'DELETE /api/apps/{id} 403': 'a caller with use access but not full access to the app',
  'GET /api/apps/{id}/permissions 403': 'a caller with use access but not full access to the app',
  'PUT /api/apps/{id}/permissions 403': 'a caller with use access but not full access to the app',
  'DELETE /api/integrations/{id} 403': 'a caller with use access but not full access to the integration',
  'GET /api/integrations/{id}/permissions 403': 'a caller with use access but not full access to the integration',
  'PUT /api/integrations/{id}/permissions 403': 'a caller with use access but not full access to the integration',
});

const server = useTestServer();
let mock: RunningPrism;
beforeAll(async () => {
  mock = await startPrism({ mode: 'mock' });
}, 90_000);
afterAll(async () => {
  await mock?.stop();
});

/** A request of a case: sent to the server as is, and to the mock with `Prefer: code=<status>`. */
interface Probe {
  method: string;
  path: string;
  /** `undefined`: the admin key; null: no credentials; else that key. */
  key?: string | null;
  /** Sent to the server with the session cookie of a user instead of a key (the mock gets its key). */
  session?: boolean;
  headers?: Record<string, string>;
  body?: unknown;
  raw?: string | Uint8Array;
  /** What the mock gets when it cannot see what the server refuses (a body over the server's size limit). */
  mock?: Omit<Probe, 'mock'>;
}

interface Fixture {
  admin: string;
  /** A user without permissions. */
  nobody: string;
  nobodyName: string;
  /** `Cookie` header of a session of that user. */
  session: string;
  groupName: string;
  boardId: string;
  otherBoardName: string;
}

type Scenario = (op: Operation, fixture: Fixture) => Probe | Promise<Probe>;

function sample(op: Operation): Probe {
  const request: Request = validRequest(op);
  const query = new URLSearchParams(request.query).toString();
  return {
    method: request.method.toUpperCase(),
    path: request.path + (query ? `?${query}` : ''),
    headers: request.headers,
    ...(request.hasBody ? { body: request.body } : {}),
  };
}

/** The operation's path with the fixture board in `{id}` (other parameters as sampled). */
function onBoard(op: Operation, fixture: Fixture): Probe {
  const probe = sample(op);
  const [path, query] = probe.path.split('?');
  const sampled = path.split('/');
  const onFixture = op.path.split('/').map((segment, index) => (segment === '{id}' ? fixture.boardId : sampled[index]));
  return { ...probe, path: onFixture.join('/') + (query ? `?${query}` : '') };
}

/** A request the schema refuses: a body of the wrong type, else a path or query parameter that breaks its schema. */
function schemaBreaking(op: Operation): Probe {
  const valid = sample(op);
  if (op.body) return { ...valid, body: [] };
  const [path] = valid.path.split('?');
  const pathParameter = op.parameters.find((p) => p.in === 'path');
  if (pathParameter) {
    const segments = path.split('/');
    const at = op.path.split('/').indexOf(`{${pathParameter.name}}`);
    segments[at] = encodeURIComponent('not valid!');
    return { ...valid, path: segments.join('/') };
  }
  const query = op.parameters.find((p) => p.in === 'query' && (p.schema.type === 'integer' || p.schema.enum))!;
  return { ...valid, path: `${path}?${query.name}=not-valid` };
}

const staleEtag = '"stale-etag"';

/** Scenarios that fit many operations, by status. */
const generic: Record<string, Scenario | undefined> = {
  // An operation open to anonymous callers answers 401 only to credentials that do not authenticate.
  '401': (op) => ({ ...sample(op), key: op.requiresAuth ? null : 'zq0000000000.0000000000000000' }),
  '404': (op) => sample(op),
  '403': (op, fixture) => (crossSiteOnly(op) ? { ...sample(op), session: true, headers: { 'Sec-Fetch-Site': 'cross-site' } } : { ...sample(op), key: fixture.nobody }),
  '415': (op) => ({ ...sample(op), raw: 'not json', headers: { 'Content-Type': 'text/plain' } }),
  '413': (op) => {
    const valid = sample(op);
    return { ...valid, raw: `{"padding":"${'x'.repeat(bodyLimit)}"}`, headers: { ...valid.headers, 'Content-Type': 'application/json' }, mock: valid };
  },
  '400': (op) => schemaBreaking(op),
  '412': (op, fixture) => {
    const probe = onBoard(op, fixture);
    return { ...probe, headers: { ...probe.headers, 'If-Match': staleEtag } };
  },
};

/** Cases of one operation and status, where the generic scenario does not provoke it. */
const specific: Record<string, Scenario> = {
  'PUT /api/boards/{id} 409': async (_op, fixture) => {
    const board = await server.call('GET', `/api/boards/${fixture.boardId}`);
    return { method: 'PUT', path: `/api/boards/${fixture.boardId}`, body: { expectedVersion: board.body.version + 100, sections: board.body.sections, items: [] } };
  },
  'POST /api/boards/{id}/plan 409': async (_op, fixture) => {
    const board = await server.call('GET', `/api/boards/${fixture.boardId}`);
    return { method: 'POST', path: `/api/boards/${fixture.boardId}/plan`, body: { expectedVersion: board.body.version + 100, sections: board.body.sections, items: [] } };
  },
  'POST /api/boards/{id}/sections 409': async (op, fixture) => {
    const board = await server.call('GET', `/api/boards/${fixture.boardId}`);
    const probe = onBoard(op, fixture);
    return { ...probe, body: { ...(probe.body as object), id: board.body.sections[0].id } };
  },
  'PUT /api/boards/{id} 412': async (_op, fixture) => {
    const board = await server.call('GET', `/api/boards/${fixture.boardId}`);
    return { method: 'PUT', path: `/api/boards/${fixture.boardId}`, headers: { 'If-Match': staleEtag }, body: { sections: board.body.sections, items: [] } };
  },
  'POST /api/boards/{id}/plan 412': async (_op, fixture) => {
    const board = await server.call('GET', `/api/boards/${fixture.boardId}`);
    return { method: 'POST', path: `/api/boards/${fixture.boardId}/plan`, headers: { 'If-Match': staleEtag }, body: { sections: board.body.sections, items: [] } };
  },
  'DELETE /api/boards/{id}/sections/{sectionId} 412': async (_op, fixture) => {
    const board = await server.call('GET', `/api/boards/${fixture.boardId}`);
    return { method: 'DELETE', path: `/api/boards/${fixture.boardId}/sections/${board.body.sections[0].id}`, headers: { 'If-Match': staleEtag } };
  },
  'PATCH /api/boards/{id}/sections/{sectionId} 412': async (_op, fixture) => {
    const board = await server.call('GET', `/api/boards/${fixture.boardId}`);
    const section = board.body.sections[0];
    return { method: 'PATCH', path: `/api/boards/${fixture.boardId}/sections/${section.id}`, headers: { 'If-Match': staleEtag }, body: section };
  },
  'POST /api/boards/{id}/restore 409': (op, fixture) => onBoard(op, fixture),
  'GET /api/boards/{id}/history 404': (op) => ({ ...sample(op), path: `/api/boards/${missingId}/history` }),
  'PATCH /api/apps/{id} 404': (op) => ({ ...sample(op), body: { name: 'renamed' } }),
  'PATCH /api/boards/{id}/sections/{sectionId} 404': (op) => {
    const probe = sample(op);
    const sectionId = decodeURIComponent(probe.path.split('/')[5]);
    return { ...probe, body: { ...(probe.body as object), id: sectionId } };
  },
  'POST /api/boards/{id}/sections 400': (op, fixture) => ({ ...onBoard(op, fixture), headers: {}, body: [] }),
  'POST /api/users 409': (op, fixture) => ({ ...sample(op), body: { username: fixture.nobodyName, password: 'password-123' } }),
  'POST /api/groups 409': (op, fixture) => ({ ...sample(op), body: { name: fixture.groupName } }),
  'POST /api/boards 409': (op) => ({ ...sample(op), body: { name: 'MOCK-errors', columnCount: 12, isPublic: false } }),
  'POST /api/boards/{id}/duplicate 409': (op, fixture) => ({ ...onBoard(op, fixture), body: { name: 'mock-errors' } }),
  'PATCH /api/boards/{id}/name 409': (op, fixture) => ({ ...onBoard(op, fixture), body: { name: fixture.otherBoardName } }),
};

function scenarioFor(op: Operation, status: string): Scenario | string {
  const reason = notProvokable[`${nameOf(op)} ${status}`] ?? notProvokable[status] ?? notComparedYet[`${nameOf(op)} ${status}`];
  if (reason) return reason;
  return specific[`${nameOf(op)} ${status}`] ?? generic[status] ?? 'no scenario';
}

const shape = (message: unknown) => (typeof message === 'string' ? message.replace(/\b[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*\b/g, (token) => (token.length >= 16 ? '<id>' : token)) : message);
const outcome = (answer: CallResult) => ({ status: answer.status, message: shape(answer.body?.message), code: answer.body?.code });

async function send(baseUrl: string, probe: Omit<Probe, 'mock'>, key: string | null, extra: Record<string, string> = {}): Promise<CallResult> {
  const options: CallOptions = { key, headers: { ...probe.headers, ...extra } };
  if (probe.raw !== undefined) options.raw = probe.raw;
  else if (probe.body !== undefined) options.body = probe.body;
  try {
    return await call(baseUrl, probe.method, probe.path, options);
  } catch (error) {
    // A kept-alive socket the other side closed meanwhile (after a 413 the server drops the rest of the body and the
    // connection): once more on a new one. Every probe is refused, so nothing is written twice.
    if (!(error instanceof TypeError) || error.message !== 'fetch failed') throw error;
    return call(baseUrl, probe.method, probe.path, options);
  }
}

let fixture: Fixture;
beforeAll(async () => {
  const nobody = await createActor(server);
  const login = await server.call('POST', '/api/auth/login', { key: null, body: { username: nobody.username, password: 'password-123' } });
  const session = login.headers.get('set-cookie')!.split(';')[0];
  const group = await server.call('POST', '/api/groups', { body: { name: 'mock-errors-group' } });
  const board = await server.call('POST', '/api/boards', { body: { name: 'mock-errors', columnCount: 12, isPublic: false } });
  const other = await server.call('POST', '/api/boards', { body: { name: 'mock-errors-other', columnCount: 12, isPublic: false } });
  expect([group.status, board.status, other.status]).toEqual([201, 201, 201]);
  fixture = { admin: server.adminKey, nobody: nobody.key, nobodyName: nobody.username, session, groupName: 'mock-errors-group', boardId: board.body.boardId, otherBoardName: 'mock-errors-other' };
}, 60_000);

const pairs = operations.flatMap((op) => errorStatuses(op).map((status) => ({ op, status, scenario: scenarioFor(op, status) })));
const compared = pairs.filter((pair) => typeof pair.scenario !== 'string');

describe('MOCK-1: the mock answers each provokable error with the server message and code', () => {
  it('every declared error status of every operation is compared here or listed as not provokable', () => {
    expect(pairs.filter((pair) => pair.scenario === 'no scenario').map((pair) => `${nameOf(pair.op)} ${pair.status}`)).toEqual([]);
  });

  it.each(compared.map((pair) => [`${nameOf(pair.op)} ${pair.status}`, pair] as const))('%s', async (_name, { op, status, scenario }) => {
    const probe = await (scenario as Scenario)(op, fixture);
    const serverProbe = probe.session ? { ...probe, headers: { ...probe.headers, Cookie: fixture.session } } : probe;
    const fromServer = await send(server.directUrl, serverProbe, probe.session ? null : probe.key === undefined ? fixture.admin : probe.key);
    const fromMock = await send(mock.url, probe.mock ?? probe, probe.key === null ? null : mockKey, { Prefer: `code=${status}` });
    expect({ server: outcome(fromServer) }).toEqual({ server: expect.objectContaining({ status: Number(status) }) });
    expect(outcome(fromMock)).toEqual(outcome(fromServer));
  });
});
