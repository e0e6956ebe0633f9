/**
 * MOCK-1, MOCK-4: what `npm run mock` answers to `Prefer: code=<status>` is what the server answers. For every
 * operation and declared error status that a request can provoke, the same request goes to a real test server and to
 * the Prism mock (with `Prefer: code=<status>`, nothing else: no example name), and status, `message` and `code` must
 * be equal (ids inside messages compared as shapes; the tRPC envelope by its `message` and `data.code`, a JSON-RPC
 * error by `error.message` and `error.code`, an HTML page by its media type). Every declared pair is either compared
 * here or listed in `notProvokable` with the reason: an operation or status added to the document without either
 * fails the completeness test.
 *
 * The per-caller rate limits (RATE-2) and the metrics token (METRIC-4) are provoked on a second server: quotas of one
 * request per hour per class, so after one request of a class the caller's bucket stays empty for the whole file and
 * every further request of that class is a 429 (each class is emptied once and reused), and `METRICS_TOKEN` set. Its
 * 429 messages name that tiny quota; the mock's name the default one (RATE-5), so the quota and window are compared
 * as shapes and the mock's message is checked against the default separately (MOCK-5).
 *
 * What only a provisioned board answers (PROV-5's refusal of an API write, DRIFT-1's file that cannot be read now,
 * MOCK-6) is provoked on a third server provisioning one board, `media`, from a directory `boards` under a temporary
 * directory (allowApiUpdates false); its answers name the file inside its directory, never a server path, so they
 * are compared as they are. A set apply's error names its board (FLEET-4): that name is compared as a shape.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { defaultRateLimits } from '../../src/config/config';
import { RateClass, rateClassOf, rateLimitedMessage } from '../../src/ratelimit/classes';
import { insertProposal } from '../../src/mcp/proposals';
import { listOperations, Operation } from '../fuzz/openapi';
import { Request, validRequest } from '../fuzz/runner';
import { createActor } from '../support/actors';
import { RunningPrism, specFile, startPrism } from '../support/prism';
import { call, CallOptions, CallResult, useTestServer } from '../support/server';
import { eventually } from '../support/eventually';

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
};

/** Board writes whose only 403 is the refusal of a cross-site cookie write (a missing permission is a 404, BOARD-3). */
function crossSiteOnly(op: Operation): boolean {
  const binds = ['PUT /api/boards/{id}', 'POST /api/boards/{id}/plan', 'POST /api/boards/{id}/restore', 'POST /api/boards/items', 'PATCH /api/boards/{id}/items/{itemId}'];
  // WDATA-9: an item's data action has a 403 of its own: `interact` on the integration.
  const ownForbidden = ['/api/boards/{id}/duplicate', '/api/boards/{id}/items/{itemId}/data/actions'];
  return op.path.startsWith('/api/boards/{id}') && op.method !== 'get' && !binds.includes(nameOf(op)) && !ownForbidden.includes(op.path);
}
for (const op of operations) {
  // Declared because every operation names its 400 (owasp:api8:2023-define-error-validation), but a GET without
  // parameters has nothing to break: unknown query parameters are ignored, and so is a body on GET.
  if (op.method === 'get' && op.responses['400'] && !op.body && op.parameters.length === 0) {
    notProvokable[`${nameOf(op)} 400`] = 'a GET without parameters: the server ignores unknown query parameters and never reads a body on GET';
  }
}
Object.assign(notProvokable, {
  'GET /assets/{file} 404':
    'the file parameter is an enum of the two files there are: any other name is the 400 of request validation before the handler looks (its 404 guards a file missing from the table)',
  'GET /api/boards/{id}/permissions 403':
    'reading the grants needs full access, and without it the board is not found (404: a permission failure never reveals a board); a GET is never refused as cross-site',
  'GET /api/trpc/{procedures} 403':
    'no query procedure answers 403: reads are never refused as cross-site, and board.getBoardPermissions without full access is a 404 like its REST route',
  ...Object.fromEntries(
    ['POST /api/api-keys', 'POST /api/apps', 'POST /api/integrations', 'POST /api/custom-apis'].map((name) => [
      `${name} 409`,
      'their only 409 is IDEM-4\'s, answered only while a request with the same Idempotency-Key still runs: test/idempotency/idempotency.test.ts holds one with a table lock',
    ]),
  ),
  // OIDC-*: these servers have no OpenID provider (their sign-in routes answer 404, compared here); the rest needs one
  // and is provoked against the real provider fixture in test/identity/oidc.test.ts.
  'GET /api/auth/signin/oidc 502': 'the OpenID provider down: a provider state, not a request (test/identity/oidc.test.ts stops the fixture)',
  'GET /api/auth/callback/oidc 401': 'a sign-in the provider refused or whose ID token failed a check needs a provider (test/identity/oidc.test.ts)',
  'GET /api/auth/callback/oidc 409': 'a provider account whose name a local user has needs a provider (test/identity/oidc.test.ts)',
  'GET /api/auth/callback/oidc 502': 'the OpenID provider down: a provider state, not a request (test/identity/oidc.test.ts stops the fixture)',
  'DELETE /api/users/{userId} 409':
    'deleting a user needs admin and a caller cannot delete its own user (400), so the caller stays an admin: only a concurrent change, or the local CLI, which needs no admin caller (test/identity/last-admin), leaves none',
});

const server = useTestServer();
/** MOCK-5: one request per class per hour, so an emptied bucket stays empty for the file; and the metrics token. */
const limited = useTestServer({ RATE_LIMIT_READS: '1/3600', RATE_LIMIT_WRITES: '1/3600', RATE_LIMIT_IMPORTS: '1/3600', METRICS_TOKEN: 'mock-errors-metrics-token' });
/**
 * MOCK-6: the provisioning fixture: one board file, `boards/media.yaml`, applied at start with allowApiUpdates false
 * (PROV-1). The watcher's debounce is the longest there is, so breaking the file for the drift's 409 applies nothing.
 */
