/**
 * AUDIT-4 and AUDIT-5 on a server process (src/main.ts) as an operator runs it: every audit entry is also one JSON
 * line on its stdout, and entries older than AUDIT_RETENTION_DAYS are deleted when it starts. The embedded database
 * in a data directory, or a database of its own on the PostgreSQL server of TEST_DATABASE_URL.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { createDatabase, type Db } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { freePort } from '../../scripts/free-port';
import { call } from '../support/server';

const pgUrl = process.env.TEST_DATABASE_URL;
const repoRoot = path.join(__dirname, '../..');
const adminKey = `admin${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
const work = mkdtempSync(path.join(tmpdir(), 'tessera-audit-'));
const database = `tessera_audit_${randomBytes(5).toString('hex')}`;
let databaseUrl: string | null = null;
let child: ChildProcess | null = null;
let stdout = '';
let url = '';

const openDatabase = (): Db => createDatabase({ databaseUrl, pgliteDir: databaseUrl ? null : path.join(work, 'data'), poolMax: 1, applicationName: 'tessera-test' });

beforeAll(async () => {
  if (pgUrl) {
    const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE "${database}"`);
    await admin.destroy();
    const target = new URL(pgUrl);
    target.pathname = `/${database}`;
    databaseUrl = target.toString();
  }
  // Before the server starts: a migrated database holding an entry of 3 days ago and one of 12 hours ago.
  const db = openDatabase();
  try {
    await migrateToLatest(db);
    await db('audit_log').insert([
      { action: 'settings.update', outcome: 'success', surface: 'cli', details: JSON.stringify({ marker: 'three-days-old' }), at: db.raw(`now() - interval '3 days'`) },
      { action: 'settings.update', outcome: 'success', surface: 'cli', details: JSON.stringify({ marker: 'twelve-hours-old' }), at: db.raw(`now() - interval '12 hours'`) },
    ]);
  } finally {
    await db.destroy();
  }
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ['--require', 'tsx/cjs', 'src/main.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: path.join(work, 'data') }),
      // SECRET-2: PostgreSQL needs a secrets key.
      SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      BOOTSTRAP_ADMIN_API_KEY: adminKey,
      LOG_LEVEL: 'info',
      AUDIT_RETENTION_DAYS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stdout += chunk));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited while starting:\n${stdout}`);
    try {
      if ((await fetch(`${url}/api/health/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (i > 1200) throw new Error(`the server did not start:\n${stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (pgUrl) {
    const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.destroy();
  }
  rmSync(work, { recursive: true, force: true });
}, 60_000);

const api = (method: string, route: string, body?: unknown) => call(url, method, route, { key: adminKey, body });

/** The JSON lines of the server's stdout that carry an audit entry. */
function auditLines(): { msg: string; audit: Record<string, any> }[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((line) => line.audit);
}

describe('AUDIT-4, AUDIT-5: a server process', () => {
  it('AUDIT-5: an entry older than AUDIT_RETENTION_DAYS is deleted at start; a younger one stays', async () => {
    const entries = (await api('GET', '/api/audit?action=settings.update')).body as { details: { marker?: string } }[];
    const markers = entries.map((entry) => entry.details.marker);
    expect(markers).toContain('twelve-hours-old');
    expect(markers).not.toContain('three-days-old');
  });

  it('AUDIT-4: every entry is also one JSON log line on stdout, with the same fields, never a secret', async () => {
    const user = await api('POST', '/api/users', { username: `log${randomBytes(3).toString('hex')}`, password: 'log-password-1' });
    expect(user.status).toBe(201);
    const key = await api('POST', '/api/api-keys', { userId: user.body.userId, name: 'log test' });
    expect(key.status).toBe(201);
    const group = await api('POST', '/api/groups', { name: `log-${randomBytes(3).toString('hex')}` });
    expect(group.status).toBe(201);
    const failed = await call(url, 'POST', '/api/auth/login', { body: { username: 'nobody-here', password: 'wrong-password-1' } });
    expect(failed.status).toBe(401);

    const entries = (await api('GET', '/api/audit?limit=100')).body as { id: string; action: string; requestId: string | null; clientAddress: string | null }[];
    // Those this process wrote (the two inserted before it started have no line).
    const written = entries.filter((entry) => entry.action !== 'settings.update');
    expect(written.map((entry) => entry.action).sort()).toEqual(['apikey.create', 'auth.login', 'group.create', 'user.create']);
    const lines = auditLines();
    for (const entry of written) {
      const matching = lines.filter((line) => String(line.audit.id) === entry.id);
      expect(matching).toHaveLength(1);
      expect(matching[0]).toMatchObject({ msg: 'audit', audit: { action: entry.action, requestId: entry.requestId, clientAddress: entry.clientAddress } });
    }
    expect(lines).toHaveLength(written.length);
    expect(stdout).not.toContain(key.body.apiKey.split('.')[1]);
    expect(stdout).not.toContain('log-password-1');
    expect(stdout).not.toContain('wrong-password-1');
  });
});
