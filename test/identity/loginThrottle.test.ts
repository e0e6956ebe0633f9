import { createActor } from '../support/actors';
import { expectError } from '../support/expect';
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
    expect(blocked.headers.get('ratelimit-policy')).toBe('"failed-logins-per-user";q=5;w=900');
    expect(blocked.headers.get('ratelimit')).toBe(`"failed-logins-per-user";r=0;t=${retryAfter}`);
  });
});