const provisioningRoot = mkdtempSync(path.join(os.tmpdir(), 'tessera-mock-errors-'));
const provisionedFile = path.join(provisioningRoot, 'boards', 'media.yaml');
mkdirSync(path.dirname(provisionedFile));
writeFileSync(
  provisionedFile,
  toYaml({
    apiVersion: 'tessera/v1',
    kind: 'Board',
    name: 'media',
    layouts: [{ name: 'Base', columnCount: 12, breakpoint: 0 }],
    sections: [{ id: 'mediasection', kind: 'empty', xOffset: 0, yOffset: 0 }],
    items: [{ id: 'mediaclock', kind: 'clock', options: {}, layouts: [{ layout: 'Base', sectionId: 'mediasection', xOffset: 0, yOffset: 0, width: 2, height: 1 }] }],
  }),
);
afterAll(() => rmSync(provisioningRoot, { recursive: true, force: true }));
const provisioned = useTestServer({ PROVISIONING_DIR: path.dirname(provisionedFile), PROVISIONING_DEBOUNCE_MS: '600000' });
let provisionedBoard:
  | { id: string; layouts: { id: string; name: string; columnCount: number; breakpoint: number }[]; sections: { id: string }[]; items: { id: string }[] }
  | undefined;
/** The provisioned board's file as the third server exports it. */
async function mediaFile(): Promise<Record<string, unknown>> {
  const file = await provisioned.call('GET', `/api/boards/${(await mediaBoard()).id}/export`);
  expect(file.status).toBe(200);
  return file.body;
}
/** The provisioned board as the third server reads it. */
async function mediaBoard() {
  if (!provisionedBoard) {
    // PROV-7: the server applies its directory once it listens.
    const board = await eventually(async () => {
      const found = await provisioned.call('GET', '/api/boards/by-name/media');
      expect(found.status).toBe(200);
      return found;
    });
    provisionedBoard = board.body;
  }
  return provisionedBoard!;
}
/** MOCK-6: a write to the provisioned board by the third server's admin (PROV-5 refuses it). */
const onProvisioned = async (method: string, route: (id: string) => string, body?: (board: Awaited<ReturnType<typeof mediaBoard>>) => unknown): Promise<Probe> => {
  const board = await mediaBoard();
  return { method, path: route(board.id), provisioned: true, ...(body ? { body: body(board) } : {}) };
};

let mock: RunningPrism;
beforeAll(async () => {
  // `npm run mock` as users run it: its front answers what Prism alone answers differently (MOCK-8).
  mock = await startPrism({ mode: 'front' });
}, 120_000);
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
  /** Sent to the second server (`limited`: tiny quotas, METRICS_TOKEN), with its admin key unless `key` says otherwise. */
  limited?: true;
  /** Sent to the third server (a provisioned board, MOCK-6), with its admin key unless `key` says otherwise. */
  provisioned?: true;
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
  /** A user with board-modify-all and no integration permission, and an integration it may not use (BIND-1). */
  editor: string;
  forbiddenIntegration: string;
  /** A board holding `itemId` (no bindings), whose revision `boundRevision` bound that item to the integration. */
  bindBoardId: string;
  itemId: string;
  boundRevision: number;
  /** An app and an integration `nobody` may use but not change; a second app (for name and href collisions). */
  appId: string;
  otherApp: { name: string; href: string };
  usableIntegration: string;
  /** The group granting admin, and the admin's user id (ADMIN-1). */
  adminGroupId: string;
  adminUserId: string;
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
  // IDEM-3: the operation's request with a key this caller used on another request (a board created with it).
  '422': async (op) => {
    const key = `mock-errors-${randomBytes(8).toString('hex')}`;
    const kept = await call(server.directUrl, 'POST', '/api/boards', {
      key: server.adminKey,
      body: { name: `idem-${key}`, columnCount: 12, isPublic: false },
      headers: { 'Idempotency-Key': key },
    });
    if (kept.status !== 201) throw new Error(`the board of the key was not created: ${kept.status}`);
    const probe = sample(op);
    return { ...probe, headers: { ...probe.headers, 'Idempotency-Key': key } };
  },
  '412': (op, fixture) => {
    const probe = onBoard(op, fixture);
    return { ...probe, headers: { ...probe.headers, 'If-Match': staleEtag } };
  },
  // RATE-2: any request of the operation's class once the caller's bucket of that class is empty (the limit applies
  // after authentication, before the body is read or validated, so the sampled request is enough).
  // An operation open to everyone (`security: []`, so no 401 declared) takes from the client address's bucket whatever
  // the credentials (RATE-2): sent anonymously, its class's anonymous bucket emptied by the request itself (all GETs).
  '429': async (op) => {
    const probe: Probe = { ...sample(op), limited: true };
    if (op.responses['401']) {
      await emptied(classOf(op), 'admin', drains[classOf(op)]);
      return probe;
    }
    await emptied(classOf(op), 'anonymous', { ...probe, key: null });
    return { ...probe, key: null };
  },
};

const classOf = (op: Operation): RateClass => {
  const rateClass = rateClassOf(op.operationId, op.method.toUpperCase());
  if (!rateClass) throw new Error(`${nameOf(op)} declares a 429 of the rate limits but is outside every class (RATE-3)`);
  return rateClass;
};

