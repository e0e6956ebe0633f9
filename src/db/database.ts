import { mkdirSync } from 'node:fs';
import knexFactory, { Knex } from 'knex';
import { knexSnakeCaseMappers } from 'objection';
import pg from 'pg';

export type Db = Knex;

// int8 results (count(*), sums) arrive as strings from pg but as numbers from PGlite: make both numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/**
 * knex-pglite 0.14 reports `.del()` as the raw result object instead of the affected-row count,
 * because knex's pg dialect only turns UPDATE/DELETE commands into counts. Map `del` to DELETE.
 */
function pgliteClient(): typeof Knex.Client {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ClientPGLite = require('knex-pglite') as new (config: Knex.Config) => { processResponse(obj: any, runner: any): any };
  class FixedClientPGLite extends ClientPGLite {
    override processResponse(obj: any, runner: any): any {
      if (obj?.method === 'del' && !obj.returning) return obj.response?.affectedRows ?? 0;
      return super.processResponse(obj, runner);
    }
  }
  return FixedClientPGLite as unknown as typeof Knex.Client;
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
}

export function createDatabase(target: DatabaseTarget): Db {
  const common: Knex.Config = { ...knexSnakeCaseMappers(), acquireConnectionTimeout: 10_000 };
  let db: Db;
  if (target.databaseUrl) {
    db = knexFactory({
      ...common,
      client: 'pg',
      connection: { connectionString: target.databaseUrl, application_name: target.applicationName ?? 'tessera' },
      searchPath: target.schema ? [target.schema] : undefined,
      pool: { min: 0, max: target.poolMax ?? 10 },
    });
  } else {
    if (target.pgliteDir) mkdirSync(target.pgliteDir, { recursive: true });
    db = knexFactory({
      ...common,
      client: pgliteClient(),
      connection: target.pgliteDir ? ({ filename: target.pgliteDir } as any) : ({} as any),
    });
  }
  return db;
}
