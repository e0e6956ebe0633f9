/**
 * MOCK-2: examples/mock-first, a client suite written only against the mock, passes against `npm run mock` and then,
 * unchanged, against a real server. It runs as a user runs it (`npm run example:mock-first` with TESSERA_URL and
 * TESSERA_API_KEY), here against a mock started by `npm run mock -- --port <free port>` (MOCK-3) and a test server.
 */
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tools } from '../../src/mcp/tools';
import { freePort } from '../support/prism';
import { useTestServer } from '../support/server';

const root = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const server = useTestServer();

/** The suite's TAP output (it exits non-zero when a test fails: the output says which). */
async function runSuite(env: Record<string, string>): Promise<string> {
  try {
    const { stdout } = await run('npm', ['run', '--silent', 'example:mock-first'], { cwd: root, env: { ...process.env, ...env }, maxBuffer: 10 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

/** `npm run mock` as a user starts it, stopped (its process group) at the end. */
async function startNpmMock(args: string[], env: Record<string, string> = {}): Promise<{ output: () => string; stop: () => Promise<void> }> {
  const child = spawn('npm', ['run', 'mock', '--', ...args], { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, FORCE_COLOR: '0' } });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
    await exited;
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run mock did not start:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/Prism is listening/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run mock exited with ${code}:\n${output}`));
    });
  });
  return { output: () => output, stop };
}

/** The counts of the TAP summary, and the failures' reports when there are any. */
const passed = (tap: string) => {
  const counts = { pass: /^# pass (\d+)$/m.exec(tap)?.[1], fail: /^# fail (\d+)$/m.exec(tap)?.[1] };
  return counts.fail === '0' ? counts : { ...counts, output: tap };
};

describe('MOCK-2: the mock-first example suite', () => {
  it('MOCK-3: passes against `npm run mock -- --port <n>`', async () => {
    const port = await freePort();
    const mock = await startNpmMock(['--port', String(port)], { MOCK_PORT: '1' });
    try {
      expect(mock.output()).toContain(`Prism is listening on http://127.0.0.1:${port}`);
      expect(passed(await runSuite({ TESSERA_URL: `http://127.0.0.1:${port}` }))).toEqual({ pass: '6', fail: '0' });
    } finally {
      await mock.stop();
    }
  }, 180_000);

  it('MOCK-3: `npm run mock` listens on MOCK_PORT', async () => {
    const port = await freePort();
    const mock = await startNpmMock([], { MOCK_PORT: String(port) });
    try {
      const info = await fetch(`http://127.0.0.1:${port}/api/info`);
      expect(info.status).toBe(200);
    } finally {
      await mock.stop();
    }
  }, 120_000);

  it('passes unchanged against the server', async () => {
    expect(passed(await runSuite({ TESSERA_URL: server.directUrl, TESSERA_API_KEY: server.adminKey }))).toEqual({ pass: '6', fail: '0' });
  }, 120_000);
});

describe('MOCK-7: `npm run mock` serves tRPC and MCP over the REST examples', () => {
  let mock: Awaited<ReturnType<typeof startNpmMock>>;
  let url: string;
  const key = 'mock.0123456789abcdef0123456789abcdef';
  beforeAll(async () => {
    const port = await freePort();
    mock = await startNpmMock(['--port', String(port)]);
    url = `http://127.0.0.1:${port}`;
  }, 120_000);
  afterAll(async () => {
    await mock?.stop();
  });
  /** What the mock answers the REST request itself (Prism's example of the operation). */
  const rest = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ApiKey: key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status).toBeLessThan(300);
    return response.json();
  };

  it('a tRPC query, a mutation and a batch answer the REST operations\' examples in the tRPC envelope', async () => {
    const query = await fetch(`${url}/api/trpc/board.getAllBoards`, { headers: { ApiKey: key } });
    expect(query.status).toBe(200);
    const boards = ((await query.json()) as any).result.data.json;
    expect(Array.isArray(boards)).toBe(true);
    expect(boards[0]).toMatchObject({ id: expect.any(String), name: expect.any(String) });

    const created = await fetch(`${url}/api/trpc/board.createBoard`, {
      method: 'POST',
      headers: { ApiKey: key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ json: { name: 'from-trpc', columnCount: 12, isPublic: false } }),
    });
    expect(created.status).toBe(200);
    expect(await created.json()).toEqual({ result: { data: { json: await rest('POST', '/api/boards', { name: 'from-trpc', columnCount: 12, isPublic: false }) } } });

    const batch = await fetch(`${url}/api/trpc/app.all,board.getBoardByName?batch=1&input=${encodeURIComponent(JSON.stringify({ 1: { json: { name: 'home-lab' } } }))}`, {
      headers: { ApiKey: key },
    });
    expect(batch.status).toBe(200);
    const answers = (await batch.json()) as any[];
    expect(answers).toHaveLength(2);
    expect(Array.isArray(answers[0].result.data.json)).toBe(true);
    expect(answers[1].result.data.json).toMatchObject({ name: expect.any(String), version: expect.any(Number) });

    // The wire's own errors: an unknown procedure, and a REST error (no credentials) in the tRPC shape.
    const unknown = await fetch(`${url}/api/trpc/board.nope`, { headers: { ApiKey: key } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.json).toMatchObject({ message: 'No procedure found on path "board.nope"', data: { code: 'NOT_FOUND', httpStatus: 404 } });
    const anonymous = await fetch(`${url}/api/trpc/user.getAll`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as any).error.json).toMatchObject({ message: 'Authentication required', data: { code: 'UNAUTHORIZED', httpStatus: 401 } });
  }, 60_000);

  it('MCP: tools/list is the server\'s tool table; a tool call answers its operation\'s example as text and structuredContent', async () => {
    const client = new Client({ name: 'mock-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), { requestInit: { headers: { ApiKey: key } } }));
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((tool) => ({ name: tool.name, inputSchema: tool.inputSchema }))).toEqual(tools().map((tool) => ({ name: tool.name, inputSchema: tool.inputSchema })));
      const read = await client.callTool({ name: 'get_board', arguments: { id: 'd1f3g5h7j9k1l3z5x7c9v1b3' } });
      expect(read.isError).toBeFalsy();
      expect(read.structuredContent).toEqual(await rest('GET', '/api/boards/d1f3g5h7j9k1l3z5x7c9v1b3'));
      expect(JSON.parse((read.content as { text: string }[])[0].text)).toEqual(read.structuredContent);
    } finally {
      await client.close();
    }
    // Without credentials: the documented 401, as the server answers it.
    const anonymous = await fetch(`${url}/api/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
  }, 60_000);
});
