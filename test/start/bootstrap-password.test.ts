/**
 * NAV-7 at start-up, as an operator runs it: `BOOTSTRAP_ADMIN_PASSWORD` in the environment of `node scripts/start.js`
 * (what `npm start` and the Docker image run) gives user `admin` its password, which signs in; the value is never in
 * the output, at any log level; a password shorter than the Password schema's 8 characters stops the start with a
 * message that names the variable, not the value.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/free-port';

const root = path.resolve(__dirname, '../..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Starts the server on a fresh embedded database with `password`; resolves once it is ready or has exited. */
async function start(password: string) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bootstrap-'));
  dirs.push(dataDir);
  const port = await freePort();
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'trace', BOOTSTRAP_ADMIN_PASSWORD: password };
  delete env.DATABASE_URL;
  delete env.BOOTSTRAP_ADMIN_API_KEY;
  const child = spawn(process.execPath, ['scripts/start.js'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) break;
    if (Date.now() > deadline) throw new Error(`not ready: ${output}`);
    try {
      if ((await fetch(`${url}/api/health/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    return exited;
  };
  return { url, child, output: () => output, stop, exited };
}

const login = (url: string, password: string) =>
  fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });

describe('NAV-7: BOOTSTRAP_ADMIN_PASSWORD at start-up', () => {
  it('gives the admin its password from the environment; signing in works; the value is never in the output', async () => {
    const password = 'env-boot-pass-7c1f';
    const server = await start(password);
    try {
      expect(server.child.exitCode).toBeNull();
      expect((await login(server.url, 'env-boot-pass-wrong')).status).toBe(401);
      const signedIn = await login(server.url, password);
      expect(signedIn.status).toBe(200);
      expect(signedIn.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    } finally {
      await server.stop();
    }
    expect(server.output()).not.toContain(password);
    expect(server.output()).not.toContain('env-boot-pass');
  }, 180_000);

  it('refuses a password shorter than 8 characters (the Password schema minimum): the start fails naming the variable, not the value', async () => {
    const server = await start('sh0rt7!');
    const code = await server.exited;
    expect(code).not.toBe(0);
    expect(server.output()).toContain('BOOTSTRAP_ADMIN_PASSWORD must be at least 8 characters long');
    expect(server.output()).not.toContain('sh0rt7!');
  }, 180_000);
});
