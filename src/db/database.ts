import knexFactory, { Knex } from 'knex';
import type { PGlite } from '@electric-sql/pglite';
import { defaultDatabaseTimeouts, type DatabaseTimeouts } from '../config/config';
import { openEmbedded } from './embedded';
import { queryPrepared } from './pglitePrepared';
// Objection's snake_case identifier mapping (MODEL-1: the models and every knex query see camelCase). All of objection
// is loaded at start anyway, by the models (src/db/models, reached from here through migrate.ts and instance.ts).
import { knexSnakeCaseMappers } from 'objection';

export type Db = Knex;


/** pg, loaded only for PostgreSQL. */
function postgresDriver(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pg = require('pg') as typeof import('pg');
  // int8 results (count(*), sums) arrive as strings from pg but as numbers from PGlite: make both numbers.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
}

/**
 * knex-pglite 0.14 reports `.del()` as the raw result object instead of the affected-row count,
 * because knex's pg dialect only turns UPDATE/DELETE commands into counts. Map `del` to DELETE.
 */
function pgliteClient(): typeof Knex.Client {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ClientPGLite = require('knex-pglite') as new (config: Knex.Config) => { pglite: PGlite; acquireConnection(): Promise<any>; _query(connection: PGlite, obj: any): Promise<any>; processResponse(obj: any, runner: any): any };
  class FixedClientPGLite extends ClientPGLite {
    declare pglite: PGlite;

    /**
     * DB-3: PGlite's start (WASM compilation, loading the data directory) is awaited before the pool's acquire timeout
     * starts, so a slow start on a loaded machine is waited for rather than reported as a pool timeout; the timeout
     * then only bounds a wait for the one connection.
     */
    override async acquireConnection(): Promise<any> {
      await this.pglite.waitReady;
      return super.acquireConnection();
    }

    /** A statement with a name (preparedStatement) is kept prepared under it, as node-postgres does on PostgreSQL. */
    override async _query(connection: PGlite, obj: any): Promise<any> {
      const name = obj.options?.name;
      if (typeof name !== 'string') return super._query(connection, obj);
      obj.response = await queryPrepared(connection, name, obj.sql, obj.bindings ?? []);
      return obj;
    }

    override processResponse(obj: any, runner: any): any {
      if (obj?.method === 'del' && !obj.returning) return obj.response?.affectedRows ?? 0;
      return super.processResponse(obj, runner);
    }
  }
  return FixedClientPGLite as unknown as typeof Knex.Client;
}

/** pg, through knex's dialect: a connection whose statement got no answer in time is closed, never reused. */
function postgresClient(): typeof Knex.Client {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ClientPG = require('knex/lib/dialects/postgres') as new (config: Knex.Config) => { _query(connection: any, obj: any): Promise<any> };
  class BoundedClientPG extends ClientPG {
    override async _query(connection: any, obj: any): Promise<any> {
      try {
        return await super._query(connection, obj);
      } catch (error) {
        // pg's query_timeout leaves the statement running on the connection (or lost in a network black hole).
        if ((error as Error)?.message === 'Query read timeout') {
          connection.__knex__disposed = error;
          connection.connection?.stream?.destroy();
        }
        throw error;
      }
    }
  }
  return BoundedClientPG as unknown as typeof Knex.Client;
}

export interface DatabaseTarget {
  /** postgres:// URL; when null, PGlite is used. */
  databaseUrl: string | null;
  /** PGlite data directory; null means in memory. */
  pgliteDir?: string | null;
  /** PostgreSQL schema to use (tests isolate themselves this way). */
  schema?: string;
  poolMax?: number;
  /** application_name of the PostgreSQL connections (default `tessera`). */
  applicationName?: string;
  timeouts?: DatabaseTimeouts;
}

export function createDatabase(target: DatabaseTarget): Db {
  const timeouts = target.timeouts ?? defaultDatabaseTimeouts;
  if (!target.databaseUrl) return pgliteDatabase(openEmbedded(target.pgliteDir ?? null));
  postgresDriver();
  return knexFactory({
    ...knexSnakeCaseMappers(),
    acquireConnectionTimeout: timeouts.acquireMs,
    client: postgresClient(),
    connection: {
      connectionString: target.databaseUrl,
      application_name: target.applicationName ?? 'tessera',
      connectionTimeoutMillis: timeouts.connectMs,
      statement_timeout: timeouts.statementMs,
      query_timeout: timeouts.statementMs + 1_000,
    } as Knex.PgConnectionConfig,
    searchPath: target.schema ? [target.schema] : undefined,
    pool: { min: 0, max: target.poolMax ?? 10 },
  });
}

/**
 * knex on an open PGlite instance (its one connection; knex-pglite takes it as `connection: () => ({pglite})`). The
 * database runs inside this process and cannot freeze apart from it: its first acquisition waits for PGlite to start.
 */
export function pgliteDatabase(pglite: PGlite, acquireMs = 10_000): Db {
  return knexFactory({
    ...knexSnakeCaseMappers(),
    acquireConnectionTimeout: acquireMs,
    client: pgliteClient(),
    // Saves the `select version()` knex runs on its first connection otherwise: knex only asks whether the server is
    // at least 9.2 (json columns), and PGlite 0.5 is PostgreSQL 18.
    version: '18',
    connection: (() => ({ pglite })) as unknown as Knex.StaticConnectionConfig,
  });
}
