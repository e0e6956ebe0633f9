import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { createDatabase, Db } from '../../src/db/database';
import { startServer, RunningServer } from '../../src/server';

/**
 * Boots the real app on a real database for one test file: PGlite in memory by default, or a fresh schema
 * on the PostgreSQL server named by TEST_DATABASE_URL (CI runs the suite both ways).
 */
export interface TestServer extends RunningServer {
  adminKey: string;
  /** fetch relative to the server, JSON in and out. */
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw body (sent as is, with the given content-type header). */
  raw?: string;
}

export interface CallResult {
  status: number;
  body: any;
  headers: Headers;
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const adminKey = `admin${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent', VALIDATE_RESPONSES: 'true', ...env }),
    port: 0,
    host: '127.0.0.1',
    bootstrapAdminApiKey: adminKey,
  };
  const { db, dropSchema } = await createTestDatabase();
  const server = await startServer(config, { db, logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) });
  const stop = async () => {
    await server.stop();
    await dropSchema();
  };
  return {
    ...server,
    stop,
    adminKey,
    call: (method, path, options = {}) => call(server.url, method, path, { key: adminKey, ...options }),
  };
}

export async function call(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.ApiKey = options.key;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers, body });
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

async function createTestDatabase(): Promise<{ db: Db; dropSchema: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return { db: createDatabase({ databaseUrl: null, pgliteDir: null }), dropSchema: async () => {} };
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE SCHEMA "${schema}"`);
  await admin.destroy();
  return {
    db: createDatabase({ databaseUrl: url, schema, poolMax: 5 }),
    dropSchema: async () => {
      const cleanup = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
      await cleanup.raw(`DROP SCHEMA "${schema}" CASCADE`);
      await cleanup.destroy();
    },
  };
}
