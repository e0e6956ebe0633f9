import http from 'node:http';
import { call, useTestServer } from '../support/server';
import { expectError } from '../support/expect';
import { unique } from '../support/unique';

/** YAML goes straight to the server (directUrl): the contract run's proxy (Prism) reads JSON bodies only. */
const server = useTestServer({ YAML_BODY_LIMIT: '300kb' });
const slowParse = useTestServer({ YAML_PARSE_TIMEOUT_MS: '1' });

const boardFile = (name: string, extra = '') => `apiVersion: tessera/v1\nkind: Board\nname: ${name}\nlayouts: []\nsections: []\nitems: []\n${extra}`;

/** Many small flow mappings: costly to parse (about 2 s on one core for 20,000), small as bytes. */
const costlyYaml = (count: number) => `[${Array.from({ length: count }, (_, i) => `{a: ${i}}`).join(', ')}]\n`;

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/**
 * Sends the head of a request announcing `declaredLength` bytes of body and only `sent` of them, then waits for the
 * answer: a server that read the body before answering would never answer.
 */
function requestWithUnsentBody(url: string, method: string, path: string, headers: Record<string, string>, declaredLength: number, sent: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}${path}`, { method, agent: false, headers: { ...headers, 'Content-Length': String(declaredLength) } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) });
        request.destroy();
      });
    });
    request.on('error', reject);
    request.write(sent);
  });
}

describe('INPUT-5: no body is read before the operation\'s security check', () => {
  it('INPUT-5: an anonymous YAML import is a 401 answered without reading its body, and past BODY_LIMIT the connection is closed', async () => {
    const answer = await requestWithUnsentBody(server.directUrl, 'POST', '/api/boards/import', { 'Content-Type': 'application/yaml' }, 20_000_000, costlyYaml(100));
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: 'UNAUTHORIZED', message: 'Authentication required' });
    expect(answer.headers.connection).toBe('close');
  });

  it('INPUT-5: a client sending a whole 9 MB YAML body anonymously gets the 401 (the unread body is drained)', async () => {
    const answer = await call(server.directUrl, 'POST', '/api/boards/import', { raw: costlyYaml(900_000).slice(0, 9_000_000), headers: { 'Content-Type': 'application/yaml' } });
    expectError(answer, 401, 'UNAUTHORIZED', 'Authentication required');
  });

  it('INPUT-5: a JSON write with an invalid API key is a 401 answered without reading its body', async () => {
    const answer = await requestWithUnsentBody(server.directUrl, 'PUT', `/api/boards/${unique('b')}`, { 'Content-Type': 'application/json', ApiKey: 'nobody.aaaaaaaaaaaaaaaaaaaaaaaa' }, 5_000_000, '{"sections": [');
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: 'UNAUTHORIZED', message: 'Invalid API key' });
  });

  it('INPUT-5: after a 401 to a whole body left unread, the kept-alive connection serves the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const send = (method: string, path: string, body?: string) =>
        new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
          const request = http.request(`${server.directUrl}${path}`, { method, agent, headers: body === undefined ? {} : { 'Content-Type': 'application/yaml' } }, (response) => {
            response.resume();
            response.on('end', () => resolve({ status: response.statusCode ?? 0, reused: request.reusedSocket }));
          });
          request.on('error', reject);
          request.end(body);
        });
      expect(await send('POST', '/api/boards/import', boardFile('anonymous'))).toEqual({ status: 401, reused: false });
      expect(await send('GET', '/api/health/live')).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });
});

describe('INPUT-5: YAML bodies have their own budget', () => {
  const yamlImport = (url: string, key: string, raw: string) => call(url, 'POST', '/api/boards/import', { key, raw, headers: { 'Content-Type': 'application/yaml' } });

  it('INPUT-5: a YAML body over YAML_BODY_LIMIT is a 413, while the same size of JSON is read', async () => {
    const padding = `padding: "${'x'.repeat(310 * 1024)}"\n`;
    expectError(await yamlImport(server.directUrl, server.adminKey, boardFile(unique('big'), padding)), 413, 'PAYLOAD_TOO_LARGE', `Request body larger than ${300 * 1024} bytes`);
    const json = await server.call('POST', '/api/boards/import', { body: { apiVersion: 'tessera/v1', kind: 'Board', name: unique('big'), layouts: [], sections: [], items: [], padding: 'x'.repeat(310 * 1024) } });
    expectError(json, 400, 'BAD_REQUEST', 'Input validation failed');
  });

  it('INPUT-5: a YAML body that takes longer than YAML_PARSE_TIMEOUT_MS to parse is a 413, and nothing is written', async () => {
    const name = unique('costly');
    const answer = await yamlImport(slowParse.directUrl, slowParse.adminKey, boardFile(name, `costly: ${costlyYaml(5000)}`));
    expectError(answer, 413, 'PAYLOAD_TOO_LARGE', 'YAML body too costly to parse: it took longer than 1 ms');
    expect(await slowParse.db('boards').whereRaw('lower(name) = ?', [name.toLowerCase()]).first()).toBeUndefined();
    // The budget ended the worker, not the service: the next body gets a fresh one.
    expect((await call(slowParse.directUrl, 'GET', '/api/health/live')).status).toBe(200);
  });

  it('INPUT-5: the server answers other requests while a costly YAML body is parsed', async () => {
    const order: string[] = [];
    const parsing = yamlImport(server.directUrl, server.adminKey, boardFile(unique('slow'), `costly: ${costlyYaml(12_000)}`)).then((result) => {
      order.push('yaml');
      return result;
    });
    // The body is sent and being parsed once the worker has it; a probe sent meanwhile is answered before it ends.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const probe = await call(server.directUrl, 'GET', '/api/health/live');
    order.push('probe');
    expect(probe.status).toBe(200);
    // Parsed within the budget (then refused by validation), or past it on a loaded machine: the order is the point.
    expect([400, 413]).toContain((await parsing).status);
    expect(order).toEqual(['probe', 'yaml']);
  });

  it('INPUT-5: aliases that would expand a YAML body past BODY_LIMIT are a 400 before they are expanded', async () => {
    const anchor = 'x'.repeat(200 * 1024);
    const aliases = `[${Array(60).fill('*big').join(', ')}]`;
    const answer = await yamlImport(server.directUrl, server.adminKey, boardFile(unique('aliases'), `anchor: &big "${anchor}"\ncopies: ${aliases}\n`));
    expectError(answer, 400, 'BAD_REQUEST', `Failed to parse request body: YAML aliases expand beyond ${10 * 1024 * 1024} bytes`);
    expect(answer.body.data).toEqual({ limit: 10 * 1024 * 1024 });
  });

  it('INPUT-5: nested aliases (a "billion laughs") are a 400', async () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 8; level++) levels.push(`l${level}: &l${level} [${Array(10).fill(level === 1 ? '*a' : `*l${level - 1}`).join(', ')}]`);
    const answer = await yamlImport(server.directUrl, server.adminKey, boardFile(unique('laughs'), `${levels.join('\n')}\n`));
    expectError(answer, 400, 'BAD_REQUEST', 'Failed to parse request body: YAML with more than 100 aliases');
  });
});