/** A request of each class that writes nothing (a body the schema refuses), sent until the admin's bucket is empty. */
const drains: Record<RateClass, Omit<Probe, 'mock'>> = {
  reads: { method: 'GET', path: '/api/boards' },
  writes: { method: 'POST', path: '/api/groups', body: [] },
  imports: { method: 'POST', path: '/api/boards/import', body: [] },
};
const emptying = new Map<string, Promise<void>>();
/** Empties a caller's bucket of a class on the second server with `drain` (its key: the admin's), once per file. */
function emptied(rateClass: RateClass, caller: 'admin' | 'anonymous', drain: Omit<Probe, 'mock'>): Promise<void> {
  const bucket = `${rateClass}:${caller}`;
  if (!emptying.has(bucket)) {
    emptying.set(
      bucket,
      (async () => {
        for (let attempt = 0; attempt < 5; attempt++) {
          if ((await send(limited.directUrl, drain, drain.key === undefined ? limited.adminKey : drain.key)).status === 429) return;
        }
        throw new Error(`the ${bucket} bucket of the limited server is not empty after 5 requests`);
      })(),
    );
  }
  return emptying.get(bucket)!;
}

/** A whole-board write by the editor that binds a new item to the integration it may not use. */
async function boundWrite(method: string, path: string, fixture: Fixture): Promise<Probe> {
  const board = await server.call('GET', `/api/boards/${fixture.bindBoardId}`);
  const item = { ...board.body.items[0], id: 'mockerrorsitem0000000002', integrationIds: [fixture.forbiddenIntegration] };
  return { method, path, key: fixture.editor, body: { sections: board.body.sections, items: [...board.body.items, item] } };
}

/** The fixture board as a board file. */
async function exported(fixture: Fixture): Promise<Record<string, unknown>> {
  const file = await server.call('GET', `/api/boards/${fixture.boardId}/export`);
  expect(file.status).toBe(200);
  return file.body;
}

/** An import of the fixture board's own file (its name is taken) with `onConflict`. */
async function importOf(fixture: Fixture, onConflict: 'fail' | 'replace'): Promise<Probe> {
  return { method: 'POST', path: `/api/boards/import?onConflict=${onConflict}`, body: await exported(fixture) };
}

/** Event streams held open for the 429 of the next one (closed after the file). */
const streams: AbortController[] = [];
afterAll(() => {
  for (const stream of streams) stream.abort();
});

const mcpNotAcceptable = (path: string): Probe => ({
  method: 'POST',
  path,
  headers: { Accept: 'application/json' },
  body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
});

