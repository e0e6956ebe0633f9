import { runCli } from '../../src/cli/main';
import { databaseBuckets, processBuckets, pruneBuckets } from '../../src/ratelimit/buckets';
import { clockBoardFile } from '../support/boardFiles';
import { expectError } from '../support/expect';
import { call, useTestServer } from '../support/server';

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
    // Until the bucket is empty (on a slow machine a token may have come back meanwhile: one per second).
    let limited = first;
    for (let i = 0; i < 50 && limited.status !== 429; i++) limited = await server.call('GET', '/api/boards', { key: actor.key });
    expectError(limited, 429, 'TOO_MANY_REQUESTS', 'Rate limit reached: at most 3 reads per 3 s per caller, retry later');
    expect(limited.body.data).toEqual({ retryAfterSeconds: 1, class: 'reads' });
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(policyOf(limited.headers)).toBe('"reads";q=3;w=3');
    // RATE-4: `t` is the seconds until the whole quota is back (about the window), not until the next request.
    expect(limited.headers.get('ratelimit')).toBe('"reads";r=0;t=3');
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

  it('RATE-4: the RateLimit fields follow the IETF draft: r counts down per request, t is the seconds until the quota is restored', async () => {
    const actor = await createCaller();
    // A write every caller may send (logging out a key-authenticated caller changes nothing): the writes bucket, 2/60.
    const write = () => server.call('POST', '/api/auth/logout', { key: actor.key });
    const first = await write();
    expect(first.status).toBe(204);
    // Structured fields: a quoted policy name, then integer parameters (draft-ietf-httpapi-ratelimit-headers).
    expect(policyOf(first.headers)).toBe('"writes";q=2;w=60');
    const [, r1, t1] = /^"writes";r=(\d+);t=(\d+)$/.exec(first.headers.get('ratelimit') ?? '') ?? [];
    expect(Number(r1)).toBe(1); // 2 - 1 request
    // One request of two taken from a bucket refilled over 60 s: full again in about 30 s, never more than the window.
    expect(Number(t1)).toBeGreaterThan(0);
    expect(Number(t1)).toBeLessThanOrEqual(30);
    const second = await write();
    expect(second.status).toBe(204);
    expect(second.headers.get('ratelimit')).toMatch(/^"writes";r=0;t=\d+$/);
    const limited = await write();
    expectError(limited, 429, 'TOO_MANY_REQUESTS', 'Rate limit reached: at most 2 writes per 60 s per caller, retry later');
    expect(policyOf(limited.headers)).toBe('"writes";q=2;w=60');
    const [, r3, t3] = /^"writes";r=(\d+);t=(\d+)$/.exec(limited.headers.get('ratelimit') ?? '') ?? [];
    expect(Number(r3)).toBe(0);
    // The quota is restored a whole window after it ran out (the bucket refills 2 requests over 60 s), not in 2 s.
    expect(Number(t3)).toBeGreaterThan(30);
    expect(Number(t3)).toBeLessThanOrEqual(60);
    // Retry-After: until one request is free (about half the window here), at most t.
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(Number(t3));
    expect(limited.body.data).toEqual({ retryAfterSeconds: retryAfter, class: 'writes' });
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
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(30);
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

  it('RATE-3: a tRPC batch takes one token per procedure', async () => {
    const actor = await createCaller();
    // The form tRPC's batch link sends (plain commas) goes straight to the server: Prism's validating proxy reads an
    // unencoded comma in a path parameter as a list and calls the valid request a violation. The encoded form below
    // goes through the proxy.
    const batch = (count: number) =>
      call(server.directUrl, 'GET', `/api/trpc/${Array(count).fill('board.getAllBoards').join(',')}?batch=1&input=${encodeURIComponent('{}')}`, { key: actor.key });
    // A batch of 4 needs more than the whole bucket (3): refused, nothing run.
    const tooMany = await batch(4);
    expect(tooMany.status).toBe(429);
    expect(tooMany.headers.get('ratelimit-policy')).toBe('"reads";q=3;w=3');
    // A batch of 3 empties the bucket at once.
    const three = await batch(3);
    expect(three.status).toBe(200);
    expect(three.body).toHaveLength(3);
    expect(three.headers.get('ratelimit')).toMatch(/^"reads";r=0;/);
    // Encoded commas count the same.
    const other = await createCaller();
    const encoded = await server.call('GET', `/api/trpc/board.getAllBoards%2Cboard.getAllBoards%2Cboard.getAllBoards%2Cboard.getAllBoards?batch=1&input=${encodeURIComponent('{}')}`, { key: other.key });
    expect(encoded.status).toBe(429);
  });

  it('RATE-3: MCP import_board and apply_boards take from the imports bucket, as their REST routes do', async () => {
    const actor = await createCaller();
    const headers = { Accept: 'application/json, text/event-stream' };
    const tool = (id: number, name: string, args: unknown) =>
      server.call('POST', '/api/mcp', { key: actor.key, headers, body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } } });
    const file = clockBoardFile(`rate-mcp-${Date.now()}`, 1);
    const first = await tool(1, 'import_board', { ...file, dryRun: true });
    expect(first.status).toBe(200);
    // The caller may not create boards: refused by the operation, after its token was taken (as over REST).
    expect(first.body.result.structuredContent).toMatchObject({ code: 'FORBIDDEN' });
    // The imports bucket (1 per 60 s) is empty now: the next import is refused, through MCP or REST.
    const second = await tool(2, 'apply_boards', { managedBy: 'rate-mcp', boards: [file], dryRun: true });
    expect(second.body.result).toMatchObject({ isError: true, structuredContent: { code: 'TOO_MANY_REQUESTS', message: 'Rate limit reached: at most 1 imports per 60 s per caller, retry later' } });
    expectError(await server.call('POST', '/api/boards/import?dryRun=true', { key: actor.key, body: file }), 429, 'TOO_MANY_REQUESTS');
  });

  it('RATE-2: the buckets of one process are bounded: the least recently used caller is forgotten first', async () => {
    const buckets = processBuckets(3);
    const policy = { quota: 1, windowSeconds: 3600 };
    for (const key of ['a', 'b', 'c']) expect((await buckets.take(key, policy)).allowed).toBe(true);
    expect((await buckets.take('b', policy)).allowed).toBe(false);
    expect((await buckets.take('d', policy)).allowed).toBe(true);
    expect(buckets.size).toBe(3);
    // 'a' was the least recently used: forgotten (a full bucket again); 'b' and 'c' are still empty.
    expect((await buckets.take('b', policy)).allowed).toBe(false);
    expect((await buckets.take('c', policy)).allowed).toBe(false);
    expect((await buckets.take('a', policy)).allowed).toBe(true);
    expect(buckets.size).toBe(3);
  });

  it('RATE-2: rows of buckets that have refilled are pruned (PostgreSQL)', async () => {
    if (!process.env.TEST_DATABASE_URL) {
      expect(await pruneBuckets(server.db, [{ quota: 1, windowSeconds: 60 }])).toBe(0);
      return;
    }
    await server.db('rate_limit_buckets').insert([
      { key: 'reads:prune-old', tokens: 0, updated_at: server.db.raw(`now() - interval '2 hours'`) },
      { key: 'reads:prune-recent', tokens: 0, updated_at: server.db.raw(`now() - interval '30 seconds'`) },
    ]);
    expect(await pruneBuckets(server.db, [{ quota: 5, windowSeconds: 60 }, null, { quota: 1, windowSeconds: 120 }])).toBeGreaterThanOrEqual(1);
    const keys = (await server.db('rate_limit_buckets').whereIn('key', ['reads:prune-old', 'reads:prune-recent']).select('key')).map((row: { key: string }) => row.key);
    expect(keys).toEqual(['reads:prune-recent']);
  });
});
