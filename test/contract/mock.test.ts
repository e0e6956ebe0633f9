/**
 * `npm run mock` serves the OpenAPI document with Prism so client teams can develop before the server exists. This
 * starts the same mock (on a free port), asks every operation of the document for its success response and checks
 * that the mock answers a declared status with a body valid against the schema and built from realistic examples
 * (no Prism "string" placeholders): an operation added without examples fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTesseraClient, TesseraClient } from '../../src/client';
import { createValidators, validRequest } from '../fuzz/runner';
import { declaredResponse, listOperations, Operation } from '../fuzz/openapi';
import { RunningPrism, specFile, startPrism } from '../support/prism';
// scripts/mock.js is plain JavaScript (npm runs it without a compile step).
const { mockArguments } = require('../../scripts/mock.js') as {
  mockArguments(argv: string[], env: { port: string; host: string }): { port: string; host: string; rest: string[] };
};

const document = JSON.parse(readFileSync(specFile, 'utf8'));
const operations = listOperations(document);
const packageJson = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
const mockKey = 'mockkey.0123456789abcdef0123456789abcdef';

let mock: RunningPrism;
let client: TesseraClient;
beforeAll(async () => {
  mock = await startPrism({ mode: 'mock' });
  client = createTesseraClient({ baseUrl: mock.url, apiKey: mockKey });
}, 90_000);
afterAll(async () => {
  await mock?.stop();
});

function placeholders(value: unknown, at = '$'): string[] {
  if (value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholders(v, `${at}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => placeholders(v, `${at}.${k}`));
  return [];
}

describe('npm run mock', () => {
  it('runs prism mock on the generated document (scripts/mock.js), port from --port, else MOCK_PORT, else 4010 (MOCK-3)', () => {
    expect(packageJson.scripts.mock).toBe('node scripts/mock.js');
    const defaults = { port: '4010', host: '127.0.0.1' };
    expect(mockArguments([], defaults)).toEqual({ port: '4010', host: '127.0.0.1', rest: [] });
    expect(mockArguments([], { ...defaults, port: '4500' })).toEqual({ port: '4500', host: '127.0.0.1', rest: [] });
    expect(mockArguments(['--port', '4020', '--dynamic'], { ...defaults, port: '4500' })).toEqual({ port: '4020', host: '127.0.0.1', rest: ['--dynamic'] });
    expect(mockArguments(['-p', '4021'], defaults).port).toBe('4021');
    expect(mockArguments(['--port=4022', '--host=0.0.0.0'], defaults)).toMatchObject({ port: '4022', host: '0.0.0.0' });
    expect(() => mockArguments(['--port', 'abc'], defaults)).toThrow('not a port: abc');
    expect(() => mockArguments(['--port'], defaults)).toThrow('--port needs a value');
  });

  it.each(operations.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))(
    '%s answers a realistic declared example',
    async (_name, op) => {
      const request = validRequest(op);
      const url = new URL(mock.url + request.path);
      for (const [k, v] of request.query) url.searchParams.append(k, v);
      // A browser redirect by nature (OIDC-3, OIDC-4: no 2xx declared) is asked for its 302, as Prism lets a client.
      const redirectOnly = !Object.keys(op.responses).some((status) => status.startsWith('2')) && '302' in op.responses;
      const response = await fetch(url, {
        method: request.method.toUpperCase(),
        redirect: 'manual',
        headers: {
          ApiKey: mockKey,
          ...request.headers,
          ...(request.hasBody ? { 'Content-Type': 'application/json' } : {}),
          ...(redirectOnly ? { Prefer: 'code=302' } : {}),
        },
        body: request.hasBody ? JSON.stringify(request.body) : undefined,
      });
      const text = await response.text();
      expect({ status: response.status, body: text.slice(0, 300) }).toEqual({ status: expect.any(Number), body: expect.any(String) });
      if (redirectOnly) {
        expect(response.status).toBe(302);
        return;
      }
      expect(response.status).toBeGreaterThanOrEqual(200);
      expect(response.status).toBeLessThan(300);
      const declared = declaredResponse(op, response.status);
      expect(declared).toBeDefined();
      const mediaType = response.headers.get('content-type')?.split(';')[0] ?? null;
      const content = declared?.content ?? {};
      if (Object.keys(content).length === 0) {
        expect(text).toBe('');
        return;
      }
      expect(Object.keys(content)).toContain(mediaType);
      if (mediaType === 'application/json') {
        const body = JSON.parse(text);
        const validators = createValidators();
        const schema = content[mediaType].schema ?? {};
        expect(validators.body.errors(schema, body)).toBe('No errors');
        expect(placeholders(body)).toEqual([]);
      }
    },
    30_000,
  );

  it('serves the documented examples through the typed client', async () => {
    const info = await client.GET('/api/info');
    expect(info.response.status).toBe(200);
    expect(info.data).toEqual({ version: '0.1.0' });

    const users = await client.GET('/api/users');
    expect(users.response.status).toBe(200);
    expect(users.data?.[0]).toMatchObject({ username: 'alice', id: expect.stringMatching(/^[a-z0-9]{24,}$/) });

    const created = await client.POST('/api/users', { body: { username: 'bob', password: 'correct-horse-battery' } });
    expect(created.response.status).toBe(201);
    expect(created.data?.userId).toMatch(/^[a-z0-9]+$/);

    const key = await client.POST('/api/api-keys', { body: { name: 'ci' } });
    expect(key.response.status).toBe(201);
    expect(key.data?.apiKey).toMatch(/^[^.]+\.[^.]+$/);
  });

  it('answers a documented error example on request (Prefer: code=404) and 401 without a key', async () => {
    const missing = await client.DELETE('/api/users/{userId}', {
      params: { path: { userId: 'nosuchuser' } },
      headers: { Prefer: 'code=404' },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: 'NOT_FOUND', message: expect.any(String), data: {} });

    const anonymous = await createTesseraClient({ baseUrl: mock.url }).GET('/api/users');
    expect(anonymous.response.status).toBe(401);
  });
});
