/**
 * `npm start` runs the server as the process npm started (RUN-2): `exec node scripts/start.js`, the server compiled
 * to build/ (RUN-1). A SIGTERM or SIGINT sent to npm reaches the server, which stops gracefully and lets the port go
 * within a couple of seconds (the listener's grace period is SHUTDOWN_GRACE_MS, 1 s by default). The Docker image
 * runs node itself too.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/free-port';

const root = path.resolve(__dirname, '../..');

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(condition: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function startWithNpm(dataDir: string): Promise<{ npm: ChildProcess; serverPid: number; port: number; output: () => string }> {
  const port = await freePort();
  const npm = spawn('npm', ['start'], {
    cwd: root,
    // A process group of its own, as a terminal gives a command (Ctrl-C signals the whole group).
    detached: true,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, BOOTSTRAP_ADMIN_API_KEY: 'npmstart.0123456789abcdefghij', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout!.on('data', (chunk) => (output += chunk));
  npm.stderr!.on('data', (chunk) => (output += chunk));
  await until(async () => {
    if (npm.exitCode !== null) throw new Error(`npm start exited: ${output}`);
    try {
      return (await fetch(`http://127.0.0.1:${port}/api/health/ready`)).status === 200;
    } catch {
      return false;
    }
  }, 120_000);
  // The process npm started (through `sh -c`, which `exec` replaced with node).
  const serverPid = Number(execFileSync('ps', ['-o', 'pid=', '--ppid', String(npm.pid)], { encoding: 'utf8' }).trim());
  return { npm, serverPid, port, output: () => output };
}

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-npm-start-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('RUN-2: npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    // Graceful: the server logs "stopped" (it was not killed). How long a stop takes is the operating guide's figure,
    // not a timed assertion: the waits below are bounds a loaded machine stays inside.
    '%s to npm stops the server gracefully',
    async (signal) => {
      const { npm, serverPid, port, output } = await startWithNpm(dataDir);
      expect(execFileSync('ps', ['-o', 'args=', '-p', String(serverPid)], { encoding: 'utf8' }).trim()).toBe('node scripts/start.js');
      npm.kill(signal);
      await until(async () => !(await listening(port)), 60_000);
      await until(() => !alive(serverPid), 60_000);
      await until(() => npm.exitCode !== null || npm.signalCode !== null, 60_000);
      expect(output()).toContain(`"signal":"${signal}"`);
      expect(output()).toContain('"msg":"stopped"');
    },
    180_000,
  );

  it('a signal to the whole process group (Ctrl-C in a terminal) is one graceful stop, not "exit now"', async () => {
    const { npm, serverPid, port, output } = await startWithNpm(dataDir);
    process.kill(-npm.pid!, 'SIGINT');
    await until(async () => !(await listening(port)), 60_000);
    await until(() => !alive(serverPid), 60_000);
    await until(() => npm.exitCode !== null || npm.signalCode !== null, 60_000);
    expect(output()).toContain('"msg":"stopped"');
    expect(output()).not.toContain('second signal');
  }, 180_000);

  it('the Docker image runs node itself, on the compiled server', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^CMD \["node", "build\/main\.js"\]$/m);
    expect(dockerfile).toMatch(/^RUN node scripts\/build-server\.js/m);
  });
});
