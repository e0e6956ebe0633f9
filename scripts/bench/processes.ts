import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freePort } from '../free-port';
import path from 'node:path';

export const root = path.resolve(__dirname, '..', '..');

export { freePort };

/** SECRET-2: the key of the benches' servers (SECRET_ENCRYPTION_KEY in the environment wins). */
const benchSecretKey = randomBytes(32).toString('hex');

export async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/**
 * Starts a TypeScript entry point under node (through tsx's require hook) with the environment given; stdout is
 * discarded, stderr inherited. BENCH_NODE_ARGS adds node options (for example `--cpu-prof`).
 */
export function startNode(script: string, env: Record<string, string>): ChildProcess {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return spawn(process.execPath, [...nodeArgs, '--require', 'tsx/cjs', script], {
    cwd: root,
    // SECRET-2: a server on PostgreSQL needs a secrets key; the benches' servers get one of their own.
    env: { SECRET_ENCRYPTION_KEY: benchSecretKey, ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * For PostgreSQL runs: a fresh schema, so each run bootstraps its own admin and leaves nothing behind.
 * Returns the DATABASE_URL to hand to the server (search_path set through the connection options) and a cleanup.
 */
export async function freshPostgresSchema(databaseUrl: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const { Client } = await import('pg');
  const schema = `${prefix}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.end();
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const cleanup = new Client({ connectionString: databaseUrl });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA "${schema}" CASCADE`);
      await cleanup.end();
    },
  };
}

/**
 * A floor server (scripts/bench/floor-server.ts) answering with the bytes of `bodyFile`, once it answers; `env` adds
 * its options (FLOOR_QUERY and DATABASE_URL).
 */
export async function startFloor(bodyFile: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = startNode('scripts/bench/floor-server.ts', { PORT: String(port), FLOOR_BODY_FILE: bodyFile, ...env });
  try {
    await waitFor(`${url}/`);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  return { child, url };
}
