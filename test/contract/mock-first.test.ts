/**
 * MOCK-2: examples/mock-first, a client suite written only against the mock, passes against `npm run mock` and then,
 * unchanged, against a real server. It runs as a user runs it (`npm run example:mock-first` with TESSERA_URL and
 * TESSERA_API_KEY), here against a mock started by `npm run mock -- --port <free port>` (MOCK-3) and a test server.
 */
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
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
      expect(passed(await runSuite({ TESSERA_URL: `http://127.0.0.1:${port}` }))).toEqual({ pass: '4', fail: '0' });
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
    expect(passed(await runSuite({ TESSERA_URL: server.directUrl, TESSERA_API_KEY: server.adminKey }))).toEqual({ pass: '4', fail: '0' });
  }, 120_000);
});
