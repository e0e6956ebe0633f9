import { unique } from '../support/unique';
import { freePort } from '../../scripts/free-port';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import knexFactory from 'knex';
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { createDatabase } from '../../src/db/database';
import { startServer, type RunningServer } from '../../src/server';
import { call, startTestServer, TestServer } from '../support/server';
import { categorySection, createBoard, emptySection, expectOk, getBoard, item, position } from '../boards-document/helpers';

const onPostgres = process.env.TEST_DATABASE_URL !== undefined;

describe('a failure inside a save', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    // Injected fault: deleting a section whose id starts with "doomed" fails. Removals are the last statements
    // of a save, so everything else of the save has been applied when it fails.
    await server.db.raw(`
      CREATE FUNCTION refuse_doomed_sections() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.id LIKE 'doomed%' THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN OLD;
      END $$`);
    await server.db.raw('CREATE TRIGGER refuse_doomed_sections BEFORE DELETE ON sections FOR EACH ROW EXECUTE FUNCTION refuse_doomed_sections()');
  });
  afterAll(async () => {
    await server.stop();
  });

  it('leaves the board exactly as before, answering a 500 that leaks nothing', async () => {
    const board = await createBoard(server);
    const kept = unique('kept');
    const removed = unique('removed');
    const category = unique('cat');
    const doomed = unique('doomed');
    const seeded = await server.call('PUT', `/api/boards/${board.boardId}`, {
      body: {
        sections: [emptySection(board.sectionId), categorySection(category, 'Before', 1), categorySection(doomed, 'Doomed', 2)],
        items: [item(kept, [position(board.layoutId, board.sectionId, 0, 0)]), item(removed, [position(board.layoutId, board.sectionId, 1, 0)])],
      },
    });
    expectOk(seeded);
    const before = await getBoard(server, board.boardId);

    const failed = await server.call('PUT', `/api/boards/${board.boardId}`, {
      body: {
        expectedVersion: before.body.version,
        sections: [emptySection(board.sectionId), categorySection(category, 'After', 1)],
        items: [
          item(kept, [position(board.layoutId, board.sectionId, 5, 5)], { options: { changed: true } }),
          item(unique('added'), [position(board.layoutId, board.sectionId, 2, 0)]),
        ],
      },
    });
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });
    expect(JSON.stringify(failed.body)).not.toMatch(/injected|sections|DELETE|stack/i);

    const after = await getBoard(server, board.boardId);
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    const rows = await server.db('boards').where({ id: board.boardId }).first('version');
    expect(rows.version).toBe(before.body.version);
  });
});

(onPostgres ? describe : describe.skip)('the database going away (PostgreSQL)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers 503 while its connections are cut, then recovers without a restart', async () => {
    const board = await createBoard(server);
    expectOk(await getBoard(server, board.boardId));
    const applicationName = (server.db.client.config.connection as { application_name: string }).application_name;
    const admin = knexFactory({ client: 'pg', connection: process.env.TEST_DATABASE_URL, pool: { min: 0, max: 2 } });
    try {
      // Hold the board's row lock so that a save is waiting inside the database when its connection is cut.
      const blocker = await admin.transaction();
      const schema = (server.db.client.config.searchPath as string[])[0];
      await blocker.raw(`SELECT id FROM "${schema}".boards WHERE id = ? FOR UPDATE`, [board.boardId]);
      const save = server.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: [emptySection(board.sectionId)], items: [] } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const terminated = await admin.raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?', [applicationName]);
      expect(terminated.rows.length).toBeGreaterThan(0);
      const cut = await save;
      await blocker.rollback();
      expect(cut.status).toBe(503);
      expect(cut.body).toEqual({ message: 'Database unavailable, retry later', code: 'SERVICE_UNAVAILABLE', data: {} });

      // No restart: the pool replaces the dead connections.
      let recovered = null;
      for (let attempt = 0; attempt < 20 && !recovered; attempt++) {
        const result = await getBoard(server, board.boardId);
        expect([200, 503]).toContain(result.status);
        if (result.status === 200) recovered = result;
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(recovered?.status).toBe(200);
      expect((await call(server.url, 'GET', '/api/health/live')).status).toBe(200);
    } finally {
      await admin.destroy();
    }
  });
});

