import { createActor } from '../support/actors';
import { expectError } from '../support/expect';
import { requestFrom } from '../support/fromAddress';
import { CallResult, SiblingServer, TestServer, useTestServer } from '../support/server';

const server = useTestServer();
/** A second instance on the same database, on PostgreSQL. */
let sibling: SiblingServer | null = null;
beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) sibling = await server.startSibling();
});

type Login = (body: { username: string; password: string }) => Promise<CallResult>;
const loginAt =
  (target: Pick<TestServer, 'call'>): Login =>
  (body) =>
    target.call('POST', '/api/auth/login', { key: null, body });

/** 40 simultaneous wrong passwords spread over the instances, then the right one: at most 5 may be evaluated. */
async function expectThrottledUnderConcurrency(instances: Login[]): Promise<void> {
  const actor = await createActor(server, { password: 'right-password-1' });
  const attempts = await Promise.all(
    Array.from({ length: 40 }, (_, i) => instances[i % instances.length]({ username: actor.username, password: `wrong-${i}` })),
  );
  const evaluated = attempts.filter((a) => a.status === 401);
  const throttled = attempts.filter((a) => a.status === 429);
  expect({ evaluated: evaluated.length, throttled: throttled.length }).toEqual({ evaluated: 5, throttled: 35 });
  for (const attempt of evaluated) expectError(attempt, 401, 'UNAUTHORIZED', 'Invalid username or password');
  for (const attempt of throttled) {
    expectError(attempt, 429, 'TOO_MANY_REQUESTS', 'Too many failed login attempts, retry later');
    expect(Number(attempt.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  for (const login of instances) {
    expectError(
      await login({ username: actor.username, password: 'right-password-1' }),
      429,
      'TOO_MANY_REQUESTS',
      'Too many failed login attempts, retry later',
    );
  }
}

describe('login throttle under concurrency', () => {
  it('holds the per-username limit for simultaneous attempts on one instance', async () => {
    await expectThrottledUnderConcurrency([loginAt(server)]);
  });

  (process.env.TEST_DATABASE_URL ? it : it.skip)('holds the limit across two instances on one database', async () => {
    await expectThrottledUnderConcurrency([loginAt(server), loginAt(sibling!)]);
  });

  it('does not count successful logins against the client address', async () => {
    const actor = await createActor(server, { password: 'right-password-2' });
    // More successes from one address than its failure limit (20), a few at a time: an attempt in flight holds a
    // slot of the username's counter, so no more than its limit (5) may run at once.
    for (let round = 0; round < 6; round++) {
      const logins = await Promise.all(
        Array.from({ length: 4 }, () => loginAt(server)({ username: actor.username, password: 'right-password-2' })),
      );
      expect(logins.map((l) => l.status)).toEqual(Array(4).fill(200));
    }
  });

  it('forgets the username failures after a successful login', async () => {
    const actor = await createActor(server, { password: 'right-password-3' });
    const login = loginAt(server);
    for (let i = 0; i < 2; i++) expect((await login({ username: actor.username, password: 'wrong-one' })).status).toBe(401);
    expect((await login({ username: actor.username, password: 'right-password-3' })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await login({ username: actor.username, password: 'wrong-two' })).status).toBe(401);
    expectError(await login({ username: actor.username, password: 'wrong-three' }), 429, 'TOO_MANY_REQUESTS');
  });
});

describe('rate-limit headers', () => {
  // Its own instance, so that the failures of the tests above do not fill this client address's counter first.
  const fresh = useTestServer();

  it('RATE-1: a throttled login names the limit it hit in RateLimit-Policy and RateLimit, with Retry-After', async () => {
    const actor = await createActor(fresh, { password: 'right-password-4' });
    const login = loginAt(fresh);
    for (let i = 0; i < 5; i++) expect((await login({ username: actor.username, password: 'wrong' })).status).toBe(401);
    const blocked = await login({ username: actor.username, password: 'wrong' });
    expectError(blocked, 429, 'TOO_MANY_REQUESTS', 'Too many failed login attempts, retry later');
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(blocked.headers.get('ratelimit-policy')).toBe('"failed-logins-per-user-and-address";q=5;w=900');
    expect(blocked.headers.get('ratelimit')).toBe(`"failed-logins-per-user-and-address";r=0;t=${retryAfter}`);
  });
});

describe('SEC-3/SEC-7: the throttle is per username and address; refusals are audited once per window', () => {
  // Its own instance: the client addresses 127.0.0.2 and 127.0.0.3 start with empty counters.
  const target = useTestServer();

  /** A login sent from a second loopback address (the server sees that address, LB-2). */
  const loginFrom = async (address: string, body: { username: string; password: string }) => {
    const answer = await requestFrom(address, `${target.directUrl}/api/auth/login`, { method: 'POST', body });
    return { ...answer, body: JSON.parse(answer.text) as { message: string; code: string; data: Record<string, unknown> } };
  };
  type AuditRow = { outcome: string; clientAddress: string | null; details: { username?: string; throttled?: string; retryAfterSeconds?: number } };
  const refusalsAudited = async (username: string): Promise<AuditRow[]> =>
    ((await target.call('GET', '/api/audit?action=auth.login&limit=500')).body as AuditRow[]).filter(
      (entry) => entry.details.username === username && entry.details.throttled !== undefined,
    );

  it('SEC-3: failures from one address never refuse the right password from another; SEC-7: the refusals leave one audit entry', async () => {
    const actor = await createActor(target, { password: 'right-password-5' });
    for (let i = 0; i < 5; i++) expect((await loginFrom('127.0.0.2', { username: actor.username, password: `wrong-${i}` })).status).toBe(401);
    // From the failing address: refused, the right password included, several times.
    for (const password of ['wrong-5', 'right-password-5', 'wrong-6', 'wrong-7']) {
      const refused = await loginFrom('127.0.0.2', { username: actor.username, password });
      expect({ status: refused.status, message: refused.body.message, code: refused.body.code }).toEqual({
        status: 429,
        message: 'Too many failed login attempts, retry later',
        code: 'TOO_MANY_REQUESTS',
      });
      expect(refused.headers['ratelimit-policy']).toBe('"failed-logins-per-user-and-address";q=5;w=900');
    }
    // From an address that did not fail (127.0.0.1): the right password signs in.
    const signedIn = await loginAt(target)({ username: actor.username, password: 'right-password-5' });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ username: actor.username, authMethod: 'session' });
    // SEC-7: four refused attempts, one audit entry (aggregated per username and address per window), naming the address.
    const audited = await refusalsAudited(actor.username);
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({
      outcome: 'failure',
      clientAddress: '127.0.0.2',
      details: { username: actor.username, throttled: 'failed-logins-per-user-and-address' },
    });
  });

  it('SEC-3: the global per-address limit refuses an address that tries many usernames; SEC-7: audited once for the address', async () => {
    const usernames = Array.from({ length: 6 }, (_, i) => `nobody-${Date.now().toString(36)}-${i}`);
    // 4 failures on each of 5 usernames: under the per-username limit (5), at the address's limit (20).
    for (const username of usernames.slice(0, 5)) {
      for (let i = 0; i < 4; i++) expect((await loginFrom('127.0.0.3', { username, password: 'wrong-password' })).status).toBe(401);
    }
    const refused = await loginFrom('127.0.0.3', { username: usernames[5], password: 'wrong-password' });
    expect({ status: refused.status, message: refused.body.message, code: refused.body.code }).toEqual({
      status: 429,
      message: 'Too many failed login attempts, retry later',
      code: 'TOO_MANY_REQUESTS',
    });
    expect(refused.headers['ratelimit-policy']).toBe('"failed-logins-per-address";q=20;w=900');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) expect((await loginFrom('127.0.0.3', { username: usernames[5], password: 'wrong-password' })).status).toBe(429);
    const audited = await refusalsAudited(usernames[5]);
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ clientAddress: '127.0.0.3', details: { throttled: 'failed-logins-per-address' } });
    // Another address is not touched by this one's limit.
    expect((await loginFrom('127.0.0.4', { username: usernames[5], password: 'wrong-password' })).status).toBe(401);
  });
});
