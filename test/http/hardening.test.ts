import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createActor } from '../support/actors';
import { expectError } from '../support/expect';
import { call, CallOptions, useTestServer } from '../support/server';
import { unique } from '../support/unique';

/**
 * The HTTP pipeline under hostile or unusual input: unreadable cookies, bodies the parser refuses, cookie writes
 * from browsers, conditional requests and cache busters. Transport tests talk to the server directly (a contract
 * proxy in front would answer malformed requests itself and rewrites Host, which the Origin check compares with).
 */
const server = useTestServer();

const direct = (method: string, path: string, options: CallOptions = {}) => call(server.directUrl, method, path, { key: server.adminKey, ...options });

async function createPublicBoard(): Promise<string> {
  const created = await server.call('POST', '/api/boards', { body: { name: unique('hardening'), columnCount: 12, isPublic: true } });
  expect(created.status).toBe(201);
  return created.body.boardId;
}

/** A logged-in admin's session cookie (`tessera_session=<token>`). */
async function loginCookie(): Promise<string> {
  const actor = await createActor(server, { permissions: ['admin'], password: 'hardening-pass' });
  const login = await direct('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'hardening-pass' } });
  expect(login.status).toBe(200);
  return login.headers.get('set-cookie')!.split(';')[0];
}

describe('a session cookie that cannot be read is no session', () => {
  const malformed = 'tessera_session=%E0%A4%A';

  it('reads a public board anonymously with a cookie of broken percent-encoding', async () => {
    const boardId = await createPublicBoard();
    const result = await direct('GET', `/api/boards/${boardId}`, { key: null, headers: { Cookie: malformed } });
    expect(result.status).toBe(200);
    expect(result.body.id).toBe(boardId);
  });

  it('answers 401 on routes needing authentication, as without a cookie', async () => {
    expectError(await direct('GET', '/api/auth/session', { key: null, headers: { Cookie: malformed } }), 401, 'UNAUTHORIZED', 'Authentication required');
    expectError(await direct('GET', '/api/users', { key: null, headers: { Cookie: `a=1; ${malformed}; b=%` } }), 401, 'UNAUTHORIZED', 'Authentication required');
  });

  it('logs out without a session', async () => {
    const result = await direct('POST', '/api/auth/logout', { key: null, headers: { Cookie: malformed } });
    expect(result.status).toBe(204);
  });

  it.each([
    ['empty', ''],
    ['only separators', ';;; ;'],
    ['names without values', 'tessera_session; =; ==='],
    ['an empty session value', 'tessera_session='],
    ['many cookies', Array.from({ length: 300 }, (_, i) => `c${i}=%${i}`).join('; ')],
    ['a huge value', `tessera_session=${'%'.repeat(8000)}`],
  ])('treats a cookie header with %s as anonymous', async (_name, cookie) => {
    expectError(await direct('GET', '/api/auth/session', { key: null, headers: { Cookie: cookie } }), 401, 'UNAUTHORIZED', 'Authentication required');
  });

  it('uses the first readable value of a repeated session cookie', async () => {
    const cookie = await loginCookie();
    const result = await direct('GET', '/api/auth/session', { key: null, headers: { Cookie: `${malformed}; other=x; ${cookie}` } });
    expect(result.status).toBe(200);
    expect(result.body.authMethod).toBe('session');
  });
});

describe('request bodies the parser refuses are 4xx, never 500', () => {
  const json = JSON.stringify({ name: 'compressed' });
  const post = (raw: string | Uint8Array, headers: Record<string, string>) =>
    direct('POST', '/api/groups', { raw, headers: { 'Content-Type': 'application/json', ...headers } });

  it.each(['gzip', 'deflate', 'br'])('answers 400 for a %s body that is not compressed', async (encoding) => {
    expectError(await post(json, { 'Content-Encoding': encoding }), 400, 'BAD_REQUEST', `Failed to decompress request body: not valid ${encoding} data`);
  });

  it('answers 400 for a truncated gzip body', async () => {
    const gzipped = gzipSync(json);
    expectError(
      await post(gzipped.subarray(0, gzipped.length - 10), { 'Content-Encoding': 'gzip' }),
      400,
      'BAD_REQUEST',
      'Failed to decompress request body: not valid gzip data',
    );
  });

  it('accepts bodies that are compressed as declared', async () => {
    const bodies: Array<[string, Uint8Array]> = [
      ['gzip', gzipSync(JSON.stringify({ name: unique('gzip') }))],
      ['deflate', deflateSync(JSON.stringify({ name: unique('deflate') }))],
      ['br', brotliCompressSync(JSON.stringify({ name: unique('br') }))],
    ];
    for (const [encoding, body] of bodies) expect((await post(body, { 'Content-Encoding': encoding })).status).toBe(201);
  });

  it('answers 415 for an unknown content encoding', async () => {
    expectError(await post(json, { 'Content-Encoding': 'compress' }), 415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding "compress"');
  });

  it('reads UTF-8 with a byte order mark and UTF-16 bodies, as JSON allows', async () => {
    expect((await post(`\ufeff${JSON.stringify({ name: unique('bom') })}`, {})).status).toBe(201);
    const utf16 = Buffer.from(`\ufeff${JSON.stringify({ name: unique('utf16') })}`, 'utf16le');
    expect((await post(utf16, { 'Content-Type': 'application/json; charset=utf-16le' })).status).toBe(201);
  });

  it('answers 415 for a charset other than UTF-8', async () => {
    expectError(
      await post(json, { 'Content-Type': 'application/json; charset=latin1' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Unsupported charset "latin1": send UTF-8',
    );
  });
});

describe('cookie-authenticated writes: what a cross-site page can send is refused, a same-origin bodyless write is not', () => {
  let cookie: string;
  beforeEach(async () => {
    cookie = await loginCookie();
  });
  const sessionOf = (value: string) => direct('GET', '/api/auth/session', { key: null, headers: { Cookie: value } });

  it('logs out with a bodyless same-origin POST (a browser logout button)', async () => {
    const logout = await direct('POST', '/api/auth/logout', { key: null, headers: { Cookie: cookie, Origin: server.directUrl, 'Sec-Fetch-Site': 'same-origin' } });
    expect(logout.status).toBe(204);
    expect((await sessionOf(cookie)).status).toBe(401);
  });

  it('logs out with a bodyless POST from a client that sends no Origin', async () => {
    expect((await direct('POST', '/api/auth/logout', { key: null, headers: { Cookie: cookie } })).status).toBe(204);
    expect((await sessionOf(cookie)).status).toBe(401);
  });

  it('deletes with a bodyless same-origin DELETE', async () => {
    const group = await server.call('POST', '/api/groups', { body: { name: unique('cookie-delete') } });
    const result = await direct('DELETE', `/api/groups/${group.body.groupId}`, { key: null, headers: { Cookie: cookie, Origin: server.directUrl } });
    expect(result.status).toBe(204);
  });

  it('allows Sec-Fetch-Site none (typed by the user), and same-site when the Origin matches', async () => {
    const none = await direct('POST', '/api/groups', { key: null, body: { name: unique('none') }, headers: { Cookie: cookie, 'Sec-Fetch-Site': 'none' } });
    expect(none.status).toBe(201);
    const sameSite = await direct('POST', '/api/groups', {
      key: null,
      body: { name: unique('same-site') },
      headers: { Cookie: cookie, 'Sec-Fetch-Site': 'same-site', Origin: server.directUrl },
    });
    expect(sameSite.status).toBe(201);
  });

  const contentTypeMessage = 'Cross-site request refused: a cookie-authenticated write may only send Content-Type: application/json';
  const originMessage = 'Cross-site request refused: Origin does not match Host';
  const fetchSiteMessage = 'Cross-site request refused: Sec-Fetch-Site is cross-site';
  const sameSiteMessage = 'Cross-site request refused: Sec-Fetch-Site is same-site and Origin is missing';

  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
  ])('refuses an empty %s post', async (_name, contentType) => {
    const result = await direct('POST', '/api/auth/logout', { key: null, raw: '', headers: { Cookie: cookie, 'Content-Type': contentType } });
    expectError(result, 403, 'FORBIDDEN', contentTypeMessage);
    expect((await sessionOf(cookie)).status).toBe(200);
  });

  it('refuses text and form bodies before reading them', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      const result = await direct('POST', '/api/groups', { key: null, raw: 'name=evil', headers: { Cookie: cookie, 'Content-Type': contentType } });
      expectError(result, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it.each([
    ['a foreign Origin', () => ({ Origin: 'https://evil.example' }), originMessage],
    ['Origin null', () => ({ Origin: 'null' }), originMessage],
    ['Sec-Fetch-Site cross-site', () => ({ 'Sec-Fetch-Site': 'cross-site' }), fetchSiteMessage],
    ['Sec-Fetch-Site cross-site with our Origin', () => ({ 'Sec-Fetch-Site': 'cross-site', Origin: server.directUrl }), fetchSiteMessage],
    ['Sec-Fetch-Site same-site without Origin', () => ({ 'Sec-Fetch-Site': 'same-site' }), sameSiteMessage],
    ['Sec-Fetch-Site same-site with a foreign Origin', () => ({ 'Sec-Fetch-Site': 'same-site', Origin: 'https://sub.example' }), originMessage],
  ])('refuses a bodyless logout and a JSON write with %s', async (_name, extra, message) => {
    const headers = { Cookie: cookie, ...extra() };
    expectError(await direct('POST', '/api/auth/logout', { key: null, headers }), 403, 'FORBIDDEN', message);
    const name = unique('refused');
    expectError(await direct('POST', '/api/groups', { key: null, body: { name }, headers }), 403, 'FORBIDDEN', message);
    expect((await sessionOf(cookie)).status).toBe(200);
    expect((await server.call('GET', '/api/groups')).body.map((group: { name: string }) => group.name)).not.toContain(name);
  });
});

describe('conditional requests on a board', () => {
  const get = (boardId: string, headers: Record<string, string> = {}) => server.call('GET', `/api/boards/${boardId}`, { headers });

  it('answers 304 without a body when If-None-Match holds the current ETag: exact, weak, in a list, or *', async () => {
    const boardId = await createPublicBoard();
    const etag = (await get(boardId)).headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, `W/"x",W/${etag} ,"y"`, '*']) {
      const result = await get(boardId, { 'If-None-Match': ifNoneMatch });
      expect({ ifNoneMatch, status: result.status, body: result.body, etag: result.headers.get('etag') }).toEqual({ ifNoneMatch, status: 304, body: undefined, etag });
    }
  });

  it('answers 200 for an ETag that does not match, and after the board changed', async () => {
    const boardId = await createPublicBoard();
    const etag = (await get(boardId)).headers.get('etag')!;
    expect((await get(boardId, { 'If-None-Match': '"something-else"' })).status).toBe(200);
    expect((await get(boardId, { 'If-None-Match': etag.slice(0, -2) + '"' })).status).toBe(200);
    expect((await server.call('PATCH', `/api/boards/${boardId}/name`, { body: { name: unique('renamed') } })).status).toBe(204);
    const changed = await get(boardId, { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.id).toBe(boardId);
  });

  it('still answers 404 before any 304 for a caller who may not see the board', async () => {
    const created = await server.call('POST', '/api/boards', { body: { name: unique('private'), columnCount: 12, isPublic: false } });
    const anonymous = await server.call('GET', `/api/boards/${created.body.boardId}`, { key: null, headers: { 'If-None-Match': '*' } });
    expectError(anonymous, 404, 'NOT_FOUND', 'Board not found');
  });

  it('DELETE honours If-Match: a stale ETag is a 412 and the board stays, the current one deletes it', async () => {
    const boardId = await createPublicBoard();
    const etag = (await get(boardId)).headers.get('etag')!;
    expect((await server.call('PATCH', `/api/boards/${boardId}/name`, { body: { name: unique('moved') } })).status).toBe(204);
    const stale = await server.call('DELETE', `/api/boards/${boardId}`, { headers: { 'If-Match': etag } });
    expectError(stale, 412, 'PRECONDITION_FAILED', 'Board has changed since the ETag was issued');
    const weak = await server.call('DELETE', `/api/boards/${boardId}`, { headers: { 'If-Match': `W/${etag}` } });
    expectError(weak, 412, 'PRECONDITION_FAILED', 'Board has changed since the ETag was issued');
    expect((await get(boardId)).status).toBe(200);
    const current = (await get(boardId)).headers.get('etag')!;
    expect((await server.call('DELETE', `/api/boards/${boardId}`, { headers: { 'If-Match': `"other", ${current}` } })).status).toBe(204);
    expectError(await get(boardId), 404, 'NOT_FOUND', 'Board not found');
  });
});

describe('unknown query parameters are ignored', () => {
  it('accepts a cache buster on a GET and on a POST route', async () => {
    const boardId = await createPublicBoard();
    const read = await server.call('GET', `/api/boards/${boardId}?_=1`);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(boardId);
    const name = unique('cache-buster');
    const created = await server.call('POST', `/api/groups?_=${Date.now()}&x=1&x=2`, { body: { name } });
    expect(created.status).toBe(201);
    expect((await server.call('GET', '/api/groups?sort=name')).body.map((group: { name: string }) => group.name)).toContain(name);
  });

  it('still validates the declared query parameters', async () => {
    expect((await server.call('GET', '/api/apps/search?query=x&_=1')).status).toBe(200);
    const badLimit = await server.call('GET', '/api/apps/search?query=x&limit=abc&_=1');
    expectError(badLimit, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(badLimit.body.data.issues).toEqual([expect.objectContaining({ instancePath: '/query/limit' })]);
    expectError(await server.call('GET', '/api/apps/search?_=1'), 400, 'BAD_REQUEST', 'Input validation failed');
  });
});

describe('bodies on methods that take none', () => {
  it('leaves a body sent with DELETE unread instead of refusing it (no undeclared 415 or 413)', async () => {
    const deleted = await direct('DELETE', '/api/api-keys/nosuchkey', { raw: 'x'.repeat(64), headers: { 'Content-Type': 'text/plain' } });
    expectError(deleted, 404, 'NOT_FOUND', 'API key not found');
  });
});

describe('ERR-7: the answer to a refused input stays small', () => {
  it('ERR-7: a board with 300 wrong items lists at most 100 issues and 100 problems', async () => {
    const boardId = await createPublicBoard();
    const items = Array.from({ length: 300 }, (_, i) => ({ id: `err7-${i}`, kind: 42 }));
    const result = await direct('PUT', `/api/boards/${boardId}`, { body: { sections: [], items } });
    expect(result.status).toBe(400);
    expect(result.body.message).toBe('Input validation failed');
    expect(result.body.code).toBe('BAD_REQUEST');
    expect(result.body.data.issues.length).toBeGreaterThan(0);
    expect(result.body.data.issues.length).toBeLessThanOrEqual(100);
    expect(result.body.data.problems.length).toBeLessThanOrEqual(100);
    const board = await direct('GET', `/api/boards/${boardId}`);
    expect(board.body.items).toEqual([]);
  });
});
