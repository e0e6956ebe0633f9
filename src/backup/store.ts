/**
 * Backup and restore of a whole instance (BACKUP-1..6): the queries. A backup reads every copied table in one
 * repeatable-read transaction (one consistent state, while the server runs); a restore writes everything in one
 * transaction, so a failure half-way leaves the database as it was. Rows travel as PostgreSQL's own JSON
 * (`row_to_json`, `json_populate_recordset`), so the database converts every column type the same way on both
 * engines and a new column needs no code here.
 */
import type { Knex } from 'knex';
import type { Db } from '../db/database';
import { migrateToLatest, migrateUpTo, migrationNames } from '../db/migrate';
import { serviceVersion } from '../system/version';
import { BackupContents, BackupTable, encodeBackup } from './format';
import { BackupRefusal, checkFileTables, checkSchema, tablesToCopy } from './tables';

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The base tables of the database's current schema. */
export async function databaseTables(q: Knex): Promise<string[]> {
  const rows: { name: string }[] = (
    await q.raw(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
  ).rows;
  return rows.map((r) => r.name).sort();
}

/** The migrations the database holds, in order. */
async function appliedMigrations(q: Knex): Promise<string[]> {
  const rows: { name: string }[] = (await q.raw('SELECT name FROM knex_migrations ORDER BY id')).rows;
  return rows.map((r) => r.name);
}

/** Takes a backup of the database (BACKUP-1): the file's bytes. The server may keep running. */
export async function createBackup(db: Db, engine: 'pglite' | 'postgresql'): Promise<Buffer> {
  return db.transaction(
    async (trx) => {
      const { copied, excluded } = tablesToCopy(await databaseTables(trx));
      const migrations = await appliedMigrations(trx);
      const tables: BackupTable[] = [];
      for (const name of copied) {
        const rows: { r: string }[] = (await trx.raw(`SELECT row_to_json(t)::text AS r FROM ${quote(name)} t`)).rows;
        tables.push({ name, rows: rows.map((row) => row.r) });
      }
      return encodeBackup({ createdAt: new Date().toISOString(), tesseraVersion: serviceVersion, engine, migrations, excluded }, tables);
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

export interface RestoreOptions {
  /** Replace what the database holds (BACKUP-5); without it a database with data is refused. */
  force?: boolean;
  /**
   * Refuse while Tessera servers are connected to the database (BACKUP-7; PostgreSQL: connections whose
   * application_name is `tessera`, or the change listener of this schema, `tessera-listener:<schema>`, which a server
   * holds for as long as it runs while its pool may have closed every idle connection). The CLI sets it; its own
   * connections are `tessera-cli`.
   */
  refuseWhileServersRun?: boolean;
}

/** Connections of Tessera servers to the database, other than this one (none on the embedded database). */
async function serverConnections(trx: Knex.Transaction): Promise<number> {
  const rows: { n: number }[] = (
    await trx.raw(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND (application_name = 'tessera' OR application_name = left('tessera-listener:' || current_schema(), 63))`,
    )
  ).rows;
  return rows[0]?.n ?? 0;
}

export interface RestoreSummary {
  tables: Record<string, number>;
  excluded: Record<string, string>;
  /** Rows the database held before (with --force), by table. */
  replaced: Record<string, number>;
}

/** The migrations a database holds; none when it was never migrated. */
async function migrationsIfAny(q: Knex): Promise<string[]> {
  const [{ present }] = (await q.raw(`SELECT to_regclass('knex_migrations') IS NOT NULL AS present`)).rows;
  return present ? appliedMigrations(q) : [];
}

/**
 * Restores into a database as the CLI opens it, not migrated yet (BACKUP-3): a database that was never migrated takes
 * the file's schema first when the file comes from an older Tessera, then the rows, then this build's newer
 * migrations, as a server start would apply them; any other database is migrated to this build's schema, and then
 * only a file of that schema restores.
 */
export async function restoreInto(db: Db, contents: BackupContents, options: RestoreOptions = {}): Promise<RestoreSummary & { migrated: string[] }> {
  const fileMigrations = contents.header.migrations;
  const older = fileMigrations.length < migrationNames.length && fileMigrations.every((name, i) => migrationNames[i] === name);
  if (older && (await migrationsIfAny(db)).length === 0) await migrateUpTo(db, fileMigrations);
  else await migrateToLatest(db);
  const summary = await restoreBackup(db, contents, options);
  return { ...summary, migrated: await migrateToLatest(db) };
}

/** Most bytes of rows sent in one INSERT statement. */
const chunkBytes = 4 * 1024 * 1024;

/**
 * Restores checked contents (decodeBackup) into a migrated database (BACKUP-3, BACKUP-5, BACKUP-6): one transaction
 * that drops the foreign keys, empties every table the backup covers, inserts the rows, puts the keys back (checking
 * every row) and moves serial sequences past the restored ids.
 */
export async function restoreBackup(db: Db, contents: BackupContents, options: RestoreOptions = {}): Promise<RestoreSummary> {
  const { header, tables } = contents;
  return db.transaction(async (trx) => {
    if (options.refuseWhileServersRun) {
      const connections = await serverConnections(trx);
      if (connections > 0) {
        throw new BackupRefusal(
          `Tessera servers are connected to this database (${connections} connections): stop every server before a restore, then start them again`,
        );
      }
    }
    checkSchema(header.migrations, await appliedMigrations(trx));
    const present = await databaseTables(trx);
    const { copied, excluded } = tablesToCopy(present);
    checkFileTables(
      tables.map((t) => t.name),
      copied,
    );
    const replaced: Record<string, number> = {};
    for (const name of copied) {
      const [{ n }] = (await trx.raw(`SELECT count(*)::int AS n FROM ${quote(name)}`)).rows;
      // server_settings always has the instance id of the database: not data of its own.
      if (n > 0 && name !== 'server_settings') replaced[name] = n;
    }
    if (Object.keys(replaced).length > 0 && !options.force) {
      const held = Object.entries(replaced).map(([name, n]) => `${name} (${n})`);
      throw new BackupRefusal(`The database is not empty (${held.join(', ')}): restore with --force to replace everything it holds`);
    }
    const foreignKeys: { tab: string; con: string; def: string }[] = (
      await trx.raw(`
        SELECT c.relname AS tab, k.conname AS con, pg_get_constraintdef(k.oid) AS def
        FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace s ON s.oid = c.relnamespace
        WHERE k.contype = 'f' AND s.nspname = current_schema()
        ORDER BY c.relname, k.conname`)
    ).rows;
    for (const fk of foreignKeys) await trx.raw(`ALTER TABLE ${quote(fk.tab)} DROP CONSTRAINT ${quote(fk.con)}`);
    await trx.raw(`TRUNCATE ${[...copied, ...Object.keys(excluded)].map(quote).join(', ')}`);
    for (const table of tables) await insertRows(trx, table);
    for (const fk of foreignKeys) await trx.raw(`ALTER TABLE ${quote(fk.tab)} ADD CONSTRAINT ${quote(fk.con)} ${fk.def}`);
    await resetSequences(trx);
    return { tables: header.tables, excluded, replaced };
  });
}

async function insertRows(trx: Knex.Transaction, table: BackupTable): Promise<void> {
  let chunk: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    await trx.raw(`INSERT INTO ${quote(table.name)} SELECT * FROM json_populate_recordset(NULL::${quote(table.name)}, ?::json)`, [`[${chunk.join(',')}]`]);
    chunk = [];
    bytes = 0;
  };
  for (const row of table.rows) {
    chunk.push(row);
    bytes += row.length;
    if (bytes >= chunkBytes) await flush();
  }
  await flush();
}

/** Every sequence owned by a column of the schema moves to the column's largest value. */
async function resetSequences(trx: Knex.Transaction): Promise<void> {
  const serials: { tab: string; col: string; seq: string }[] = (
    await trx.raw(`
      SELECT c.relname AS tab, a.attname AS col, pg_get_serial_sequence(quote_ident(c.relname), a.attname) AS seq
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace s ON s.oid = c.relnamespace
      WHERE s.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
        AND pg_get_serial_sequence(quote_ident(c.relname), a.attname) IS NOT NULL`)
  ).rows;
  for (const { tab, col, seq } of serials) {
    await trx.raw(`SELECT setval(?::regclass, coalesce((SELECT max(${quote(col)}) FROM ${quote(tab)}), 0) + 1, false)`, [seq]);
  }
}
