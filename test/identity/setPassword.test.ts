/**
 * PASS-1: after the quick start the admin has only an API key and the server holds the embedded database; the admin
 * (or anyone with `admin`) sets a password on the running instance through PUT /api/users/{userId}/password, and
 * `tessera users set-password --remote` does it from the command line. The password then signs in on /api/auth/login.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createActor } from '../support/actors';
import { expectStatus, runTessera } from '../support/cli';
import { expectError } from '../support/expect';
import { call, useTestServer } from '../support/server';
import { freePort } from '../../scripts/free-port';

const server = useTestServer();
const slow = 120_000;

const signIn = (username: string, password: string) => call(server.directUrl, 'POST', '/api/auth/login', { key: null, body: { username, password } });
const hashOf = async (userId: string) => (await server.db('users').where({ id: userId }).first()).passwordHash as string | null;

describe('setting a password on a running instance (PASS-1)', () => {
  it('PASS-1: the admin key sets the admin\'s own password (204, a bcrypt hash, audited); it then signs in on /api/auth/login', async () => {
    const me = (await server.call('GET', '/api/auth/session')).body;
    const set = await server.call('PUT', `/api/users/${me.userId}/password`, { body: { password: 'admin-page-pass-1' } });
    expect(set.status).toBe(204);
    expect(await hashOf(me.userId)).toMatch(/^\$2[aby]\$10\$/);
    const login = await signIn(me.username, 'admin-page-pass-1');
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ userId: me.userId, authMethod: 'session' });
    const audit = await server.db('audit_log').where({ action: 'user.password', targetId: me.userId });
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain('admin-page-pass-1');
  });

  it('PASS-1: a user without admin is refused 403 and nothing changes; bad passwords are 400s, an unknown user 404', async () => {
    const target = await createActor(server, { password: 'target-pass-1' });
    const member = await createActor(server, { permissions: ['board-create'] });
    const before = await hashOf(target.userId);
    expectError(await server.call('PUT', `/api/users/${target.userId}/password`, { key: member.key, body: { password: 'hijacked-pass-1' } }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('PUT', `/api/users/${member.userId}/password`, { key: member.key, body: { password: 'my-own-pass-1' } }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('PUT', `/api/users/${target.userId}/password`, { body: { password: 'short' } }), 400, 'BAD_REQUEST', 'Input validation failed');
    expectError(await server.call('PUT', `/api/users/${target.userId}/password`, { body: { password: 'é'.repeat(40) } }), 400, 'BAD_REQUEST', 'Password must be at most 72 bytes long');
    expectError(await server.call('PUT', `/api/users/${target.userId}/password`, { body: { password: 'with\u0000nul-pass' } }), 400, 'BAD_REQUEST', 'Invalid text at /password: lone UTF-16 surrogates and NUL characters cannot be stored');
    expectError(await server.call('PUT', `/api/users/${target.userId}/password`, { body: { password: 'valid-pass-1', extra: 1 } }), 400, 'BAD_REQUEST', 'Input validation failed');
    expectError(await server.call('PUT', '/api/users/nosuchuser0000000000000/password', { body: { password: 'valid-pass-1' } }), 404, 'NOT_FOUND', 'User not found');
    expect(await hashOf(target.userId)).toBe(before);
    expect((await signIn(target.username, 'target-pass-1')).status).toBe(200);
  });

  it('PASS-1: an admin key with an expiry cannot set a password (a password outlives it): 403', async () => {
    const admin = await createActor(server, { permissions: ['admin'] });
    const expiring = await server.call('POST', '/api/api-keys', { key: admin.key, body: { expiresAt: new Date(Date.now() + 3_600_000).toISOString() } });
    expect(expiring.status).toBe(201);
    const refused = await server.call('PUT', `/api/users/${admin.userId}/password`, { key: expiring.body.apiKey, body: { password: 'outliving-pass-1' } });
    expectError(refused, 403, 'FORBIDDEN', 'Permission denied: an API key cannot create a credential that outlives itself');
  });

  describe('the CLI', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-set-password-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const env = (extra: NodeJS.ProcessEnv = {}) => {
      const env: NodeJS.ProcessEnv = { ...process.env, TESSERA_CONFIG: path.join(dir, 'none.yaml'), DATA_DIR: path.join(dir, 'data'), ...extra };
      delete env.DATABASE_URL;
      delete env.TESSERA_URL;
      delete env.TESSERA_API_KEY;
      return { ...env, ...extra };
    };

    it(
      'PASS-1: `tessera users set-password <name> --remote` sets it through the API with the admin key; the password signs in',
      async () => {
        const target = await createActor(server, { password: 'cli-before-pass-1' });
        const result = await runTessera(['users', 'set-password', target.username, '--password', 'cli-after-pass-1', '--remote'], env({ TESSERA_URL: server.directUrl, TESSERA_API_KEY: server.adminKey }));
        expectStatus(result, 0);
        expect(JSON.parse(result.stdout)).toEqual({ updated: true, url: server.directUrl });
        expect((await signIn(target.username, 'cli-after-pass-1')).status).toBe(200);
        // A key without admin: the server's 403, exit 1.
        const member = await createActor(server, {});
        const refused = await runTessera(['users', 'set-password', target.username, '--password', 'cli-other-pass-1', '--remote', '--url', server.directUrl, '--api-key', member.key], env());
        expectStatus(refused, 1);
        expect(refused.stderr).toMatch(/Permission denied/);
        const unknown = await runTessera(['users', 'set-password', 'nobody-here', '--password', 'cli-other-pass-1', '--remote'], env({ TESSERA_URL: server.directUrl, TESSERA_API_KEY: server.adminKey }));
        expectStatus(unknown, 2);
        expect(unknown.stderr).toBe(`tessera: No user named "nobody-here" on ${server.directUrl}\n`);
      },
      slow,
    );

    it(
      'PASS-1: the local command, refused while the server holds the embedded database, names the --remote way',
      async () => {
        const data = path.join(dir, 'held');
        // A data directory held by a live process (this one), as the running server holds it.
        require('node:fs').mkdirSync(data, { recursive: true });
        writeFileSync(path.join(data, 'tessera.lock'), JSON.stringify({ pid: process.pid, owner: 'the tessera server' }));
        const refused = await runTessera(['users', 'set-password', 'admin', '--password', 'local-pass-1'], env({ DATA_DIR: data }));
        expectStatus(refused, 1);
        expect(refused.stderr).toContain(`is in use by the tessera server (pid ${process.pid})`);
        expect(refused.stderr).toContain("To set the password while the server runs: tessera users set-password admin --password <password> --remote (the admin's API key in TESSERA_API_KEY or --api-key, the instance in TESSERA_URL or --url).");
      },
      slow,
    );
  });
});

describe('the quick start (PASS-1)', () => {
  it(
    'PASS-1: the first start prints, with the generated key, the command that gives admin a password while it runs; run as printed, admin signs in; the local command is refused and names it',
    async () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-quick-start-'));
      const port = await freePort();
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', TESSERA_CONFIG: path.join(dataDir, 'none.yaml') };
      for (const name of ['DATABASE_URL', 'BOOTSTRAP_ADMIN_API_KEY', 'BOOTSTRAP_ADMIN_PASSWORD', 'TESSERA_URL', 'TESSERA_API_KEY']) delete env[name];
      const child = spawn(process.execPath, ['scripts/start.js'], { cwd: path.join(__dirname, '../..'), env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (chunk) => (output += chunk));
      child.stderr!.on('data', (chunk) => (output += chunk));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        const url = `http://127.0.0.1:${port}`;
        const deadline = Date.now() + 120_000;
        for (;;) {
          if (child.exitCode !== null) throw new Error(`exited: ${output}`);
          if (Date.now() > deadline) throw new Error(`not ready: ${output}`);
          const ready = await fetch(`${url}/api/health/ready`).then((r) => r.status === 200, () => false);
          if (ready) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const printed = /^ {2}TESSERA_URL=(\S+) TESSERA_API_KEY=(\S+) npx tessera users set-password admin --password '<password>' --remote$/m.exec(output);
        expect(printed).not.toBeNull();
        const [, printedUrl, key] = printed!;
        expect(output).toContain(`Bootstrap admin API key (shown once, store it now):\n  ${key}\n`);
        const cli = { ...env, TESSERA_URL: printedUrl, TESSERA_API_KEY: key };
        // The local command while the server holds the embedded database: refused, naming --remote.
        const local = await runTessera(['users', 'set-password', 'admin', '--password', 'quick-start-pass'], { ...env });
        expectStatus(local, 1);
        expect(local.stderr).toContain('--remote');
        const set = await runTessera(['users', 'set-password', 'admin', '--password', 'quick-start-pass', '--remote'], cli);
        expectStatus(set, 0);
        const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'quick-start-pass' }) });
        expect(login.status).toBe(200);
        expect(output).not.toContain('quick-start-pass');
      } finally {
        if (child.exitCode === null) child.kill('SIGTERM');
        await exited;
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    240_000,
  );
});