/**
 * A TCP proxy to PostgreSQL that can turn into a black hole: while it is one, every byte either way is dropped and
 * no connection is closed, as with a frozen postmaster (`kill -STOP`) or a network that stops answering.
 */
async function blackHoleProxy(target: URL): Promise<{ url: string; blackHole(on: boolean): void; close(): Promise<void> }> {
  let holed = false;
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('data', (chunk) => {
        if (!holed) to.write(chunk);
      });
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    blackHole: (on) => {
      holed = on;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

(onPostgres ? describe : describe.skip)('DB-1: every wait on the database is bounded (PostgreSQL)', () => {
  const timeouts = { DB_ACQUIRE_TIMEOUT_MS: '1000', DB_CONNECT_TIMEOUT_MS: '1000', DB_STATEMENT_TIMEOUT_MS: '1000', READY_TIMEOUT_MS: '500' };
  const key = `faults${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: process.env.TEST_DATABASE_URL, pool: { min: 0, max: 2 } });
  let proxy: Awaited<ReturnType<typeof blackHoleProxy>>;
  let server: RunningServer;
  const api = (method: string, path: string, body?: unknown) => call(server.url, method, path, { key, body });

  beforeAll(async () => {
    await admin.raw(`CREATE SCHEMA "${schema}"`);
    proxy = await blackHoleProxy(new URL(process.env.TEST_DATABASE_URL!));
    const config = { ...loadConfig({ LOG_LEVEL: 'silent', VALIDATE_RESPONSES: 'true', ...timeouts }), port: 0, host: '127.0.0.1', bootstrapAdminApiKey: key };
    const db = createDatabase({ databaseUrl: proxy.url, schema, poolMax: 4, applicationName: `tessera-${schema}`, timeouts: config.databaseTimeouts });
    server = await startServer(config, { db, logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) });
  }, 180_000);
  afterAll(async () => {
    proxy.blackHole(false);
    await server?.stop();
    await proxy?.close();
    await admin.raw(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.destroy();
  });

  const newBoard = async () => {
    const { boardId } = expectOk(await api('POST', '/api/boards', { name: unique('bounded'), columnCount: 12, isPublic: false }), 201);
    return expectOk(await api('GET', `/api/boards/${boardId}`));
  };

  /** Reads the board until it answers 200 again (the pool replacing what the outage broke), 503 meanwhile. */
  const recovered = async (boardId: string) => {
    for (let attempt = 0; attempt < 50; attempt++) {
      const result = await api('GET', `/api/boards/${boardId}`);
      expect([200, 503]).toContain(result.status);
      if (result.status === 200) return result;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the board never answered 200 again');
  };

  it('DB-1: a statement past DB_STATEMENT_TIMEOUT_MS (a save waiting on a lock) is a 503 and writes nothing; the next save goes through', async () => {
    const board = await newBoard();
    const blocker = await admin.transaction();
    try {
      await blocker.raw(`SELECT id FROM "${schema}".boards WHERE id = ? FOR UPDATE`, [board.id]);
      const save = await api('PUT', `/api/boards/${board.id}`, { sections: board.sections, items: [], expectedVersion: board.version });
      expect(save.status).toBe(503);
      expect(save.body).toEqual({ message: 'Database unavailable, retry later', code: 'SERVICE_UNAVAILABLE', data: {} });
    } finally {
      await blocker.rollback();
    }
    expect((await api('GET', `/api/boards/${board.id}`)).body.version).toBe(board.version);
    expectOk(await api('PUT', `/api/boards/${board.id}`, { sections: board.sections, items: [], expectedVersion: board.version }));
  });

  it('DB-1, DB-2: a database that stops answering is a 503 for requests and readiness while liveness stays 200; it recovers without a restart', async () => {
    const board = await newBoard();
    proxy.blackHole(true);
    try {
      const read = await api('GET', `/api/boards/${board.id}`);
      expect(read.status).toBe(503);
      expect(read.body).toEqual({ message: 'Database unavailable, retry later', code: 'SERVICE_UNAVAILABLE', data: {} });
      const [save, ready, live] = await Promise.all([
        api('PUT', `/api/boards/${board.id}`, { sections: board.sections, items: [], expectedVersion: board.version }),
        call(server.url, 'GET', '/api/health/ready'),
        call(server.url, 'GET', '/api/health/live'),
      ]);
      expect(save.status).toBe(503);
      expect(save.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'unavailable', checks: { database: { status: 'unavailable', latencyMs: null } } });
      expect(live).toMatchObject({ status: 200, body: { status: 'ok' } });
      // More requests than the pool has connections: new connections time out opening, the rest waiting for one.
      const burst = await Promise.all(Array.from({ length: 6 }, () => api('GET', `/api/boards/${board.id}`)));
      expect(burst.map((result) => [result.status, result.body.message])).toEqual(Array(6).fill([503, 'Database unavailable, retry later']));
    } finally {
      proxy.blackHole(false);
    }
    expect((await recovered(board.id)).body.version).toBe(board.version);
    expectOk(await api('PUT', `/api/boards/${board.id}`, { sections: board.sections, items: [], expectedVersion: board.version }));
    expect((await call(server.url, 'GET', '/api/health/ready')).status).toBe(200);
  });
});

describe('SIGTERM under load', () => {
  it('finishes the requests in flight, then exits', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-sigterm-'));
    const key = `sigterm${randomBytes(3).toString('hex')}.${randomBytes(24).toString('hex')}`;
    // A port the system just handed out: a random one was sometimes taken, and the server then exited at once.
    const port = await freePort();
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', 'src/main.ts'], {
      cwd: path.resolve(__dirname, '../..'),
      // A grace for the accept queue; the requests in progress then have SHUTDOWN_TIMEOUT_MS, which a slow machine stays inside.
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, BOOTSTRAP_ADMIN_API_KEY: key, LOG_LEVEL: 'silent', DATABASE_URL: '', SHUTDOWN_GRACE_MS: '2000', SHUTDOWN_TIMEOUT_MS: '120000' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}`;
    try {
      // Up to 90 s: a cold start on a loaded machine is slow. A server that exited, or never got ready, fails here.
      let ready = false;
      for (let i = 0; i < 360 && !ready && child.exitCode === null; i++) {
        ready = (await fetch(`${base}/api/health/ready`).then((r) => r.status, () => 0)) === 200;
        if (!ready) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect({ ready, exitCode: child.exitCode }).toEqual({ ready: true, exitCode: null });
      // Logins are slow on purpose (bcrypt): a queue of them is in flight when SIGTERM arrives.
      let finished = 0;
      // One connection per request (no keep-alive reuse, whose races at shutdown are the client's to retry).
      const inFlight = Array.from({ length: 12 }, (_, i) =>
        postOnOwnConnection(port, '/api/auth/login', { username: `nobody-${i}`, password: 'wrong-password' }).finally(() => {
          finished += 1;
        }),
      );
      // Long enough for every connection to be accepted, far shorter than twelve bcrypt comparisons.
      await new Promise((resolve) => setTimeout(resolve, 250));
      const finishedBeforeSignal = finished;
      child.kill('SIGTERM');
      const results = await Promise.all(inFlight);
      expect(finishedBeforeSignal).toBeLessThan(12);
      expect(results.map((r) => r.status)).toEqual(Array(12).fill(401));
      expect(await exited).toBe(0);
      await expect(fetch(`${base}/api/health/live`)).rejects.toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 150_000);
});

function postOnOwnConnection(port: number, urlPath: string, body: unknown): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path: urlPath, method: 'POST', agent: false, headers: { 'Content-Type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}
