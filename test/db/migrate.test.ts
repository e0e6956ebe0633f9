/**
 * LB-3 at the level of the migrations: several instances started at once on one empty PostgreSQL schema all come up
 * (they take turns; the later ones find nothing to apply), on pools of any size. Needs PostgreSQL (TEST_DATABASE_URL).
 */
import { randomBytes } from 'node:crypto';
import { createDatabase, type Db } from '../../src/db/database';
import { migrateToLatest, migrationNames } from '../../src/db/migrate';

const pgUrl = process.env.TEST_DATABASE_URL;
const describeWithPostgres = pgUrl ? describe : describe.skip;

describeWithPostgres('migrations started at once by several instances (LB-3)', () => {
  const schema = `migrate_${randomBytes(5).toString('hex')}`;
  const opened: Db[] = [];
  const open = (poolMax: number) => {
    const db = createDatabase({ databaseUrl: pgUrl!, schema, poolMax });
    opened.push(db);
    return db;
  };

  beforeAll(async () => {
    await open(1).raw(`CREATE SCHEMA "${schema}"`);
  });
  afterAll(async () => {
    await opened[0].raw(`DROP SCHEMA "${schema}" CASCADE`);
    await Promise.all(opened.map((db) => db.destroy()));
  });

  it('LB-3: four instances migrating one empty schema at once all succeed, the migrations applied exactly once between them', async () => {
    const instances = [open(1), open(2), open(10), open(10)];
    const applied = await Promise.all(instances.map((db) => migrateToLatest(db)));
    expect(applied.flat().sort()).toEqual([...migrationNames].sort());
    const { rows } = await instances[0].raw('select name from knex_migrations order by name');
    expect(rows.map((row: { name: string }) => row.name)).toEqual([...migrationNames]);
    const { rows: ids } = await instances[0].raw("select count(*)::int as n from server_settings where key = 'instance'");
    expect(ids[0].n).toBe(1);
  });
});
