import { createActor } from '../support/actors';
import { expectError } from '../support/expect';
import { call, startTestServer, useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { allowedRequestHeaders, exposedHeaders } from '../../src/http/cors';
import { corsOriginsFrom } from '../../src/config/config';

const listed = 'https://app.example';
const unlisted = 'https://evil.example';
const server = useTestServer({ CORS_ORIGINS: `${listed}, http://localhost:3000` });

/** Straight to the app: the CORS headers are the app's, whatever a contract proxy in front would add. */
const direct = (method: string, path: string, options: Parameters<typeof call>[3] = {}) => call(server.directUrl, method, path, { key: server.adminKey, ...options });

const corsOf = (headers: Headers) => ({
  allowOrigin: headers.get('access-control-allow-origin'),
  allowCredentials: headers.get('access-control-allow-credentials'),
  expose: headers.get('access-control-expose-headers'),
});

async function login(origin: string) {
  const actor = await createActor(server, { permissions: ['board-create'], password: 'cors-pass-1' });
  const answer = await direct('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'cors-pass-1' }, headers: { Origin: origin } });
  expect(answer.status).toBe(200);
  return answer.headers.get('set-cookie')!.split(';')[0];
}

describe('CORS', () => {
  it('CORS-1: CORS_ORIGINS takes exact origins only', () => {
    expect(corsOriginsFrom({ CORS_ORIGINS: ' https://a.example ,http://localhost:3000/' })).toEqual(['https://a.example', 'http://localhost:3000']);
    expect(corsOriginsFrom({})).toEqual([]);
    for (const bad of ['*', 'https://*.example.com', 'https://a.example/app', 'null', 'ftp://a.example']) {
      expect(() => corsOriginsFrom({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS must be a comma-separated list of origins/);
    }
  });

  it('CORS-1: without CORS_ORIGINS no answer carries a CORS header, nor Vary: Origin', async () => {
    const plain = await startTestServer();
    try {
      const answer = await call(plain.directUrl, 'GET', '/api/info', { headers: { Origin: listed } });
      expect(answer.status).toBe(200);
      expect(corsOf(answer.headers)).toEqual({ allowOrigin: null, allowCredentials: null, expose: null });
      expect(answer.headers.get('vary') ?? '').not.toMatch(/Origin/);
      const preflight = await call(plain.directUrl, 'OPTIONS', '/api/boards', { headers: { Origin: listed, 'Access-Control-Request-Method': 'POST' } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
    } finally {
      await plain.stop();
    }
  });

  it('CORS-2, CORS-4: a listed origin gets itself, credentials and the exposed headers on every answer, errors included', async () => {
    for (const answer of [await direct('GET', '/api/info', { headers: { Origin: listed } }), await direct('GET', '/api/boards', { key: null, headers: { Origin: listed } })]) {
      expect(corsOf(answer.headers)).toEqual({ allowOrigin: listed, allowCredentials: 'true', expose: exposedHeaders.join(', ') });
      expect(answer.headers.get('vary')).toMatch(/^Origin\b/);
    }
    const missing = await direct('GET', '/api/boards/nonexistent0000000000000', { headers: { Origin: listed } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(listed);
    for (const name of ['ETag', 'Link', 'Location', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'Idempotent-Replayed']) expect(exposedHeaders).toContain(name);
  });

  it('CORS-2: a route\'s own Vary (the start page\'s) is added to Vary: Origin, not put in its place', async () => {
    const page = await direct('GET', '/', { key: null, headers: { Origin: unlisted } });
    expect(page.headers.get('vary')).toMatch(/^Origin, User-Agent, Sec-CH-UA-Mobile\b/);
  });

  it('CORS-2: an unlisted origin gets no CORS header, only Vary: Origin', async () => {
    for (const origin of [unlisted, 'null', 'https://app.example.evil.example', 'http://app.example']) {
      const answer = await direct('GET', '/api/info', { headers: { Origin: origin } });
      expect(answer.status).toBe(200);
      expect(corsOf(answer.headers)).toEqual({ allowOrigin: null, allowCredentials: null, expose: null });
      expect(answer.headers.get('vary')).toMatch(/^Origin\b/);
    }
  });

  it('CORS-3: a listed origin\'s preflight names the path\'s methods, the request headers allowed and a max age', async () => {
    const preflight = await direct('OPTIONS', '/api/boards', {
      key: null,
      headers: { Origin: listed, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, idempotency-key' },
    });
    expect(preflight.status).toBe(204);
    expect({
      allow: preflight.headers.get('allow'),
      methods: preflight.headers.get('access-control-allow-methods'),
      headers: preflight.headers.get('access-control-allow-headers'),
      maxAge: preflight.headers.get('access-control-max-age'),
      ...corsOf(preflight.headers),
      vary: preflight.headers.get('vary'),
    }).toEqual({
      allow: preflight.headers.get('allow'),
      methods: preflight.headers.get('allow'),
      headers: allowedRequestHeaders.join(', '),
      maxAge: '600',
      allowOrigin: listed,
      allowCredentials: 'true',
      expose: exposedHeaders.join(', '),
      vary: 'Origin',
    });
    expect(preflight.headers.get('allow')!.split(', ')).toEqual(expect.arrayContaining(['GET', 'POST']));
  });

  it('CORS-3: an unlisted origin\'s preflight allows nothing', async () => {
    const preflight = await direct('OPTIONS', '/api/boards', { key: null, headers: { Origin: unlisted, 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect({
      methods: preflight.headers.get('access-control-allow-methods'),
      headers: preflight.headers.get('access-control-allow-headers'),
      ...corsOf(preflight.headers),
    }).toEqual({ methods: null, headers: null, allowOrigin: null, allowCredentials: null, expose: null });
  });

  it('CORS-5: a cookie-authenticated JSON write from a listed origin passes the cross-site check', async () => {
    const cookie = await login(listed);
    for (const fetchSite of ['same-site', 'cross-site']) {
      const created = await direct('POST', '/api/boards', {
        key: null,
        body: { name: unique('cors'), columnCount: 12, isPublic: false },
        headers: { Cookie: cookie, Origin: listed, 'Sec-Fetch-Site': fetchSite },
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('access-control-allow-origin')).toBe(listed);
    }
  });

  it('CORS-5: a listed origin\'s simple write (a POST without Content-Type) is still refused, and so is any unlisted origin', async () => {
    const cookie = await login(listed);
    expectError(
      await direct('POST', '/api/auth/logout', { key: null, headers: { Cookie: cookie, Origin: listed, 'Sec-Fetch-Site': 'same-site' } }),
      403,
      'FORBIDDEN',
      'Cross-site request refused: a write from another origin must send Content-Type: application/json',
    );
    expectError(
      await direct('POST', '/api/auth/logout', { key: null, raw: '', headers: { Cookie: cookie, Origin: listed, 'Content-Type': 'text/plain' } }),
      403,
      'FORBIDDEN',
      'Cross-site request refused: a cookie-authenticated write may only send Content-Type: application/json',
    );
    const name = unique('evil');
    expectError(
      await direct('POST', '/api/boards', { key: null, body: { name, columnCount: 12, isPublic: false }, headers: { Cookie: cookie, Origin: unlisted } }),
      403,
      'FORBIDDEN',
      'Cross-site request refused: Origin does not match Host',
    );
    // The session still stands (the refused logout did nothing), and the refused board was not created.
    expect((await direct('GET', '/api/auth/session', { key: null, headers: { Cookie: cookie } })).status).toBe(200);
    expect((await direct('GET', `/api/boards/by-name/${name}`)).status).toBe(404);
    // The same logout with a JSON type (preflighted in a browser) passes.
    expect((await direct('POST', '/api/auth/logout', { key: null, headers: { Cookie: cookie, Origin: listed, 'Content-Type': 'application/json' } })).status).toBe(204);
  });

  it('CORS-5: a login from an unlisted origin is still refused', async () => {
    const actor = await createActor(server, { password: 'cors-pass-2' });
    const refused = await direct('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'cors-pass-2' }, headers: { Origin: unlisted } });
    expectError(refused, 403, 'FORBIDDEN', 'Cross-site request refused: Origin does not match Host');
    expect(refused.headers.get('set-cookie')).toBeNull();
  });
});
