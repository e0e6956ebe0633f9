import { runCli } from '../../src/cli/main';
import { databaseBuckets, processBuckets } from '../../src/ratelimit/buckets';
import { expectError } from '../support/expect';
import { useTestServer } from '../support/server';

// Low limits set explicitly (the defaults are far above what the suites send, RATE-5): 3 reads per 3 s, 2 writes per
// 60 s, so the 429s come at once and the reads' bucket refills one token a second.
const server = useTestServer({ RATE_LIMIT_READS: '3/3', RATE_LIMIT_WRITES: '2/60', RATE_LIMIT_IMPORTS: '1/60' });

const policyOf = (headers: Headers) => headers.get('ratelimit-policy');
const remainingOf = (headers: Headers) => Number(/;r=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1]);

/** Waits until the condition holds (polling, never a fixed sleep; the test's own timeout bounds it). */
async function eventually<T>(attempt: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await attempt();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let callers = 0;
/** A user with an API key, made with the local admin commands (so the setup takes nothing from the admin's buckets). */
async function createCaller(): Promise<{ key: string }> {
  callers += 1;
  const name = `rate${callers}_${Date.now().toString(36)}`;
  await runCli(['users', 'create', name, '--password', 'password-123'], server.db);
  const key = (await runCli(['api-keys', 'create', name], server.db)) as { apiKey: string };
  return { key: key.apiKey };
}

describe('RATE: per-caller rate limits', () => {
  it('RATE-2/RATE-4: reads carry RateLimit fields; an empty bucket is a 429 with Retry-After, and it refills (reset)', async () => {
    const actor = await createCaller();
    const first = await server.call('GET', '/api/boards', { key: actor.key });
    expect(first.status).toBe(200);
    expect(policyOf(first.headers)).toBe('"reads";q=3;w=3');
    expect(first.headers.get('ratelimit')).toMatch(/^"reads";r=2;t=\d+$/);
    await server.call('GET', '/api/boards', { key: actor.key });
    await server.call('GET', '/api/boards', { key: actor.key });
    const limited = await server.call('GET', '/api/boards', { key: actor.key });
    expectError(limited, 429, 'TOO_MANY_REQUESTS', 'Rate limit reached: at most 3 reads per 3 s per caller, retry later');
    expect(limited.body.data).toEqual({ retryAfterSeconds: 1, class: 'reads' });
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(policyOf(limited.headers)).toBe('"reads";q=3;w=3');
    expect(limited.headers.get('ratelimit')).toMatch(/^"reads";r=0;t=1$/);
    // The tRPC surface answers the same limit as a tRPC error (TOO_MANY_REQUESTS, -32029) with the same headers.
    const trpc = await server.call('GET', '/api/trpc/board.getAllBoards', { key: actor.key });
    expect(trpc.status).toBe(429);
    expect(trpc.body.error.json).toMatchObject({ code: -32029, data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429 } });
    expect(trpc.headers.get('retry-after')).toBe('1');
    // Another caller has its own bucket.
    const other = await createCaller();
    expect((await server.call('GET', '/api/boards', { key: other.key })).status).toBe(200);
    // The bucket refills: the same caller is served again.
    const again = await eventually(
      () => server.call('GET', '/api/boards', { key: actor.key }),
      (result) => result.status === 200,
    );
    expect(remainingOf(again.headers)).toBeGreaterThanOrEqual(0);
  });

  it('RATE-3: writes have their own bucket; errors of a limited operation carry the fields too', async () => {
    const actor = { key: server.adminKey };
    const name = `rate-${Date.now()}`;
    const created = await server.call('POST', '/api/boards', { key: actor.key, body: { name, columnCount: 10, isPublic: false } });
    expect(created.status).toBe(201);
    expect(policyOf(created.headers)).toBe('"writes";q=2;w=60');
    const conflict = await server.call('POST', '/api/boards', { key: actor.key, body: { name, columnCount: 10, isPublic: false } });
    expectError(conflict, 409, 'CONFLICT');
    expect(conflict.headers.get('ratelimit')).toMatch(/^"writes";r=0;t=\d+$/);
    const limited = await server.call('POST', '/api/boards', { key: actor.key, body: { name: `${name}-2`, columnCount: 10, isPublic: false } });
    expectError(limited, 429, 'TOO_MANY_REQUESTS', 'Rate limit reached: at most 2 writes per 60 s per caller, retry later');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Nothing was written by the refused request.
    expect((await server.call('GET', `/api/boards/by-name/${name}-2`)).status).toBe(404);
    // Reads of the same caller are not touched by its writes.
    expect((await server.call('GET', '/api/boards', { key: actor.key })).status).toBe(200);
  });

  it('RATE-2: anonymous callers are limited per client address; probes are not limited (RATE-3)', async () => {
    const anonymous = () => server.call('GET', '/api/info', { key: null });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await anonymous());
    expect(answers.some((answer) => answer.status === 429)).toBe(true);
    for (let i = 0; i < 6; i++) {
      const probe = await server.call('GET', '/api/health/live', { key: null });
      expect(probe.status).toBe(200);
      expect(probe.headers.get('ratelimit')).toBeNull();
    }
  });

  it('RATE-2: instances taking leases of the shared bucket never serve more than its quota together', async () => {
    const policy = { quota: 300, windowSeconds: 3600 };
    const instances = [databaseBuckets(server.db), databaseBuckets(server.db), databaseBuckets(server.db)];
    let served = 0;
    let refusals = 0;
    for (let i = 0; refusals < instances.length * 2 && i < 1000; i++) {
      const take = await instances[i % instances.length].take('reads:lease-test', policy);
      if (take.allowed) served += 1;
      else refusals += 1;
    }
    // Leases of 3 (1% of 300): all but the unspent rest of the last leases is served, never more than the quota.
    expect(served).toBeLessThanOrEqual(300);
    expect(served).toBeGreaterThanOrEqual(300 - 3 * instances.length);
  });

  it('RATE-2: the buckets of one process (PGlite) refuse past the quota', async () => {
    const buckets = processBuckets();
    const policy = { quota: 5, windowSeconds: 3600 };
    const takes = [];
    for (let i = 0; i < 7; i++) takes.push((await buckets.take('x', policy)).allowed);
    expect(takes).toEqual([true, true, true, true, true, false, false]);
  });

  it('RATE-2: several instances share one bucket (PostgreSQL)', async () => {
    if (!process.env.TEST_DATABASE_URL) return;
    const sibling = await server.startSibling();
    const actor = await createCaller();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await (i % 2 ? sibling : server).call('GET', '/api/boards', { key: actor.key })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
