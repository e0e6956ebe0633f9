/**
 * A start on a database that records exactly this build's migrations skips knex's migrator (src/db/migrate.ts); any
 * other database still goes through it: a missing migration is applied, an applied one this build does not know is
 * refused as knex refuses it. On the embedded database (in memory) or on PostgreSQL in a schema of its own.
 */
import { randomBytes } from 'node:crypto';
import { createDatabase, type Db } from '../../src/db/database';
import { migrateToLatest, migrationNames } from '../../src/db/migrate';

const pgUrl = process.env.TEST_DATABASE_URL;
const schema = `migrate_check_${randomBytes(5).toString('hex')}`;
let db: Db;

beforeAll(async () => {
  if (pgUrl) {
    const admin = createDatabase({ databaseUrl: pgUrl });
    await admin.raw(`CREATE SCHEMA "${schema}"`);
    await admin.destroy();
  }
  db = createDatabase({ databaseUrl: pgUrl ?? null, pgliteDir: null, schema: pgUrl ? schema : undefined });
});
afterAll(async () => {
  if (pgUrl) await db.raw(`DROP SCHEMA "${schema}" CASCADE`);
  await db.destroy();
});

describe('the start-up migration check', () => {
  it('applies every migration the database lacks, then finds nothing to do', async () => {
    await migrateToLatest(db);
    const { rows } = await db.raw('select name from knex_migrations order by name');
    expect(rows.map((row: { name: string }) => row.name)).toEqual([...migrationNames]);
    const sent: string[] = [];
    const count = (query: { sql: string }) => sent.push(query.sql);
    db.on('query', count);
    try {
      expect(await migrateToLatest(db)).toEqual([]);
    } finally {
      db.off('query', count);
    }
    // The check (two statements) and the instance id's insert, not knex's migrator (a dozen, lock included).
    expect(sent).toHaveLength(3);
    expect(sent.join('\n')).not.toMatch(/knex_migrations_lock|information_schema/);
  });

  it('applies a migration recorded as missing (the migrator runs, not the shortcut)', async () => {
    const last = migrationNames[migrationNames.length - 1];
    const migration = await import(`../../src/db/migrations/${last}`);
    await migration.down(db);
    await db('knex_migrations').where({ name: last }).delete();
    expect(await migrateToLatest(db)).toEqual([last]);
  });

  it('refuses a database holding a migration this build does not know, as knex does', async () => {
    await db('knex_migrations').insert({ name: '9999_from_a_newer_build', batch: 99, migration_time: new Date() });
    await expect(migrateToLatest(db)).rejects.toThrow(/9999_from_a_newer_build/);
    await db('knex_migrations').where({ name: '9999_from_a_newer_build' }).delete();
    expect(await migrateToLatest(db)).toEqual([]);
  });
});
