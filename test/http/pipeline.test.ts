import { call, CallOptions, startTestServer, TestServer, useTestServer } from '../support/server';

/**
 * These tests are about the HTTP transport of the server itself (bodies, limits, shutdown), so they talk to it
 * directly, also during the contract run (where Prism would answer malformed requests itself).
 */
const direct = (target: TestServer, method: string, path: string, options: CallOptions = {}) =>
  call(target.directUrl, method, path, { key: target.adminKey, ...options });

const server = useTestServer({ BODY_LIMIT: '2kb' });

describe('request pipeline', () => {
  it('answers unknown routes with a 404 error body', async () => {
    const result = await direct(server, 'GET', '/api/does-not-exist');
    expect(result.status).toBe(404);
    expect(result.body).toEqual({ message: 'Not found', code: 'NOT_FOUND', data: {} });
  });

  it('answers an undeclared method on a known path with 405', async () => {
    const result = await direct(server, 'PATCH', '/api/users');
    expect(result.status).toBe(405);
    expect(result.body.code).toBe('METHOD_NOT_SUPPORTED');
  });

  it('answers 413 for a body over the configured limit, writing nothing', async () => {
    const result = await direct(server, 'POST', '/api/groups', { body: { name: 'x'.repeat(4000) } });
    expect(result.status).toBe(413);
    expect(result.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await direct(server, 'GET', '/api/groups')).body).toHaveLength(1);
  });

  it('answers 400 for malformed JSON and 415 for other content types', async () => {
    const malformed = await direct(server, 'POST', '/api/groups', { raw: '{"name":', headers: { 'Content-Type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'BAD_REQUEST', message: 'Failed to parse request body: invalid JSON' });
    const text = await direct(server, 'POST', '/api/groups', { raw: 'name=x', headers: { 'Content-Type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('accepts a JSON content type on a bodyless request', async () => {
    const group = await direct(server, 'POST', '/api/groups', { body: { name: 'temp' } });
    const result = await direct(server, 'DELETE', `/api/groups/${group.body.groupId}`, { headers: { 'Content-Type': 'application/json' } });
    expect(result.status).toBe(204);
    const get = await direct(server, 'GET', '/api/users', { headers: { 'Content-Type': 'application/json' } });
    expect(get.status).toBe(200);
  });

  it('answers 400 for a missing required body', async () => {
    const result = await direct(server, 'POST', '/api/groups');
    expect(result.status).toBe(400);
    expect(result.body.code).toBe('BAD_REQUEST');
  });

  it('ignores unknown query parameters', async () => {
    const result = await direct(server, 'GET', '/api/users?sort=name');
    expect(result.status).toBe(200);
    expect(result.body.map((user: { username: string }) => user.username)).toContain('admin');
  });

  it('answers 400, not 500, for a path parameter with broken percent-encoding, with a key or with a cookie', async () => {
    const withKey = await direct(server, 'GET', '/api/boards/%E0%A4%A');
    expect(withKey.status).toBe(400);
    expect(withKey.body).toEqual({ message: 'Malformed percent-encoding in path parameter "id"', code: 'BAD_REQUEST', data: {} });
    const withCookie = await direct(server, 'GET', '/api/boards/%E0%A4%A', { key: null, headers: { Cookie: 'tessera_session=unknown' } });
    expect(withCookie.status).toBe(400);
    expect(withCookie.body).toEqual({ message: 'Malformed percent-encoding in path parameter "id"', code: 'BAD_REQUEST', data: {} });
  });

  it('sends a request id with every answer', async () => {
    const result = await call(server.directUrl, 'GET', '/api/info');
    expect(result.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('database failures', () => {
  it('DB-2: answers 503 without leaking internals when the database is gone; readiness says so, liveness stays 200', async () => {
    const own = await startTestServer();
    try {
      await own.db.destroy();
      const result = await direct(own, 'GET', '/api/users');
      expect(result.status).toBe(503);
      expect(result.body).toEqual({ message: 'Database unavailable, retry later', code: 'SERVICE_UNAVAILABLE', data: {} });
      const live = await call(own.directUrl, 'GET', '/api/health/live');
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: 'ok' });
      const ready = await call(own.directUrl, 'GET', '/api/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'unavailable', checks: { database: { status: 'unavailable', latencyMs: null } } });
    } finally {
      await own.stop().catch(() => undefined);
    }
  });
});

describe('graceful shutdown', () => {
  it('finishes in-flight requests, then refuses new connections', async () => {
    const own = await startTestServer();
    // A slow login (bcrypt) is in flight when the stop begins.
    const inFlight = direct(own, 'POST', '/api/auth/login', { key: null, body: { username: 'admin', password: 'not-the-password' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const stopping = own.stop();
    const result = await inFlight;
    expect(result.status).toBe(401);
    await stopping;
    await expect(fetch(`${own.directUrl}/api/info`)).rejects.toThrow();
  });
});
