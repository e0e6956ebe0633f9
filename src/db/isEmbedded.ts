import type { Knex } from 'knex';

/** True for PGlite (one process, one connection), false for a PostgreSQL server that other instances share. */
export function isEmbedded(db: Knex): boolean {
  return (db.client as { pglite?: unknown }).pglite !== undefined || typeof (db.client.config as { connection?: unknown }).connection === 'function';
}
