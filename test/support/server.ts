import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { createDatabase, Db } from '../../src/db/database';
import { startServer, RunningServer } from '../../src/server';
import { createTesseraClient, TesseraClient } from '../../src/client';
import { contractFetch, startContractProxy } from './contract';

/**
 * Boots the real app on a real database for one test file: PGlite in memory by default, or a fresh schema
 * on the PostgreSQL server named by TEST_DATABASE_URL (CI runs the suite both ways).
 *
 * With CONTRACT_PROXY=1 (`npm run contract`) every test talks to the server through `prism proxy` on the
 * OpenAPI document: `url` is the proxy's, and stop() fails the file when Prism reported a contract violation
 * (see test/support/contract.ts).
 */
export interface TestServer extends RunningServer {
  adminKey: string;
  /** The server's log lines when started with `captureLog` (empty otherwise). */
  logLines: string[];
  /** The server itself, bypassing the contract proxy (same as `url` without CONTRACT_PROXY). */
  directUrl: string;
  /** Typed openapi-fetch client (src/client) with the admin key, through the contract proxy when enabled. */
  client: TesseraClient;
  /** A typed client for another key (null = anonymous). */
  clientFor(key: string | null): TesseraClient;
  /** fetch relative to the server, JSON in and out. */
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /**
   * Starts another instance of the app on the same database, as a second server behind a load balancer would be
   * (PostgreSQL only: PGlite lives inside one process). Reached directly, without the contract proxy; stopped with
   * this server at the latest.
   */
  startSibling(): Promise<SiblingServer>;
}

export interface SiblingServer {
  url: string;
  /** PROV-7: settles once the sibling's provisioning applied its sources once and watches them. */
  provisioning: Promise<void>;
  /** fetch relative to the sibling, JSON in and out, with the admin key unless told otherwise. */
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  stop(): Promise<void>;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw body (sent as is, with the given content-type header). */
  raw?: string | Uint8Array;
}

export interface CallResult {
  status: number;
  body: any;
  headers: Headers;
}

/** SECRET-2: the test servers' key (a test file may pass its own SECRET_ENCRYPTION_KEY). */
export const testSecretKey = randomBytes(32).toString('hex');

export interface TestServerOptions {
  /** Keep every log line of the server (level debug) in `logLines`, for tests that read the log (SECRET-5). */
  captureLog?: boolean;
  /** Listen on this port instead of a free one (a test whose BASE_URL must name the server before it starts). */
  port?: number;
}

export async function startTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const adminKey = `admin${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent', VALIDATE_RESPONSES: 'true', SECRET_ENCRYPTION_KEY: testSecretKey, ...env }),
    port: options.port ?? 0,
    host: '127.0.0.1',
    bootstrapAdminApiKey: adminKey,
  };
  const { db, openAgain, dropSchema } = await createTestDatabase();
  const logLines: string[] = [];
  const logger = () =>
    options.captureLog
      ? pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) })
      : pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const server = await startServer(config, { db, logger: logger() });
  const siblings: RunningServer[] = [];
  let proxy: Awaited<ReturnType<typeof startContractProxy>> | null = null;
  try {
    if (process.env.CONTRACT_PROXY === '1') proxy = await startContractProxy(server.url);
  } catch (error) {
    await server.stop();
    await dropSchema();
    throw error;
  }
  const url = proxy?.url ?? server.url;
  const stop = async () => {
    try {
      await proxy?.stop();
      await Promise.all(siblings.map((sibling) => sibling.stop()));
    } finally {
      await server.stop();
      await dropSchema();
    }
  };
  const clientFor = (key: string | null) => createTesseraClient({ baseUrl: url, apiKey: key ?? undefined, fetch: contractFetch });
  return {
    ...server,
    url,
    directUrl: server.url,
    stop,
    adminKey,
    logLines,
    client: clientFor(adminKey),
    clientFor,
    call: (method, path, options = {}) => call(url, method, path, { key: adminKey, ...options }),
    async startSibling() {
      if (!openAgain) throw new Error('startSibling needs PostgreSQL (TEST_DATABASE_URL)');
      const sibling = await startServer(config, { db: openAgain(), logger: logger() });
      siblings.push(sibling);
      return {
        url: sibling.url,
        provisioning: sibling.provisioning,
        call: (method, path, options = {}) => call(sibling.url, method, path, { key: adminKey, ...options }),
        stop: sibling.stop,
      };
    },
  };
}

export async function call(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.ApiKey = options.key;
  let body: string | Uint8Array | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await contractFetch(baseUrl + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text.length > 0) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

async function createTestDatabase(): Promise<{ db: Db; openAgain: (() => Db) | null; dropSchema: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return { db: createDatabase({ databaseUrl: null, pgliteDir: null }), openAgain: null, dropSchema: async () => {} };
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE SCHEMA "${schema}"`);
  await admin.destroy();
  const open = () => createDatabase({ databaseUrl: url, schema, poolMax: 5, applicationName: `tessera-${schema}` });
  return {
    db: open(),
    openAgain: open,
    dropSchema: async () => {
      const cleanup = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
      await cleanup.raw(`DROP SCHEMA "${schema}" CASCADE`);
      await cleanup.destroy();
    },
  };
}

/**
 * The test file's server: started before its first test, stopped after its last. The returned object stands for the
 * server once started (`server.call(…)`, `server.db`, …), so test files declare it in one line.
 */
export function useTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}): TestServer {
  let started: TestServer | undefined;
  // Starting PGlite and the app takes seconds, more on a loaded machine: a longer limit than the tests'.
  beforeAll(async () => {
    started = await startTestServer(env, options);
  }, 180_000);
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as TestServer, {
    get(_target, property) {
      if (!started) throw new Error(`the test server is not started yet (read of "${String(property)}" outside a test)`);
      // The server's functions are closures (no `this`), and `db` is a knex function with properties: returned as is.
      return Reflect.get(started, property, started);
    },
  });
}