/** A tRPC query (GET, `input` the URL-encoded superjson envelope) or mutation (POST, the envelope as body). */
const trpcQuery = (procedure: string, input?: unknown): Probe => ({
  method: 'GET',
  path: `/api/trpc/${procedure}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`}`,
});
const trpcMutation = (procedure: string, input: unknown): Probe => ({ method: 'POST', path: `/api/trpc/${procedure}`, body: { json: input } });

/** Cases of one operation and status, where the generic scenario does not provoke it. */
const specific: Record<string, Scenario> = {
  // OIDC-21: a return path longer than the document allows is refused before anything else.
  'GET /api/auth/signin/oidc 400': () => ({ method: 'GET', path: `/api/auth/signin/oidc?returnTo=/${'x'.repeat(2000)}` }),
  'GET /api/auth/callback/oidc 400': () => ({ method: 'GET', path: `/api/auth/callback/oidc?state=${'x'.repeat(513)}` }),
  // FLEET-15: any text is a label (`not valid!` included); one over 128 characters is not.
  'DELETE /api/boards/labels/{label}/owner 400': (op) => ({ ...sample(op), path: `/api/boards/labels/${'x'.repeat(129)}/owner` }),
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
  // BIND-1: a caller who may change the board binds an item to an integration it may not use.
  // KEY-7: a sampled body may name boards that do not exist (a 400 first): a key for another user (403 without admin),
  // and for a user that does not exist (404).
  'POST /api/api-keys 403': (op, fixture) => ({ ...sample(op), key: fixture.nobody, body: { userId: 'mockerrorsotheruser000001' } }),
  'POST /api/api-keys 404': (op) => ({ ...sample(op), body: { userId: 'mockerrorsnosuchuser00001' } }),
  'PUT /api/boards/{id} 403': (_op, fixture) => boundWrite('PUT', `/api/boards/${fixture.bindBoardId}`, fixture),
  'POST /api/boards/{id}/plan 403': (_op, fixture) => boundWrite('POST', `/api/boards/${fixture.bindBoardId}/plan`, fixture),
  'POST /api/boards/items 403': (_op, fixture) => ({
    method: 'POST',
    path: '/api/boards/items',
    key: fixture.editor,
    body: { boardId: fixture.bindBoardId, kind: 'clock', integrationIds: [fixture.forbiddenIntegration] },
  }),
  'PATCH /api/boards/{id}/items/{itemId} 403': (_op, fixture) => ({
    method: 'PATCH',
    path: `/api/boards/${fixture.bindBoardId}/items/${fixture.itemId}`,
    key: fixture.editor,
    body: { integrationIds: [fixture.forbiddenIntegration] },
  }),
  'POST /api/boards/{id}/restore 403': (_op, fixture) => ({
    method: 'POST',
    path: `/api/boards/${fixture.bindBoardId}/restore`,
    key: fixture.editor,
    body: { revision: fixture.boundRevision },
  }),
  'POST /api/boards/{id}/duplicate 403': (_op, fixture) => ({ method: 'POST', path: `/api/boards/${fixture.boardId}/duplicate`, key: fixture.editor, body: { name: 'mock-errors-copy' } }),

  // If-Match that is not the board's ETag, on a request the server accepts up to that check.
  'PATCH /api/boards/{id}/layouts 412': async (_op, fixture) => {
    const board = await server.call('GET', `/api/boards/${fixture.boardId}`);
    return { method: 'PATCH', path: `/api/boards/${fixture.boardId}/layouts`, headers: { 'If-Match': staleEtag }, body: { layouts: board.body.layouts } };
  },
  'POST /api/boards/{id}/layouts/plan 412': async (_op, fixture) => {
    const board = await server.call('GET', `/api/boards/${fixture.boardId}`);
    return { method: 'POST', path: `/api/boards/${fixture.boardId}/layouts/plan`, headers: { 'If-Match': staleEtag }, body: { layouts: board.body.layouts } };
  },
  'POST /api/boards/{id}/restore 412': (_op, fixture) => ({ method: 'POST', path: `/api/boards/${fixture.bindBoardId}/restore`, headers: { 'If-Match': staleEtag }, body: { revision: 1 } }),
  'DELETE /api/boards/{id}/items/{itemId} 412': (_op, fixture) => ({ method: 'DELETE', path: `/api/boards/${fixture.bindBoardId}/items/${fixture.itemId}`, headers: { 'If-Match': staleEtag } }),
  'PATCH /api/boards/{id}/items/{itemId} 412': (_op, fixture) => ({
    method: 'PATCH',
    path: `/api/boards/${fixture.bindBoardId}/items/${fixture.itemId}`,
    headers: { 'If-Match': staleEtag },
    body: { integrationIds: [] },
  }),

  // Board files: an import without board-create, over a board the caller may not see, over a taken name.
  'POST /api/boards/import 403': async (_op, fixture) => ({ ...(await importOf(fixture, 'fail')), key: fixture.nobody, body: { ...(await exported(fixture)), name: 'mock-errors-new' } }),
  'POST /api/boards/import 404': async (_op, fixture) => ({ ...(await importOf(fixture, 'replace')), key: fixture.nobody }),
  'POST /api/boards/import 409': (_op, fixture) => importOf(fixture, 'fail'),

  // A set apply (FLEET-4: the message names the board): a new board without board-create, a board the caller may not
  // write, a file whose base is stale (FLEET-16: exported before the board changed there; the example's case, MOCK-1).
  'POST /api/boards/apply 403': async (_op, fixture) => ({
    method: 'POST',
    path: '/api/boards/apply',
    key: fixture.nobody,
    body: { managedBy: 'mock-errors', boards: [{ ...(await exported(fixture)), name: 'mock-errors-new', source: undefined }] },
  }),
  'POST /api/boards/apply 404': async (_op, fixture) => ({ method: 'POST', path: '/api/boards/apply', key: fixture.nobody, body: { managedBy: 'mock-errors', boards: [await exported(fixture)] } }),
  'POST /api/boards/apply 409': async () => {
    const board = await server.call('POST', '/api/boards', { body: { name: 'mock-errors-fleet', columnCount: 12, isPublic: false } });
    expect(board.status).toBe(201);
    const file = await server.call('GET', `/api/boards/${board.body.boardId}/export`);
    // Someone adds a section through the API after the file was taken (the version moves on, the board changes).
    const added = { id: 'mockerrorsfleetcategory1', kind: 'category', name: 'Added', xOffset: 0, yOffset: 1, collapsed: false };
    const saved = await server.call('PUT', `/api/boards/${board.body.boardId}`, { body: { sections: [...file.body.sections, added], items: [] } });
    expect(saved.status).toBe(200);
    return { method: 'POST', path: '/api/boards/apply', body: { managedBy: 'mock-errors', boards: [file.body] } };
  },

  // MOCK-6, PROV-5: writes to a board provisioned with allowApiUpdates false.
  'DELETE /api/boards/{id} 409': () => onProvisioned('DELETE', (id) => `/api/boards/${id}`),
  'POST /api/boards/items 409': () => onProvisioned('POST', () => '/api/boards/items', (board) => ({ boardId: board.id, kind: 'clock' })),
  'PATCH /api/boards/{id}/layouts 409': () =>
    onProvisioned('PATCH', (id) => `/api/boards/${id}/layouts`, (board) => ({ layouts: board.layouts.map((layout) => ({ ...layout, columnCount: 10 })) })),
  'PATCH /api/boards/{id}/visibility 409': () => onProvisioned('PATCH', (id) => `/api/boards/${id}/visibility`, () => ({ visibility: 'public' })),
  'PATCH /api/boards/{id}/settings 409': () => onProvisioned('PATCH', (id) => `/api/boards/${id}/settings`, () => ({ pageTitle: 'Changed by the API' })),
  // The granular routes' only 409 (CONC-7: a concurrent change waits for the row lock, it does not conflict).
  'PATCH /api/boards/{id}/items/{itemId} 409': async () => {
    const board = await mediaBoard();
    return onProvisioned('PATCH', (id) => `/api/boards/${id}/items/${board.items[0].id}`, () => ({ options: { format: '24h' } }));
  },
  'DELETE /api/boards/{id}/items/{itemId} 409': async () => {
    const board = await mediaBoard();
    return onProvisioned('DELETE', (id) => `/api/boards/${id}/items/${board.items[0].id}`);
  },
  'PATCH /api/boards/{id}/sections/{sectionId} 409': async () => {
    const board = await mediaBoard();
    return onProvisioned('PATCH', (id) => `/api/boards/${id}/sections/${board.sections[0].id}`, () => ({ ...board.sections[0], yOffset: 1 }));
  },
  'DELETE /api/boards/{id}/sections/{sectionId} 409': async () => {
    const board = await mediaBoard();
    return onProvisioned('DELETE', (id) => `/api/boards/${id}/sections/${board.sections[0].id}`);
  },
  // MOCK-6, DRIFT-1: the provisioned board's file no longer parses (PROV-3 keeps the board and its record).
  'GET /api/boards/{id}/drift 409': async () => {
    writeFileSync(provisionedFile, 'apiVersion: tessera/v1\nkind: Board\nname: [media\n');
    return onProvisioned('GET', (id) => `/api/boards/${id}/drift`);
  },

  // Apps and integrations `nobody` may use but not change; an app renamed onto another's name and href.
  'PATCH /api/apps/{id} 403': (_op, fixture) => ({ method: 'PATCH', path: `/api/apps/${fixture.appId}`, key: fixture.nobody, body: { name: 'mock-errors-renamed' } }),
  'DELETE /api/apps/{id} 403': (_op, fixture) => ({ method: 'DELETE', path: `/api/apps/${fixture.appId}`, key: fixture.nobody }),
  'GET /api/apps/{id}/permissions 403': (_op, fixture) => ({ method: 'GET', path: `/api/apps/${fixture.appId}/permissions`, key: fixture.nobody }),
  'PUT /api/apps/{id}/permissions 403': (_op, fixture) => ({ method: 'PUT', path: `/api/apps/${fixture.appId}/permissions`, key: fixture.nobody, body: { users: [], groups: [] } }),
  'PATCH /api/apps/{id} 409': (_op, fixture) => ({ method: 'PATCH', path: `/api/apps/${fixture.appId}`, body: fixture.otherApp }),
  'PATCH /api/integrations/{id} 403': (_op, fixture) => ({ method: 'PATCH', path: `/api/integrations/${fixture.usableIntegration}`, key: fixture.nobody, body: { name: 'mock-errors-renamed' } }),
  // WDATA-9: a viewer of a public board without `interact` on the integration bound to the item.
  'POST /api/boards/{id}/items/{itemId}/data/actions 403': async (_op, fixture) => {
    const integration = await server.call('POST', '/api/integrations', { body: { name: 'mock-errors-glances', kind: 'glances', url: 'http://127.0.0.1:1' } });
    const created = await server.call('POST', '/api/boards', { body: { name: 'mock-errors-live', columnCount: 12, isPublic: true } });
    const board = await server.call('GET', `/api/boards/${created.body.boardId}`);
    const itemId = 'mockerrorslive0000000001';
    const layouts = [{ layoutId: board.body.layouts[0].id, sectionId: board.body.sections[0].id, xOffset: 0, yOffset: 0, width: 2, height: 2 }];
    const live = { id: itemId, kind: 'systemResources', options: {}, integrationIds: [integration.body.integrationId], advancedOptions: { title: null, customCssClasses: [], borderColor: '' }, layouts };
    expect((await server.call('PUT', `/api/boards/${created.body.boardId}`, { body: { sections: board.body.sections, items: [live] } })).status).toBe(200);
    return {
      method: 'POST',
      path: `/api/boards/${created.body.boardId}/items/${itemId}/data/actions`,
      key: fixture.nobody,
      body: { integrationId: integration.body.integrationId, action: 'pause', ids: ['a'] },
    };
  },
  'DELETE /api/integrations/{id} 403': (_op, fixture) => ({ method: 'DELETE', path: `/api/integrations/${fixture.usableIntegration}`, key: fixture.nobody }),
  'GET /api/integrations/{id}/permissions 403': (_op, fixture) => ({ method: 'GET', path: `/api/integrations/${fixture.usableIntegration}/permissions`, key: fixture.nobody }),
  'PUT /api/integrations/{id}/permissions 403': (_op, fixture) => ({
    method: 'PUT',
    path: `/api/integrations/${fixture.usableIntegration}/permissions`,
    key: fixture.nobody,
    body: { users: [], groups: [] },
  }),
  // A key narrowed to one scope revokes its owner's unscoped key.
  'DELETE /api/api-keys/{keyId} 403': async (_op, fixture) => {
    const narrow = await server.call('POST', '/api/api-keys', { key: fixture.editor, body: { scopes: ['board-modify-all'] } });
    expect(narrow.status).toBe(201);
    return { method: 'DELETE', path: `/api/api-keys/${fixture.editor.split('.')[0]}`, key: narrow.body.apiKey };
  },

  // ADMIN-1: the fixture's admin is the only one, in the only group granting admin.
  'DELETE /api/groups/{groupId} 409': (_op, fixture) => ({ method: 'DELETE', path: `/api/groups/${fixture.adminGroupId}` }),
  'DELETE /api/groups/{groupId}/members/{userId} 409': (_op, fixture) => ({ method: 'DELETE', path: `/api/groups/${fixture.adminGroupId}/members/${fixture.adminUserId}` }),
  'PUT /api/groups/{groupId}/permissions 409': (_op, fixture) => ({ method: 'PUT', path: `/api/groups/${fixture.adminGroupId}/permissions`, body: { permissions: ['board-create'] } }),

  // METRIC-4: with METRICS_TOKEN set, a scrape without the token.
  'GET /metrics 401': () => ({ method: 'GET', path: '/metrics', key: null, limited: true }),
  // METRIC-8: wrong tokens from this address until it is refused, with most of the window left (so that the probe
  // right after is refused too, however slow the machine).
  'GET /metrics 429': async () => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const answer = await call(limited.directUrl, 'GET', '/metrics', { key: null, headers: { Authorization: 'Bearer wrong-metrics-token' } });
      if (answer.status === 429 && Number(answer.headers.get('retry-after')) >= 10) break;
    }
    return { method: 'GET', path: '/metrics', key: null, limited: true };
  },

  // Limits: the sixth login of a username after five failures; one event stream more than a caller may hold.
  'POST /api/auth/login 429': async () => {
    const user = await createActor(server);
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await server.call('POST', '/api/auth/login', { key: null, body: { username: user.username, password: 'wrong-password' } })).status).toBe(401);
    }
    return { method: 'POST', path: '/api/auth/login', key: null, body: { username: user.username, password: 'password-123' } };
  },
  'GET /api/boards/{id}/events 429': async (_op, fixture) => {
    const path = `/api/boards/${fixture.boardId}/events`;
    while (streams.length < 16) {
      const controller = new AbortController();
      const response = await fetch(server.directUrl + path, { headers: { ApiKey: fixture.editor }, signal: controller.signal });
      expect(response.status).toBe(200);
      streams.push(controller);
    }
    return { method: 'GET', path, key: fixture.editor };
  },

  // Logout: a body that is not JSON, credentials that do not authenticate, a cookie session marked cross-site.
  'POST /api/auth/logout 400': () => ({
    method: 'POST',
    path: '/api/auth/logout',
    key: null,
    raw: '{"not json',
    headers: { 'Content-Type': 'application/json' },
    // Prism refuses a body it cannot parse with its own answer before it mocks one.
    mock: { method: 'POST', path: '/api/auth/logout', key: null },
  }),
  'POST /api/auth/logout 403': () => ({ method: 'POST', path: '/api/auth/logout', session: true, headers: { 'Sec-Fetch-Site': 'cross-site' } }),
  // AGENT-10, AGENT-11: a cookie approval or rejection marked cross-site; an approval of a proposal whose board
  // changed since (a proposal stored as of a version the board never had, its board named `home` as the example).
  'POST /api/mcp/proposals/{proposalId}/approve 403': () => ({ method: 'POST', path: '/api/mcp/proposals/mockerrorsproposal/approve', session: true, headers: { 'Sec-Fetch-Site': 'cross-site' } }),
  'POST /api/mcp/proposals/{proposalId}/reject 403': () => ({ method: 'POST', path: '/api/mcp/proposals/mockerrorsproposal/reject', session: true, headers: { 'Sec-Fetch-Site': 'cross-site' } }),
  'POST /api/mcp/proposals/{proposalId}/approve 409': async (_op, fixture) => {
    const proposal = await insertProposal(
      server.db,
      {
        userId: fixture.adminUserId,
        apiKeyId: null,
        clientName: null,
        tool: 'add_item',
        operationId: 'addBoardItem',
        input: { body: { boardId: fixture.boardId, kind: 'clock' } },
        plan: null,
        summary: 'add_item on board "home" (version 999)',
        boards: [{ boardId: fixture.boardId, name: 'home', version: 999, etag: null }],
      },
      3600,
    );
    return { method: 'POST', path: `/api/mcp/proposals/${proposal.id}/approve` };
  },
  // SEC-5: a login that another site's page sends.
  'POST /api/auth/login 403': () => ({ method: 'POST', path: '/api/auth/login', key: null, body: { username: 'someone', password: 'password-123' }, headers: { 'Sec-Fetch-Site': 'cross-site' } }),

  // MCP: an Accept header without text/event-stream (the mock, too, can only answer a type the client accepts).
  'POST /api/mcp 406': () => mcpNotAcceptable('/api/mcp'),
  'POST /api/mcp/mcp 406': () => mcpNotAcceptable('/api/mcp/mcp'),

  // tRPC: the REST answers in the tRPC envelope.
  'GET /api/trpc/{procedures} 400': () => trpcQuery('board.getBoardByName', { name: 'not a name!' }),
  'GET /api/trpc/{procedures} 401': () => ({ ...trpcQuery('board.getAllBoards'), key: 'zq0000000000.0000000000000000' }),
  'GET /api/trpc/{procedures} 404': () => trpcQuery('board.getBoardByName', { name: 'mock-errors-missing' }),
  'GET /api/trpc/{procedures} 405': () => trpcQuery('board.createBoard'),
  'POST /api/trpc/{procedures} 400': () => trpcMutation('board.createBoard', { name: 'not a name!', columnCount: 12, isPublic: false }),
  'POST /api/trpc/{procedures} 401': () => ({ ...trpcMutation('board.createBoard', { name: 'mock-errors-trpc', columnCount: 12, isPublic: false }), key: 'zq0000000000.0000000000000000' }),
  'POST /api/trpc/{procedures} 403': (_op, fixture) => ({ ...trpcMutation('board.createBoard', { name: 'mock-errors-trpc', columnCount: 12, isPublic: false }), key: fixture.nobody }),
  'POST /api/trpc/{procedures} 404': () => trpcMutation('board.deleteBoard', { id: missingId }),
  'POST /api/trpc/{procedures} 405': () => trpcMutation('board.getAllBoards', null),
  'POST /api/trpc/{procedures} 409': () => trpcMutation('board.createBoard', { name: 'mock-errors', columnCount: 12, isPublic: false }),
  'POST /api/trpc/{procedures} 412': async (_op, fixture) => {
    const board = await server.call('GET', `/api/boards/${fixture.boardId}`);
    return { ...trpcMutation('board.saveBoard', { id: fixture.boardId, sections: board.body.sections, items: [] }), headers: { 'If-Match': staleEtag } };
  },
  'POST /api/trpc/{procedures} 413': () => {
    const valid = trpcMutation('board.createBoard', { name: 'mock-errors-trpc', columnCount: 12, isPublic: false });
    return { ...valid, raw: `{"json":{"padding":"${'x'.repeat(bodyLimit)}"}}`, headers: { 'Content-Type': 'application/json' }, mock: valid };
  },
  'POST /api/trpc/{procedures} 415': () => ({ method: 'POST', path: '/api/trpc/board.createBoard', raw: 'not json', headers: { 'Content-Type': 'text/plain' } }),
};

function scenarioFor(op: Operation, status: string): Scenario | string {
  const reason = notProvokable[`${nameOf(op)} ${status}`] ?? notProvokable[status];
  if (reason) return reason;
  return specific[`${nameOf(op)} ${status}`] ?? generic[status] ?? 'no scenario';
}

/** RATE-2: a 429 message with its quota and window as shapes (the second server's are not the defaults). */
const quotaShape = (message: unknown) =>
  typeof message === 'string' ? message.replace(/^(Rate limit reached: at most )\d+ (\w+) per \d+ s/, '$1<q> $2 per <w> s') : message;
/** Ids (long tokens with a digit) and a set apply's board name (FLEET-4) as shapes. */
const shape = (message: unknown) =>
  typeof message === 'string'
    ? message
        .replace(/^Board [A-Za-z0-9_-]+: /, 'Board <name>: ')
        .replace(/\b[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*\b/g, (token) => (token.length >= 16 ? '<id>' : token))
    : message;
/**
 * Status, message and code of an answer: the error body `{message, code}`, the tRPC envelope
 * (`{error: {json: {message, data: {code}}}}`), a JSON-RPC error (`{error: {message, code}}`); an HTML or other text
 * answer by its media type.
 */
function outcome(answer: CallResult) {
  const body = answer.body;
  if (typeof body === 'string') return { status: answer.status, type: answer.headers.get('content-type')?.split(';')[0] };
  const trpc = body?.error?.json;
  if (trpc) return { status: answer.status, message: shape(trpc.message), code: trpc.data?.code };
  if (body?.jsonrpc) return { status: answer.status, message: shape(body.error?.message), code: body.error?.code };
  return { status: answer.status, message: shape(body?.message), code: body?.code };
}

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
  const editor = await createActor(server, { permissions: ['board-modify-all'] });
  const forbidden = await server.call('POST', '/api/integrations', { body: { name: 'mock-errors-forbidden', kind: 'mock', url: 'http://127.0.0.1:1' } });
  const usable = await server.call('POST', '/api/integrations', { body: { name: 'mock-errors-usable', kind: 'mock', url: 'http://127.0.0.1:1' } });
  const app = await server.call('POST', '/api/apps', { body: { name: 'mock-errors-app', href: 'https://one.example.com', iconUrl: 'https://one.example.com/icon.png' } });
  const otherApp = { name: 'mock-errors-other-app', href: 'https://two.example.com' };
  const second = await server.call('POST', '/api/apps', { body: { ...otherApp, iconUrl: 'https://two.example.com/icon.png' } });
  expect([forbidden.status, usable.status, app.status, second.status]).toEqual([201, 201, 201, 201]);
  const appId = app.body.appId ?? app.body.id;
  const grant = { users: [{ userId: nobody.userId, permission: 'use' }], groups: [] };
  expect((await server.call('PUT', `/api/apps/${appId}/permissions`, { body: grant })).status).toBe(200);
  expect((await server.call('PUT', `/api/integrations/${usable.body.integrationId}/permissions`, { body: grant })).status).toBe(200);

  // A board whose history bound its item to the forbidden integration, which the current state does not.
  const bindBoard = await server.call('POST', '/api/boards', { body: { name: 'mock-errors-bindings', columnCount: 12, isPublic: false } });
  const bindBoardId: string = bindBoard.body.boardId;
  const start = await server.call('GET', `/api/boards/${bindBoardId}`);
  const itemId = 'mockerrorsitem0000000001';
  const boundItem = { id: itemId, kind: 'clock', options: {}, integrationIds: [forbidden.body.integrationId], advancedOptions: { title: null, customCssClasses: [], borderColor: '' }, layouts: [] };
  expect((await server.call('PUT', `/api/boards/${bindBoardId}`, { body: { sections: start.body.sections, items: [boundItem] } })).status).toBe(200);
  const history = await server.call('GET', `/api/boards/${bindBoardId}/history`);
  const entries: { revision: number }[] = Array.isArray(history.body) ? history.body : history.body.entries;
  const boundRevision = Math.max(...entries.map((entry) => entry.revision));
  expect((await server.call('PATCH', `/api/boards/${bindBoardId}/items/${itemId}`, { body: { integrationIds: [] } })).status).toBe(200);

  const groups = await server.call('GET', '/api/groups');
  const adminGroup = groups.body.find((candidate: { permissions: string[] }) => candidate.permissions.includes('admin'));
  const self = await server.call('GET', '/api/auth/session');
  fixture = {
    admin: server.adminKey,
    nobody: nobody.key,
    nobodyName: nobody.username,
    session,
    groupName: 'mock-errors-group',
    boardId: board.body.boardId,
    otherBoardName: 'mock-errors-other',
    editor: editor.key,
    forbiddenIntegration: forbidden.body.integrationId,
    bindBoardId,
    itemId,
    boundRevision,
    appId,
    otherApp,
    usableIntegration: usable.body.integrationId,
    adminGroupId: adminGroup.id,
    adminUserId: self.body.userId,
  };
}, 60_000);

const pairs = operations.flatMap((op) => errorStatuses(op).map((status) => ({ op, status, scenario: scenarioFor(op, status) })));
const compared = pairs.filter((pair) => typeof pair.scenario !== 'string');

/**
 * MOCK-6: where a write's default 409 is another case (a version conflict, a name taken, a section already there), the
 * provisioned board's refusal (PROV-5) is a named example of the 409: the write to the provisioned board goes to the
 * third server, and to the mock with `Prefer: code=409, example=<that name>`. The example is found by its message, so
 * its name is whatever the document gives it.
 */
const provisionedWrites: Record<string, () => Promise<Probe>> = {
  'PUT /api/boards/{id}': async () => {
    const board = (await mediaBoard()) as unknown as { sections: unknown[] };
    return onProvisioned('PUT', (id) => `/api/boards/${id}`, () => ({ sections: board.sections, items: [] }));
  },
  'POST /api/boards/{id}/restore': () => onProvisioned('POST', (id) => `/api/boards/${id}/restore`, () => ({ revision: 1 })),
  'POST /api/boards/{id}/sections': () =>
    onProvisioned('POST', (id) => `/api/boards/${id}/sections`, () => ({ id: 'mockerrorsnewsection0001', kind: 'empty', xOffset: 0, yOffset: 5 })),
  'PATCH /api/boards/{id}/name': () => onProvisioned('PATCH', (id) => `/api/boards/${id}/name`, () => ({ name: 'media-renamed' })),
  'POST /api/boards/import': async () => ({ method: 'POST', path: '/api/boards/import?onConflict=replace', provisioned: true, body: await changedMediaFile() }),
  'POST /api/boards/apply': async () => ({ method: 'POST', path: '/api/boards/apply', provisioned: true, body: { managedBy: 'mock-errors', boards: [await changedMediaFile()] } }),
  'POST /api/trpc/{procedures}': async () => ({ ...trpcMutation('board.renameBoard', { id: (await mediaBoard()).id, name: 'media-renamed' }), provisioned: true }),
};

/** The provisioned board's file with its section moved down: a change the file's own directory does not hold. */
async function changedMediaFile(): Promise<Record<string, unknown>> {
  const file = (await mediaFile()) as { sections: Record<string, unknown>[] };
  return { ...file, sections: file.sections.map((section) => ({ ...section, yOffset: 1 })) };
}

/** The named 409 examples of an operation that carry PROV-5's message (a REST error body or the tRPC envelope), but its default. */
function provisionedExamples(op: Operation): string[] {
  const media = (op.responses['409']?.content?.['application/json'] ?? {}) as { examples?: Record<string, { value?: { message?: string; error?: { json?: { message?: string } } } }> };
  const named = Object.entries(media.examples ?? {});
  const message = (value: (typeof named)[number][1]['value']) => value?.message ?? value?.error?.json?.message ?? '';
  return named.slice(1).filter(([, example]) => message(example.value).includes('Board is provisioned from ')).map(([name]) => name);
}
const provisionedNamed = operations.flatMap((op) => provisionedExamples(op).map((name) => ({ op, name })));

describe('MOCK-1: the mock answers each provokable error with the server message and code', () => {
  it('MOCK-4: every declared error status of every operation is compared here or listed as not provokable', () => {
    expect(pairs.filter((pair) => pair.scenario === 'no scenario').map((pair) => `${nameOf(pair.op)} ${pair.status}`)).toEqual([]);
  });

  it.each(compared.map((pair) => [`${nameOf(pair.op)} ${pair.status}`, pair] as const))('%s', async (_name, { op, status, scenario }) => {
    const probe = await (scenario as Scenario)(op, fixture);
    const serverProbe = probe.session ? { ...probe, headers: { ...probe.headers, Cookie: fixture.session } } : probe;
    const target = probe.limited ? limited : probe.provisioned ? provisioned : server;
    const fromServer = await send(target.directUrl, serverProbe, probe.session ? null : probe.key === undefined ? target.adminKey : probe.key);
    const fromMock = await send(mock.url, probe.mock ?? probe, probe.key === null ? null : mockKey, { Prefer: `code=${status}` });
    expect({ server: outcome(fromServer) }).toEqual({ server: expect.objectContaining({ status: Number(status) }) });
    // The per-caller limits' 429 (RATE-2) names the second server's tiny quota: compared as a shape below.
    if (!(probe.limited && status === '429' && rateClassOf(op.operationId, op.method.toUpperCase()))) {
      expect(outcome(fromMock)).toEqual(outcome(fromServer));
      return;
    }
    const [mockOutcome, serverOutcome] = [outcome(fromMock), outcome(fromServer)];
    expect({ ...mockOutcome, message: quotaShape(mockOutcome.message) }).toEqual({ ...serverOutcome, message: quotaShape(serverOutcome.message) });
    // MOCK-5: by default the mock answers what the server answers under the default quota of the class (RATE-5).
    const rateClass = classOf(op);
    expect(mockOutcome.message).toBe(rateLimitedMessage(rateClass, defaultRateLimits[rateClass]));
  });
});

describe('MOCK-6: the provisioned board\'s 409 where it is a named example', () => {
  it('every named example of PROV-5 beside another default 409 has a write to compare it with', () => {
    expect(provisionedNamed.map(({ op }) => nameOf(op)).filter((name) => !provisionedWrites[name])).toEqual([]);
  });

  const awaiting = Object.keys(provisionedWrites).filter((name) => !provisionedNamed.some(({ op }) => nameOf(op) === name));
  // A write a provisioned board refuses whose 409 does not name that case yet: the mock cannot serve it.
  for (const name of awaiting) it.todo(`${name} 409: no named example of PROV-5 yet`);

  // (jest refuses an empty table: until the document names one, the todos above are all there is.)
  const named = provisionedNamed.map(({ op, name }) => [`${nameOf(op)} 409 (${name})`, op, name] as const);
  if (named.length > 0) it.each(named)('%s', async (_title, op, name) => {
    const probe = await provisionedWrites[nameOf(op)]();
    const fromServer = await send(provisioned.directUrl, probe, provisioned.adminKey);
    const fromMock = await send(mock.url, probe, mockKey, { Prefer: `code=409, example=${name}` });
    expect(outcome(fromServer)).toEqual(expect.objectContaining({ status: 409, message: expect.stringMatching(/^(Board <name>: )?Board is provisioned from media\.yaml of provisioning:boards; /) }));
    expect(outcome(fromMock)).toEqual(outcome(fromServer));
  });
});
