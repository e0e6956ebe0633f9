import { createActor } from '../support/actors';
import { expectError } from '../support/expect';
import { call, useTestServer } from '../support/server';
import { runCli } from '../../src/cli/main';
import { sample } from '../support/metrics';
import { requestFrom } from '../support/fromAddress';
import { ConfigError, loadConfig } from '../../src/config/config';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { omittedDefaultMetrics } from '../../src/observability/metrics';

/** METRIC-9: Prometheus' own linter; .ci/run installs it (scripts/ensure-promtool.sh), elsewhere the test needs it installed. */
const promtool = process.env.PROMTOOL_PATH || '/usr/bin/promtool';
const havePromtool = existsSync(promtool);
if (!havePromtool) console.warn(`METRIC-9: ${promtool} is missing, the promtool lint of /metrics is skipped. Install it with: sudo sh scripts/ensure-promtool.sh`);

/** Runs `promtool check metrics` on `text` (its standard input): the exit code and everything it printed. */
function promtoolCheck(text: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(promtool, ['check', 'metrics'], { timeout: 60_000 }, (error, stdout, stderr) =>
      // A non-zero exit is an error whose `code` is the exit status.
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
    child.stdin!.end(text);
  });
}

const metricsToken = 'metrics-token-for-tests';
const server = useTestServer({ METRICS_TOKEN: metricsToken, METRICS_PORT: '0' });

async function scrape(): Promise<string> {
  const answer = await server.call('GET', '/metrics', { key: null, headers: { Authorization: `Bearer ${metricsToken}` } });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
  return answer.body as string;
}

async function audit(query: Record<string, string>) {
  const answer = await server.call('GET', `/api/audit?${new URLSearchParams(query)}`);
  expect(answer.status).toBe(200);
  return answer.body as any[];
}

