import { createActor } from '../support/actors';
import { call, useTestServer } from '../support/server';
import { expectError } from '../support/expect';

const server = useTestServer();


describe('API-key authentication', () => {
  it('accepts the bootstrap admin key', async () => {
    const result = await server.call('GET', '/api/users');
    expect(result.status).toBe(200);
    expect(result.body.map((u: any) => u.username)).toContain('admin');
  });

  it('answers 401 without any credential', async () => {
    expectError(await server.call('GET', '/api/users', { key: null }), 401, 'UNAUTHORIZED', 'Authentication required');
  });

  it.each([['nodot'], ['.token-only-aaaaaaaaaaaaaaaa'], ['id.'], ['id.short'], ['bad id.aaaaaaaaaaaaaaaaaaaa']])(
    'answers 401 for the malformed key %p',
    async (key) => {
      expectError(await server.call('GET', '/api/users', { key }), 401, 'UNAUTHORIZED', 'Malformed API key: expected <id>.<token>');
    },
  );

  it('AUTH-5: the same key as Authorization: Bearer; every 401 names both ways in WWW-Authenticate', async () => {
    const viaBearer = await server.call('GET', '/api/users', { key: null, headers: { Authorization: `Bearer ${server.adminKey}` } });
    expect(viaBearer.status).toBe(200);
    const wrongBearer = await server.call('GET', '/api/users', { key: null, headers: { Authorization: `Bearer unknown123.${'a'.repeat(48)}` } });
    expectError(wrongBearer, 401, 'UNAUTHORIZED', 'Invalid API key');
    expect(wrongBearer.headers.get('www-authenticate')).toBe('ApiKey realm="tessera", Bearer realm="tessera"');
    expect((await server.call('GET', '/api/users', { key: null })).headers.get('www-authenticate')).toBe('ApiKey realm="tessera", Bearer realm="tessera"');
    // A session is not a bearer token: Basic and other schemes are no credential.
    expectError(await server.call('GET', '/api/users', { key: null, headers: { Authorization: 'Basic YWRtaW46eA==' } }), 401, 'UNAUTHORIZED', 'Authentication required');
  });

  it('answers 401 for an unknown key id', async () => {
    expectError(await server.call('GET', '/api/users', { key: `unknown123.${'a'.repeat(48)}` }), 401, 'UNAUTHORIZED', 'Invalid API key');
  });

  it('answers 401 for a wrong token of a real key id', async () => {
    const id = server.adminKey.split('.')[0];
    expectError(await server.call('GET', '/api/users', { key: `${id}.${'b'.repeat(48)}` }), 401, 'UNAUTHORIZED', 'Invalid API key');
  });

  it('stores only a hash of the token', async () => {
    const [id, token] = server.adminKey.split('.');
    const row = await server.db('api_keys').where({ id }).first();
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('rejects an expired key outright', async () => {
    const actor = await createActor(server, { permissions: ['admin'] });
    const created = await server.call('POST', '/api/api-keys', {
      body: { userId: actor.userId, expiresAt: new Date(Date.now() + 60_000).toISOString() },
    });
    expect(created.status).toBe(201);
    expect((await server.call('GET', '/api/users', { key: created.body.apiKey })).status).toBe(200);
    await server.db('api_keys').where({ id: created.body.id }).update({ expiresAt: new Date(Date.now() - 1000) });
    expectError(await server.call('GET', '/api/users', { key: created.body.apiKey }), 401, 'UNAUTHORIZED', 'API key expired');
  });

  it('refuses an expiry in the past at creation', async () => {
    const result = await server.call('POST', '/api/api-keys', { body: { expiresAt: '2000-01-01T00:00:00Z' } });
    expectError(result, 400, 'BAD_REQUEST', 'expiresAt must lie in the future');
  });

  it('narrows a scoped key to its scopes intersected with the owner permissions', async () => {
    const actor = await createActor(server, { permissions: ['admin'] });
    const scoped = await server.call('POST', '/api/api-keys', { key: actor.key, body: { scopes: ['board-view-all'] } });
    expect(scoped.status).toBe(201);
    const session = await server.call('GET', '/api/auth/session', { key: scoped.body.apiKey });
    expect(session.body.permissions).toEqual(['board-view-all']);
    expectError(await server.call('GET', '/api/users', { key: scoped.body.apiKey }), 403, 'FORBIDDEN', 'Permission denied');
    // A scope the owner does not hold grants nothing.
    const plain = await createActor(server);
    const overreach = await server.call('POST', '/api/api-keys', { key: plain.key, body: { scopes: ['admin'] } });
    const overreachSession = await server.call('GET', '/api/auth/session', { key: overreach.body.apiKey });
    expect(overreachSession.body.permissions).toEqual([]);
  });

  it('expands scopes with what they imply', async () => {
    const actor = await createActor(server, { permissions: ['admin'] });
    const scoped = await server.call('POST', '/api/api-keys', { key: actor.key, body: { scopes: ['board-full-all'] } });
    const session = await server.call('GET', '/api/auth/session', { key: scoped.body.apiKey });
    expect(session.body.permissions).toEqual(['board-create', 'board-view-all', 'board-modify-all', 'board-full-all']);
  });

  it('loses access the moment its owner leaves the group', async () => {
    const actor = await createActor(server, { permissions: ['admin'] });
    expect((await server.call('GET', '/api/users', { key: actor.key })).status).toBe(200);
    const removed = await server.call('DELETE', `/api/groups/${actor.groupId}/members/${actor.userId}`);
    expect(removed.status).toBe(204);
    expectError(await server.call('GET', '/api/users', { key: actor.key }), 403, 'FORBIDDEN', 'Permission denied');
  });

  it('stops working when its owner is deleted', async () => {
    const actor = await createActor(server);
    expect((await server.call('DELETE', `/api/users/${actor.userId}`)).status).toBe(204);
    expectError(await server.call('GET', '/api/auth/session', { key: actor.key }), 401, 'UNAUTHORIZED', 'Invalid API key');
  });
});

describe('cookie sessions', () => {
  it('logs in, authenticates by cookie, and logs out', async () => {
    const actor = await createActor(server, { permissions: ['admin'], password: 'cookie-pass-1' });
    const login = await server.call('POST', '/api/auth/login', {
      key: null,
      body: { username: actor.username, password: 'cookie-pass-1' },
    });
    expect(login.status).toBe(200);
    const setCookie = login.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^tessera_session=[0-9a-f]{64}; /);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    const cookie = setCookie.split(';')[0];
    const session = await server.call('GET', '/api/auth/session', { key: null, headers: { Cookie: cookie } });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ userId: actor.userId, authMethod: 'session' });
    expect(session.body.permissions).toContain('admin');

    const logout = await server.call('POST', '/api/auth/logout', {
      key: null,
      headers: { Cookie: cookie, 'Content-Type': 'application/json' },
    });
    expect(logout.status).toBe(204);
    expectError(
      await server.call('GET', '/api/auth/session', { key: null, headers: { Cookie: cookie } }),
      401,
      'UNAUTHORIZED',
      'Authentication required',
    );
  });

  it('stores only a hash of the session token', async () => {
    const actor = await createActor(server, { password: 'cookie-pass-2' });
    const login = await server.call('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'cookie-pass-2' } });
    const token = login.headers.get('set-cookie')!.split(';')[0].split('=')[1];
    const rows = await server.db('sessions').where({ userId: actor.userId });
    expect(rows).toHaveLength(1);
    expect(rows[0].id).not.toBe(token);
  });

  it('refuses a cookie-authenticated simple cross-site write', async () => {
    const actor = await createActor(server, { permissions: ['admin'], password: 'cookie-pass-3' });
    const login = await server.call('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'cookie-pass-3' } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    // A form post: urlencoded body is refused before anything runs.
    const form = await server.call('POST', '/api/groups', {
      key: null,
      raw: 'name=evil',
      headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    // An empty post with a content type other than JSON (a form without fields).
    const emptyText = await server.call('POST', '/api/auth/logout', { key: null, raw: '', headers: { Cookie: cookie, 'Content-Type': 'text/plain' } });
    expectError(emptyText, 403, 'FORBIDDEN', 'Cross-site request refused: a cookie-authenticated write may only send Content-Type: application/json');
    // A JSON post from another origin.
    const crossOrigin = await server.call('POST', '/api/groups', {
      key: null,
      body: { name: 'evil' },
      headers: { Cookie: cookie, Origin: 'https://evil.example' },
    });
    expectError(crossOrigin, 403, 'FORBIDDEN', 'Cross-site request refused: Origin does not match Host');
    expect((await server.call('GET', '/api/groups')).body.map((g: any) => g.name)).not.toContain('evil');
    // The same write from our own origin passes (the server's own origin: a contract proxy in front rewrites Host).
    const sameOrigin = await server.call('POST', '/api/groups', {
      key: null,
      body: { name: 'cookie-made' },
      headers: { Cookie: cookie, Origin: server.directUrl },
    });
    expect(sameOrigin.status).toBe(201);
  });

  it('SEC-5: a login from another site or as a form post is refused and starts no session; the same login from the instance origin signs in', async () => {
    const actor = await createActor(server, { password: 'login-site-pass' });
    const body = { username: actor.username, password: 'login-site-pass' };
    const login = (headers: Record<string, string>, raw?: string) => call(server.directUrl, 'POST', '/api/auth/login', raw === undefined ? { key: null, body, headers } : { key: null, raw, headers });
    for (const [headers, reason] of [
      [{ Origin: 'https://evil.example' }, 'Origin does not match Host'],
      [{ Origin: 'null' }, 'Origin does not match Host'],
      [{ 'Sec-Fetch-Site': 'cross-site' }, 'Sec-Fetch-Site is cross-site'],
      [{ 'Sec-Fetch-Site': 'same-site' }, 'Sec-Fetch-Site is same-site and Origin is missing'],
    ] as const) {
      const refused = await login(headers);
      expectError(refused, 403, 'FORBIDDEN', `Cross-site request refused: ${reason}`);
      expect(refused.headers.get('set-cookie')).toBeNull();
    }
    // A form post and a text/plain post (what another site's page can send without a preflight).
    for (const contentType of ['application/x-www-form-urlencoded', 'text/plain']) {
      const raw = contentType === 'text/plain' ? JSON.stringify(body) : `username=${actor.username}&password=login-site-pass`;
      const refused = await login({ 'Content-Type': contentType }, raw);
      expect(refused.status).toBe(415);
      expect(refused.headers.get('set-cookie')).toBeNull();
    }
    const own = await login({ Origin: server.directUrl, 'Sec-Fetch-Site': 'same-origin' });
    expect(own.status).toBe(200);
    expect(own.headers.get('set-cookie')).toMatch(/^tessera_session=/);
  });

  it('answers a wrong password and an unknown user alike', async () => {
    const actor = await createActor(server, { password: 'right-password' });
    const wrong = await server.call('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'wrong-password' } });
    const unknown = await server.call('POST', '/api/auth/login', { key: null, body: { username: 'nobody-here', password: 'whatever1' } });
    expectError(wrong, 401, 'UNAUTHORIZED', 'Invalid username or password');
    expectError(unknown, 401, 'UNAUTHORIZED', 'Invalid username or password');
  });

  it('SEC-3: throttles failed logins per username and client address', async () => {
    const actor = await createActor(server, { password: 'throttle-pass' });
    for (let i = 0; i < 5; i++) {
      const attempt = await server.call('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'nope-nope' } });
      expect(attempt.status).toBe(401);
    }
    const blocked = await server.call('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'throttle-pass' } });
    expectError(blocked, 429, 'TOO_MANY_REQUESTS', 'Too many failed login attempts, retry later');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('anonymous access', () => {
  it('serves health, info and the OpenAPI document without credentials', async () => {
    const live = await call(server.url, 'GET', '/api/health/live');
    expect(live.status).toBe(200);
    expect(live.body.status).toBe('ok');
    const ready = await call(server.url, 'GET', '/api/health/ready');
    expect(ready.status).toBe(200);
    const info = await call(server.url, 'GET', '/api/info');
    expect(info.body.version).toMatch(/^\d+\.\d+\.\d+/);
    const doc = await call(server.url, 'GET', '/api/openapi.json');
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toContain('/api/users');
  });

  it('ignores a bad key on routes that take no credentials', async () => {
    expect((await call(server.url, 'GET', '/api/health/live', { key: 'garbage' })).status).toBe(200);
  });
});
