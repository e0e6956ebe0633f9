/**
 * METRIC-3..5: the tessera_ metrics test/ops/metricsAudit.test.ts does not move, scraped from METRICS_PORT on a server
 * without METRICS_TOKEN (so /metrics on the public port is a 404) and with METRICS_TOTALS=false. A file of its own:
 * the registry is one per process (jest module registry), and the totals are on when any instance has them on.
 */
import { createActor } from '../support/actors';
import { clockBoardFile } from '../support/boardFiles';
import { expectError } from '../support/expect';
import { call, useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { sample } from '../support/metrics';

const server = useTestServer({ METRICS_PORT: '0', METRICS_TOTALS: 'false', RATE_LIMIT_IMPORTS: '3/3600' });

async function scrape(): Promise<string> {
  const answer = await call(`http://127.0.0.1:${server.metricsPort}`, 'GET', '/metrics');
  expect(answer.status).toBe(200);
  return answer.body as string;
}

/** How much each sample moved between two scrapes. */
const moved = (before: string, after: string, name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);

describe('METRIC-4, METRIC-5: access and totals', () => {
  it('METRIC-4: without METRICS_TOKEN, /metrics on the public port is a 404, with or without a token', async () => {
    expectError(await server.call('GET', '/metrics', { key: null }), 404, 'NOT_FOUND');
    expectError(await server.call('GET', '/metrics', { key: null, headers: { Authorization: 'Bearer anything' } }), 404, 'NOT_FOUND');
  });

  it('METRIC-5: METRICS_TOTALS=false leaves tessera_objects out of the scrape', async () => {
    const text = await scrape();
    expect(text).toContain('tessera_http_requests_total');
    expect(text).not.toMatch(/^tessera_objects\{/m);
  });
});

describe('METRIC-3: the counters move', () => {
  it('METRIC-3: imports (success and failure), plan failures, document cache misses, audit entries, rate-limited requests', async () => {
    // The imports class allows 3 an hour per caller: a fresh caller's fourth dry run is refused (below).
    const actor = await createActor(server, { permissions: ['board-create'] });
    const before = await scrape();
    const name = unique('metrics-import-');
    expect((await server.call('POST', '/api/boards/import', { body: clockBoardFile(name, 1) })).status).toBe(201);
    expectError(await server.call('POST', '/api/boards/import', { body: clockBoardFile(name, 1) }), 409, 'CONFLICT');
    expectError(await server.call('POST', '/api/boards/no-such-board/plan', { body: { sections: [], items: [] } }), 404, 'NOT_FOUND');
    const created = await server.call('POST', '/api/boards', { body: { name: unique('metrics-cache-'), columnCount: 10, isPublic: false } });
    expect((await server.call('GET', `/api/boards/${created.body.boardId}`)).status).toBe(200);
    expect((await server.call('POST', '/api/groups', { body: { name: unique('metrics-group-') } })).status).toBe(201);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await server.call('POST', '/api/boards/import?dryRun=true', { key: actor.key, body: clockBoardFile(unique('m-'), 1) })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);

    const after = await scrape();
    expect(moved(before, after, 'tessera_imports_total', { outcome: 'success' })).toBe(1);
    expect(moved(before, after, 'tessera_imports_total', { outcome: 'failure' })).toBe(1);
    expect(moved(before, after, 'tessera_plans_total', { operation: 'planBoardSave', outcome: 'failure' })).toBe(1);
    expect(moved(before, after, 'tessera_plans_total', { operation: 'planImportBoard', outcome: 'success' })).toBe(3);
    expect(moved(before, after, 'tessera_document_cache_requests_total', { result: 'miss' })).toBeGreaterThanOrEqual(1);
    expect(moved(before, after, 'tessera_audit_entries_total', { action: 'group.create', outcome: 'success' })).toBe(1);
    expect(moved(before, after, 'tessera_audit_entries_total', { action: 'board.import', outcome: 'success' })).toBe(1);
    expect(moved(before, after, 'tessera_rate_limited_requests_total', { class: 'imports' })).toBe(1);
  });

  it('METRIC-3: a failed database statement counts in tessera_db_query_errors_total', async () => {
    const before = await scrape();
    // A group name taken: the insert's unique constraint refuses it (answered 409).
    const name = unique('metrics-dup-');
    expect((await server.call('POST', '/api/groups', { body: { name } })).status).toBe(201);
    expectError(await server.call('POST', '/api/groups', { body: { name } }), 409, 'CONFLICT');
    const after = await scrape();
    expect(moved(before, after, 'tessera_db_query_errors_total')).toBeGreaterThanOrEqual(1);
  });

  it('METRIC-3: events delivered to a stream, and their delivery lag', async () => {
    const boardId = (await server.call('POST', '/api/boards', { body: { name: unique('metrics-feed-'), columnCount: 10, isPublic: false } })).body.boardId;
    const before = await scrape();
    const abort = new AbortController();
    const stream = await fetch(`${server.directUrl}/api/boards/${boardId}/events`, { headers: { ApiKey: server.adminKey }, signal: abort.signal });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let text = '';
    // The stream is open once its first bytes (the retry field) arrive; then a write is delivered to it.
    text += new TextDecoder().decode((await reader.read()).value);
    expect((await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { pageTitle: 'metrics' } })).status).toBe(204);
    while (!text.includes('event: change')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await reader.cancel().catch(() => undefined);
    const after = await scrape();
    expect(moved(before, after, 'tessera_events_delivered_total')).toBe(1);
    expect(moved(before, after, 'tessera_event_delivery_lag_seconds_count')).toBe(1);
  });
});
