import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/config';
import type { ClientContext } from '../../src/integrations/clients/types';
import { outboundFetch } from '../../src/outbound/fetch';
import { customApiKind } from '../../src/widgets/data/kinds/customApi';
import { liveKinds } from '../../src/widgets/data/kinds';
import type { BoundIntegration } from '../../src/widgets/data/types';
import { createActor } from '../support/actors';
import { expectError } from '../support/expect';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';

const server = useTestServer();

const ctx: ClientContext = { fetch: outboundFetch, timeoutMs: 30_000, maxBytes: 64 * 1024, now: () => new Date() };

const countRows = async () => Number((await server.db('custom_apis').count({ n: '*' }))[0]!.n);

const minimal = (extra: Record<string, unknown> = {}) => ({
  name: unique('Stats '),
  url: 'http://stats.internal:8080/api/stats',
  fields: [{ label: 'Uptime', path: '$.uptime', format: 'duration' }],
  ...extra,
});

async function createIntegration(url: string): Promise<string> {
  const created = await server.call('POST', '/api/integrations', { body: { name: unique('Svc'), kind: 'mock', url } });
  expect(created.status).toBe(201);
  return created.body.integrationId;
}

describe('CAPI-1, CAPI-2: /api/custom-apis', () => {
  it('CAPI-1: creates, lists, reads, replaces and deletes a definition (admin)', async () => {
    const created = await server.call('POST', '/api/custom-apis', { body: minimal({ name: '  Stats  ', method: 'POST', body: '{"q":1}', list: { path: '$.items' } }) });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.headers.get('location')).toBe(`/api/custom-apis/${id}`);
    expect(created.body).toEqual({
      id,
      name: 'Stats',
      integrationId: null,
      url: 'http://stats.internal:8080/api/stats',
      method: 'POST',
      body: '{"q":1}',
      headers: [],
      fields: [{ label: 'Uptime', path: '$.uptime', format: 'duration' }],
      list: { path: '$.items', limit: 10 },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await server.call('GET', `/api/custom-apis/${id}`)).body).toEqual(created.body);
    expect((await server.call('GET', '/api/custom-apis')).body).toContainEqual(created.body);

    const replaced = await server.call('PUT', `/api/custom-apis/${id}`, { body: minimal({ name: 'Stats 2', fields: [{ label: 'Load', path: '$.load[0]' }] }) });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id, name: 'Stats 2', method: 'GET', body: null, list: null, fields: [{ label: 'Load', path: '$.load[0]', format: 'text' }], createdAt: created.body.createdAt });

    expect((await server.call('DELETE', `/api/custom-apis/${id}`)).status).toBe(204);
    expectError(await server.call('GET', `/api/custom-apis/${id}`), 404, 'NOT_FOUND', 'Custom API not found');
    expectError(await server.call('PUT', `/api/custom-apis/${id}`, { body: minimal() }), 404, 'NOT_FOUND', 'Custom API not found');
    expectError(await server.call('DELETE', `/api/custom-apis/${id}`), 404, 'NOT_FOUND', 'Custom API not found');
  });

  it('CAPI-1: writes are audited in their transaction; a refused write leaves no entry', async () => {
    const audit = async (action: string, target: string) => (await server.call('GET', `/api/audit?${new URLSearchParams({ action, target })}`)).body;
    const created = await server.call('POST', '/api/custom-apis', { body: minimal() });
    const id = created.body.id;
    expect(await audit('customApi.create', id)).toEqual([expect.objectContaining({ outcome: 'success', target: { type: 'customApi', id }, details: { name: created.body.name } })]);
    expect((await server.call('PUT', `/api/custom-apis/${id}`, { body: minimal({ url: '/relative' }) })).status).toBe(400);
    expect(await audit('customApi.update', id)).toEqual([]);
    expect((await server.call('PUT', `/api/custom-apis/${id}`, { body: minimal({ name: 'Renamed' }) })).status).toBe(200);
    expect(await audit('customApi.update', id)).toEqual([expect.objectContaining({ details: { name: 'Renamed' } })]);
    expect((await server.call('DELETE', `/api/custom-apis/${id}`)).status).toBe(204);
    expect(await audit('customApi.delete', id)).toHaveLength(1);
  });

  it('CAPI-1: 401 without credentials; 403 on every route without integration-full-all, nothing written', async () => {
    const created = await server.call('POST', '/api/custom-apis', { body: minimal() });
    const id = created.body.id;
    expectError(await server.call('GET', '/api/custom-apis', { key: null }), 401, 'UNAUTHORIZED');
    const user = await createActor(server, { permissions: ['integration-interact-all', 'board-full-all'] });
    const before = await countRows();
    expectError(await server.call('GET', '/api/custom-apis', { key: user.key }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('POST', '/api/custom-apis', { key: user.key, body: minimal() }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('GET', `/api/custom-apis/${id}`, { key: user.key }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('PUT', `/api/custom-apis/${id}`, { key: user.key, body: minimal({ name: 'Hijacked' }) }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('DELETE', `/api/custom-apis/${id}`, { key: user.key }), 403, 'FORBIDDEN', 'Permission denied');
    expect(await countRows()).toBe(before);
    expect((await server.call('GET', `/api/custom-apis/${id}`)).body.name).toBe(created.body.name);
    const manager = await createActor(server, { permissions: ['integration-full-all'] });
    expect((await server.call('GET', `/api/custom-apis/${id}`, { key: manager.key })).status).toBe(200);
  });

  it.each([
    ['a relative URL without integration', { url: '/api/stats' }, '/requestBody/url'],
    ['an ftp URL', { url: 'ftp://files.internal/x' }, '/requestBody/url'],
    ['a body with GET', { body: '{}' }, '/requestBody/body'],
    ['a JSON path not starting with $', { fields: [{ label: 'x', path: 'a.b' }] }, '/requestBody/fields/0/path'],
    ['a JSON path outside the subset', { fields: [{ label: 'x', path: '$..b' }] }, '/requestBody/fields/0/path'],
    ['a list path outside the subset', { list: { path: '$.items[?(@.x)]' } }, '/requestBody/list/path'],
    ['a secret placeholder without integration', { headers: [{ name: 'X-Api-Key', value: '{{apiKey}}' }] }, '/requestBody/headers/0/value'],
    ['an unknown placeholder', { headers: [{ name: 'X-Api-Key', value: '{{nope}}' }] }, '/requestBody/headers/0/value'],
    ['a Host header', { headers: [{ name: 'Host', value: 'elsewhere' }] }, '/requestBody/headers/0/name'],
    ['an integration that does not exist', { integrationId: 'nosuchintegration', url: '/x' }, '/requestBody/integrationId'],
    ['an absolute URL with an integration', { integrationId: 'nosuchintegration', url: 'http://other.internal/x' }, '/requestBody/url'],
    ['a blank label', { fields: [{ label: '  ', path: '$.a' }] }, '/requestBody/fields/0/label'],
    ['an unknown format', { fields: [{ label: 'x', path: '$.a', format: 'hex' }] }, '/requestBody/fields/0/format'],
    ['no fields', { fields: [] }, '/requestBody/fields'],
    ['a header value with a line break', { headers: [{ name: 'X', value: 'a\r\nEvil: 1' }] }, '/requestBody/headers/0/value'],
  ])('CAPI-2: refuses %s with a 400 naming the field, nothing written (create and replace)', async (_what, change, pointer) => {
    const existing = await server.call('POST', '/api/custom-apis', { body: minimal() });
    const before = await countRows();
    for (const [method, path] of [['POST', '/api/custom-apis'], ['PUT', `/api/custom-apis/${existing.body.id}`]] as const) {
      const refused = await server.call(method, path, { body: minimal(change) });
      expectError(refused, 400, 'BAD_REQUEST');
      expect(JSON.stringify(refused.body.data.issues)).toContain(pointer);
      expect(refused.body.message).toBe('Input validation failed');
    }
    expect(await countRows()).toBe(before);
    expect((await server.call('GET', `/api/custom-apis/${existing.body.id}`)).body).toEqual(existing.body);
  });

  it('CAPI-2, CAPI-3: a definition on an integration takes a path and header placeholders; it goes with its integration', async () => {
    const integrationId = await createIntegration('http://svc.internal:9000/base');
    const created = await server.call('POST', '/api/custom-apis', {
      body: minimal({ integrationId, url: 'api/v1/stats', headers: [{ name: 'Authorization', value: 'Bearer {{apiKey}}' }] }),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ integrationId, url: 'api/v1/stats', headers: [{ name: 'Authorization', value: 'Bearer {{apiKey}}' }] });
    expect((await server.call('DELETE', `/api/integrations/${integrationId}`)).status).toBe(204);
    expectError(await server.call('GET', `/api/custom-apis/${created.body.id}`), 404, 'NOT_FOUND');
  });
});

describe('CAPI-7, CAPI-8: the customApi kind against a local HTTP server as the custom API', () => {
  let api: Server;
  let base: string;
  const seen: { url: string; method: string; headers: IncomingMessage['headers']; body: string }[] = [];
  let reply: (url: string) => { status?: number; body: string } = () => ({ body: '{}' });

  beforeAll(async () => {
    api = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ url: req.url!, method: req.method!, headers: req.headers, body });
        const answer = reply(req.url!);
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    api.closeAllConnections();
    await new Promise((resolve) => api.close(resolve));
  });

  /** The kind's request as the widget-data service makes it (resolve, query, then the sources or the bound integrations it reads). */
  async function kindData(options: Record<string, unknown>, bound: BoundIntegration[] = []) {
    const kind = customApiKind;
    const resolved = await kind.resolve!({ config: loadConfig({}), db: server.db }, options);
    const query = kind.query(options, resolved);
    const results: unknown[] = [];
    for (const source of kind.sources!(options, resolved)) results.push(await kind.fromSource!(ctx, source, query).catch((error: Error) => ({ error: error.message })));
    for (const integration of bound.filter((one) => kind.integrationKinds.includes(one.kind) && kind.reads!(one, query))) {
      results.push(await kind.fromIntegration!(ctx, integration, query).catch((error: Error) => ({ error: error.message })));
    }
    return results;
  }

  it('CAPI-8: the kind is listed; fields mode picks raw values with label and format, null where the path finds nothing', async () => {
    expect(liveKinds.map((kind) => kind.widgetKind)).toContain('customApi');
    reply = () => ({ body: JSON.stringify({ uptime: 93784, disk: { used: 1536 }, load: [0.5, 0.25], items: [{ name: 'a' }, { name: 'b' }, { other: 1 }], html: '<b>x</b>' }) });
    const created = await server.call('POST', '/api/custom-apis', {
      body: {
        name: 'Box',
        url: `${base}/stats?x=1`,
        method: 'POST',
        body: '{"ask":"all"}',
        headers: [{ name: 'X-Static', value: 'yes' }],
        fields: [
          { label: 'Uptime', path: '$.uptime', format: 'duration' },
          { label: 'Used', path: '$.disk.used', format: 'bytes' },
          { label: 'Load', path: '$.load[0]', format: 'number' },
          { label: 'Names', path: '$.items[*].name' },
          { label: 'Missing', path: '$.nothing.here', format: 'percent' },
          { label: 'Markup', path: "$['html']" },
        ],
      },
    });
    const [data] = await kindData({ definitionId: created.body.id });
    expect(data).toEqual({
      definitionId: created.body.id,
      name: 'Box',
      mode: 'fields',
      fields: [
        { label: 'Uptime', format: 'duration', value: 93784 },
        { label: 'Used', format: 'bytes', value: 1536 },
        { label: 'Load', format: 'number', value: 0.5 },
        { label: 'Names', format: 'text', value: ['a', 'b'] },
        { label: 'Missing', format: 'percent', value: null },
        { label: 'Markup', format: 'text', value: '<b>x</b>' },
      ],
    });
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ url: '/stats?x=1', method: 'POST', body: '{"ask":"all"}' });
    expect(request.headers).toMatchObject({ 'x-static': 'yes', 'content-type': 'application/json' });
  });

  it('CAPI-6: list mode gives rows per entry up to the limit, and the total', async () => {
    reply = () => ({ body: JSON.stringify({ data: { rows: [{ n: 'a', v: 1 }, { n: 'b', v: 2 }, { n: 'c' }] } }) });
    const created = await server.call('POST', '/api/custom-apis', {
      body: { name: 'Rows', url: `${base}/rows`, list: { path: '$.data.rows', limit: 2 }, fields: [{ label: 'Name', path: '$.n' }, { label: 'Value', path: '$.v', format: 'number' }] },
    });
    expect(await kindData({ definitionId: created.body.id })).toEqual([
      { definitionId: created.body.id, name: 'Rows', mode: 'list', columns: [{ label: 'Name', format: 'text' }, { label: 'Value', format: 'number' }], rows: [['a', 1], ['b', 2]], total: 3 },
    ]);
    reply = () => ({ body: JSON.stringify({ data: {} }) });
    expect(await kindData({ definitionId: created.body.id })).toEqual([expect.objectContaining({ rows: null, total: null })]);
  });

  it('CAPI-3, CAPI-8: on an integration: read only when bound, the path on its URL, the secret filled in and never in the definition', async () => {
    const integrationId = await createIntegration(`${base}/svc/`);
    const created = await server.call('POST', '/api/custom-apis', {
      body: { name: 'Svc', integrationId, url: '/api/status?full=1', headers: [{ name: 'X-Api-Key', value: '{{apiKey}}' }], fields: [{ label: 'Up', path: '$.up' }] },
    });
    reply = () => ({ body: '{"up":true}' });
    const secret = unique('secret-');
    const bound: BoundIntegration = { id: integrationId, name: 'Svc', kind: 'mock', target: { url: `${base}/svc/`, secrets: { apiKey: secret } } };
    const other: BoundIntegration = { id: 'another', name: 'Other', kind: 'mock', target: { url: `${base}/other`, secrets: { apiKey: 'other-secret' } } };
    expect(await kindData({ definitionId: created.body.id }, [other])).toEqual([]);
    expect(await kindData({ definitionId: created.body.id }, [other, bound])).toEqual([{ definitionId: created.body.id, name: 'Svc', mode: 'fields', fields: [{ label: 'Up', format: 'text', value: true }] }]);
    expect(seen.at(-1)).toMatchObject({ url: '/svc/api/status?full=1', method: 'GET' });
    expect(seen.at(-1)!.headers['x-api-key']).toBe(secret);
    expect(JSON.stringify((await server.call('GET', `/api/custom-apis/${created.body.id}`)).body)).not.toContain(secret);
    expect(JSON.stringify(await server.db('custom_apis'))).not.toContain(secret);
    // A secret the integration lacks is an error result naming the kind, not the value of anything.
    const missing = await kindData({ definitionId: created.body.id }, [{ ...bound, target: { ...bound.target, secrets: {} } }]);
    expect(missing).toEqual([{ error: 'Custom API "Svc": the integration has no apiKey secret set' }]);
  });

  it('CAPI-7, CAPI-8: a missing option or definition, a non-JSON, too large or refused answer is one error result', async () => {
    expect(await kindData({})).toEqual([{ error: 'No custom API chosen: set the definitionId option' }]);
    expect(await kindData({ definitionId: 'nosuchdefinition' })).toEqual([{ error: 'Custom API definition nosuchdefinition not found' }]);
    const created = await server.call('POST', '/api/custom-apis', { body: { name: 'Bad', url: `${base}/bad`, fields: [{ label: 'x', path: '$.x' }] } });
    const origin = new URL(base).origin;
    reply = () => ({ body: '<html><script>alert(1)</script></html>' });
    expect(await kindData({ definitionId: created.body.id })).toEqual([{ error: `${origin}: the answer is not JSON` }]);
    reply = () => ({ body: JSON.stringify({ x: 'y'.repeat(70 * 1024) }) });
    expect(await kindData({ definitionId: created.body.id })).toEqual([{ error: `${origin}: answer larger than ${64 * 1024} bytes` }]);
    reply = () => ({ status: 401, body: '{}' });
    expect(await kindData({ definitionId: created.body.id })).toEqual([{ error: `${origin}: refused (HTTP 401)` }]);
    reply = () => ({ status: 500, body: '{}' });
    expect(await kindData({ definitionId: created.body.id })).toEqual([{ error: `${origin}: answered HTTP 500` }]);
  });

  it('CAPI-8: an edited definition is another cache key (its updatedAt is part of the query)', async () => {
    const created = await server.call('POST', '/api/custom-apis', { body: { name: 'Keyed', url: `${base}/k`, fields: [{ label: 'x', path: '$.x' }] } });
    const first = customApiKind.query({}, await customApiKind.resolve!({ config: loadConfig({}), db: server.db }, { definitionId: created.body.id }));
    await server.call('PUT', `/api/custom-apis/${created.body.id}`, { body: { name: 'Keyed', url: `${base}/k2`, fields: [{ label: 'x', path: '$.x' }] } });
    const second = customApiKind.query({}, await customApiKind.resolve!({ config: loadConfig({}), db: server.db }, { definitionId: created.body.id }));
    expect(JSON.stringify(second)).not.toBe(JSON.stringify(first));
  });
});