describe('METRIC: Prometheus metrics', () => {
  it('METRIC-4: /metrics needs the Bearer token on the public port', async () => {
    const anonymous = await server.call('GET', '/metrics', { key: null });
    expectError(anonymous, 401, 'UNAUTHORIZED', 'Authentication required');
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="tessera-metrics"');
    expectError(await server.call('GET', '/metrics', { key: null, headers: { Authorization: 'Bearer wrong' } }), 401, 'UNAUTHORIZED');
  });

  it('METRIC-8: wrong tokens are limited per client address: 429 with the RateLimit fields, even for the right token from there', async () => {
    const scrapeFrom = (address: string, token: string) =>
      requestFrom(address, `${server.directUrl}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
    for (let i = 0; i < 10; i++) expect((await scrapeFrom('127.0.0.2', `wrong-guess-${i}`)).status).toBe(401);
    for (const token of ['wrong-guess-10', metricsToken]) {
      const refused = await scrapeFrom('127.0.0.2', token);
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.text)).toEqual({
        message: 'Too many failed metrics token attempts, retry later',
        code: 'TOO_MANY_REQUESTS',
        data: { retryAfterSeconds: expect.any(Number) },
      });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers['ratelimit-policy']).toBe('"failed-metrics-tokens-per-address";q=10;w=60');
      expect(refused.headers.ratelimit).toBe(`"failed-metrics-tokens-per-address";r=0;t=${retryAfter}`);
    }
    // Another address is not refused: the right token scrapes, and right tokens never count (many in a row).
    for (let i = 0; i < 12; i++) expect((await scrapeFrom('127.0.0.3', metricsToken)).status).toBe(200);
    expect((await scrapeFrom('127.0.0.3', 'wrong-guess')).status).toBe(401);
  });

  it('METRIC-8: a METRICS_TOKEN under 16 characters stops the server at start with a clear error', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short-token' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: 'fifteen-chars-x' })).toThrow(
      'METRICS_TOKEN must be at least 16 characters long (got 15); generate one with: openssl rand -hex 32',
    );
    expect(loadConfig({ METRICS_TOKEN: 'sixteen-chars-xx' }).metricsToken).toBe('sixteen-chars-xx');
    expect(loadConfig({}).metricsToken).toBeNull();
  });

  it('METRIC-4: METRICS_PORT serves the metrics without a token', async () => {
    expect(server.metricsPort).toEqual(expect.any(Number));
    const answer = await call(`http://127.0.0.1:${server.metricsPort}`, 'GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('tessera_http_requests_total');
    expect((await call(`http://127.0.0.1:${server.metricsPort}`, 'GET', '/api/boards')).status).toBe(404);
  });

  it('METRIC-1..3: default and tessera_ metrics are present and move, labelled by operationId', async () => {
    const before = await scrape();
    for (const name of [
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
      'tessera_http_requests_total',
      'tessera_http_request_duration_seconds_bucket',
      'tessera_event_streams',
      'tessera_db_pool_connections',
      'tessera_objects',
    ]) {
      expect(before).toContain(name);
    }
    const name = `metrics-${Date.now()}`;
    const created = await server.call('POST', '/api/boards', { body: { name, columnCount: 10, isPublic: false } });
    expect(created.status).toBe(201);
    await server.call('GET', `/api/boards/${created.body.boardId}`);
    await server.call('GET', `/api/boards/${created.body.boardId}`);
    await server.call('POST', `/api/boards/${created.body.boardId}/plan`, { body: { sections: [], items: [] } });
    const after = await scrape();
    expect(sample(after, 'tessera_http_requests_total', { operation: 'createBoard', status: '201' })).toBe(
      sample(before, 'tessera_http_requests_total', { operation: 'createBoard', status: '201' }) + 1,
    );
    expect(sample(after, 'tessera_http_request_duration_seconds_count', { operation: 'getBoard' })).toBeGreaterThanOrEqual(2);
    expect(sample(after, 'tessera_board_writes_total', { operation: 'createBoard' })).toBeGreaterThan(sample(before, 'tessera_board_writes_total', { operation: 'createBoard' }));
    expect(sample(after, 'tessera_history_revisions_recorded_total')).toBeGreaterThan(sample(before, 'tessera_history_revisions_recorded_total'));
    expect(sample(after, 'tessera_document_cache_requests_total', { result: 'hit' })).toBeGreaterThan(0);
    expect(sample(after, 'tessera_plans_total', { operation: 'planBoardSave' })).toBeGreaterThan(0);
    expect(sample(after, 'tessera_objects', { kind: 'users' })).toBeGreaterThanOrEqual(1);
    // Never a raw path as a label.
    expect(after).not.toContain(`/api/boards/${created.body.boardId}`);
  });
});

describe('AUDIT: the audit log', () => {
  (havePromtool ? it : it.skip)('METRIC-9: the exposition, after traffic, passes `promtool check metrics` (exit 0, nothing reported)', async () => {
    // Some traffic first, so that the labelled series exist: an error, a write, a plan, a 429 of the metrics throttle.
    expect((await server.call('GET', '/api/boards/no-such-board')).status).toBe(404);
    const created = await server.call('POST', '/api/boards', { body: { name: `promtool-${Date.now()}`, columnCount: 10, isPublic: false } });
    expect(created.status).toBe(201);
    await server.call('POST', `/api/boards/${created.body.boardId}/plan`, { body: { sections: [], items: [] } });
    const text = await scrape();
    for (const name of omittedDefaultMetrics) expect(text).not.toContain(`${name} `);
    expect(text).toContain('# TYPE nodejs_active_handles gauge');
    expect(await promtoolCheck(text)).toEqual({ code: 0, output: '' });
    // The check does fail on what prom-client sends by default (so a pass above means something).
    expect((await promtoolCheck('# HELP nodejs_active_handles_total x\n# TYPE nodejs_active_handles_total gauge\nnodejs_active_handles_total 1\n')).code).toBe(3);
  });

  it('AUDIT-1: logins (success and failure with the client address), keys, users, groups, boards, settings', async () => {
    const actor = await createActor(server, { password: 'right-password-9', permissions: ['board-create'] });
    const failed = await server.call('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'wrong-password' } });
    expect(failed.status).toBe(401);
    const login = await server.call('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'right-password-9' } });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    expect((await server.call('POST', '/api/auth/logout', { key: null, headers: { Cookie: cookie } })).status).toBe(204);

    const logins = await audit({ action: 'auth.login', target: actor.userId });
    expect(logins.map((entry) => entry.outcome)).toEqual(['success', 'failure']);
    expect(logins[1]).toMatchObject({ clientAddress: expect.stringMatching(/127\.0\.0\.1/), surface: 'rest', details: { username: actor.username } });
    expect(logins[0]).toMatchObject({ actor: { userId: actor.userId, apiKeyId: null, name: actor.username }, requestId: expect.any(String) });
    expect(JSON.stringify(logins)).not.toContain('password');
    expect((await audit({ action: 'auth.logout', actor: actor.userId })).length).toBe(1);

    const keys = await audit({ action: 'apikey.create', actor: server.adminKey.split('.')[0] });
    const key = keys.find((entry) => entry.details.userId === actor.userId);
    expect(key).toMatchObject({ target: { type: 'apikey', id: actor.key.split('.')[0] } });
    expect(JSON.stringify(keys)).not.toContain(actor.key.split('.')[1]);
    expect(await audit({ action: 'user.create', target: actor.userId })).toHaveLength(1);
    expect(await audit({ action: 'group.permissions', target: actor.groupId! })).toHaveLength(1);
    expect(await audit({ action: 'group.member.add', target: actor.groupId! })).toHaveLength(1);

    const created = await server.call('POST', '/api/boards', { key: actor.key, body: { name: `audit-${Date.now()}`, columnCount: 10, isPublic: false } });
    const boardId = created.body.boardId;
    await server.call('PATCH', `/api/boards/${boardId}/name`, { key: actor.key, body: { name: `audit-renamed-${Date.now()}` } });
    await server.call('PATCH', `/api/boards/${boardId}/visibility`, { key: actor.key, body: { visibility: 'public' } });
    await server.call('PUT', `/api/boards/${boardId}/permissions`, { key: actor.key, body: { users: [], groups: [] } });
    await server.call('DELETE', `/api/boards/${boardId}`, { key: actor.key });
    const boardActions = (await audit({ target: boardId })).map((entry) => entry.action);
    expect(boardActions).toEqual(['board.delete', 'board.permissions', 'board.visibility', 'board.rename', 'board.create']);

    expect((await server.call('PATCH', '/api/settings/board', { body: { enableStatusByDefault: true } })).status).toBe(200);
    expect((await audit({ action: 'settings.update' }))[0]).toMatchObject({ target: { type: 'settings', id: null }, details: { fields: ['enableStatusByDefault'] } });

    const revoked = await server.call('DELETE', `/api/api-keys/${actor.key.split('.')[0]}`);
    expect(revoked.status).toBe(204);
    expect(await audit({ action: 'apikey.revoke', target: actor.key.split('.')[0] })).toHaveLength(1);
  });

  it('AUDIT-3: a change that is refused or rolled back leaves no entry', async () => {
    const name = `audit-conflict-${Date.now()}`;
    expect((await server.call('POST', '/api/boards', { body: { name, columnCount: 10, isPublic: false } })).status).toBe(201);
    const before = await audit({ action: 'board.create' });
    expectError(await server.call('POST', '/api/boards', { body: { name, columnCount: 10, isPublic: false } }), 409, 'CONFLICT');
    expect(await audit({ action: 'board.create' })).toEqual(before);
    // The change runs, then its transaction fails at its end (ADMIN-1 refuses removing the last admin's permission
    // after reading it): neither the change nor its entry stays.
    const group = (await server.call('GET', '/api/groups')).body.find((g: any) => g.permissions?.includes('admin'));
    if (group) {
      const refused = await server.call('PUT', `/api/groups/${group.id}/permissions`, { body: { permissions: [] } });
      expectError(refused, 409, 'CONFLICT');
      expect(await audit({ action: 'group.permissions', target: group.id })).toEqual([]);
    }
  });

  it('AUDIT-3: an entry whose insert fails rolls the change back with it', async () => {
    // Make every audit insert fail: the change it records must not stay either.
    await server.db.raw(`ALTER TABLE audit_log ADD CONSTRAINT audit_test_refuse CHECK (action <> 'group.create') NOT VALID`);
    try {
      const name = `audit-rollback-${Date.now()}`;
      const refused = await server.call('POST', '/api/groups', { body: { name } });
      expect(refused.status).toBe(500);
      const groups = (await server.call('GET', '/api/groups')).body as { name: string }[];
      expect(groups.map((g) => g.name)).not.toContain(name);
    } finally {
      await server.db.raw('ALTER TABLE audit_log DROP CONSTRAINT audit_test_refuse');
    }
  });

  it('AUDIT-2: the surface: tRPC and the local CLI', async () => {
    const name = `cli-audit-${Date.now()}`;
    const { groupId } = (await runCli(['groups', 'create', name], server.db)) as { groupId: string };
    expect(await audit({ target: groupId })).toEqual([
      expect.objectContaining({ action: 'group.create', surface: 'cli', actor: { userId: null, apiKeyId: null, name: 'local-admin' }, clientAddress: null }),
    ]);
    const board = await server.call('POST', '/api/boards', { body: { name: `trpc-audit-${Date.now()}`, columnCount: 10, isPublic: false } });
    const renamed = await server.call('POST', '/api/trpc/board.renameBoard', { body: { json: { id: board.body.boardId, name: `trpc-renamed-${Date.now()}` } } });
    expect(renamed.status).toBe(200);
    expect((await audit({ target: board.body.boardId, action: 'board.rename' }))[0]).toMatchObject({ surface: 'trpc' });
  });

  it('AUDIT-6: admin only, filters and cursor paging', async () => {
    const user = await createActor(server);
    expectError(await server.call('GET', '/api/audit', { key: user.key }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('GET', '/api/audit', { key: null }), 401, 'UNAUTHORIZED');
    const first = await server.call('GET', '/api/audit?limit=2');
    expect(first.body).toHaveLength(2);
    const cursor = first.headers.get('tessera-next-cursor')!;
    const second = await server.call('GET', `/api/audit?limit=2&cursor=${cursor}`);
    expect(Number(second.body[0].id)).toBeLessThan(Number(first.body[1].id));
    expectError(await server.call('GET', '/api/audit?cursor=nope'), 400, 'BAD_REQUEST', 'Invalid cursor');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(await audit({ since: future })).toEqual([]);
    expect((await audit({ until: future })).length).toBeGreaterThan(0);
    // Entries cannot be changed (append-only).
    await expect(server.db.raw("UPDATE audit_log SET action = 'x'")).rejects.toThrow(/append-only/);
  });

  it('AUDIT-10: since and until take any RFC 3339 time: offsets past PostgreSQL\'s, the year 0, a leap second, the year 9999', async () => {
    // A failed login is an entry of its own (auth.login, failure): the log holds at least one.
    const refused = await server.call('POST', '/api/auth/login', { key: null, body: { username: 'nobody-here', password: 'wrong-password' } });
    expect(refused.status).toBe(401);
    const newest = (await audit({}))[0];
    expect(newest).toMatchObject({ action: 'auth.login', outcome: 'failure' });
    // 1283-11-13T21:05:52+17:43 is 03:22:52 UTC that day: long before every entry (a 500 once, found by schemathesis).
    expect(await audit({ until: '1283-11-13T21:05:52.472112+17:43' })).toEqual([]);
    expect((await audit({ since: '1283-11-13T21:05:52.472112+17:43' }))[0]).toEqual(newest);
    expect(await audit({ until: '0000-01-01T00:00:00Z' })).toEqual([]);
    expect((await audit({ since: '0000-01-01T00:00:00Z' }))[0]).toEqual(newest);
    expect(await audit({ since: '9999-12-31T23:59:59.5-23:59' })).toEqual([]);
    expect((await audit({ until: '9999-12-31T23:59:59.999999-23:59' }))[0]).toEqual(newest);
    expect(await audit({ since: '2016-12-31T23:59:60Z', until: '2017-01-01T00:00:00Z' })).toEqual([]);
  });

  it('AUDIT-6: outcome filters success and failure; another outcome is a 400', async () => {
    const actor = await createActor(server, { password: 'right-password-9' });
    const refused = await server.call('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'wrong-password' } });
    expect(refused.status).toBe(401);
    expect((await server.call('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'right-password-9' } })).status).toBe(200);
    const failures = await audit({ action: 'auth.login', target: actor.userId, outcome: 'failure' });
    expect(failures).toEqual([expect.objectContaining({ action: 'auth.login', outcome: 'failure' })]);
    const successes = await audit({ action: 'auth.login', target: actor.userId, outcome: 'success' });
    expect(successes).toEqual([expect.objectContaining({ action: 'auth.login', outcome: 'success' })]);
    expect((await audit({ outcome: 'failure' })).every((entry) => entry.outcome === 'failure')).toBe(true);
    const wrong = await server.call('GET', '/api/audit?outcome=maybe');
    expectError(wrong, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(wrong.body.data.issues).toEqual([expect.objectContaining({ instancePath: '/query/outcome', keyword: 'enum' })]);
  });

  it('AUDIT-9: a query parameter the audit log does not declare is a 400 naming it, not the unfiltered log', async () => {
    const misspelt = await server.call('GET', '/api/audit?outcom=failure');
    expectError(misspelt, 400, 'BAD_REQUEST', 'Unknown query parameter: outcom');
    expect(misspelt.body.data).toEqual({ parameters: ['outcom'] });
    const two = await server.call('GET', '/api/audit?action=auth.login&_=1&sort=at');
    expectError(two, 400, 'BAD_REQUEST', 'Unknown query parameters: _, sort');
    // Still admin only first: the caller without the permission learns nothing about the parameters.
    expectError(await server.call('GET', '/api/audit?outcom=failure', { key: null }), 401, 'UNAUTHORIZED');
    // HTTP-4 elsewhere: another list keeps ignoring a cache buster.
    expect((await server.call('GET', '/api/groups?_=1')).status).toBe(200);
  });
});
