import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { createDatabase, type Db } from '../../src/db/database';
import { migrateToLatest, migrateUpTo, migrationNames } from '../../src/db/migrate';

/**
 * FLEET-13: migration 0015 gives the labels in use the owner their records show. It needs a database migrated only up
 * to 0013 (PostgreSQL: a fresh schema; an in-memory PGlite starts from the migrated template).
 */
const pgUrl = process.env.TEST_DATABASE_URL;
const pgDescribe = pgUrl ? describe : describe.skip;

pgDescribe('FLEET-13: migration 0015_label_owners on existing data', () => {
  let db: Db;
  const schema = `test_${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE SCHEMA "${schema}"`);
    await admin.destroy();
    db = createDatabase({ databaseUrl: pgUrl!, schema, poolMax: 2 });
  });
  afterAll(async () => {
    await db?.destroy();
    const cleanup = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await cleanup.raw(`DROP SCHEMA "${schema}" CASCADE`);
    await cleanup.destroy();
  });

  it('FLEET-13: provisioning keeps its labels, the first set applier in the audit log or else in history owns the others, a label no record names stays unowned', async () => {
    await migrateUpTo(db, migrationNames.slice(0, migrationNames.indexOf('0015_label_owners')));
    await db('users').insert([{ id: 'u-first', username: 'first' }, { id: 'u-second', username: 'second' }, { id: 'u-hist', username: 'hist' }]);
    await db('boards').insert([
      { id: 'b1', name: 'by-audit', managedBy: 'github.com/a/audited', creatorId: 'u-second', version: 1, revision: 1 },
      { id: 'b2', name: 'by-history', managedBy: 'github.com/a/history', creatorId: 'u-second', version: 1, revision: 1 },
      { id: 'b3', name: 'by-import', managedBy: 'imported-only', creatorId: 'u-second', version: 1, revision: 1 },
      { id: 'b4', name: 'provisioned', managedBy: 'provisioning:boards', creatorId: 'u-second', version: 1, revision: 1 },
    ]);
    const apply = (actor: string, label: string, at: string) => ({ action: 'board.set.apply', outcome: 'success', actorUserId: actor, surface: 'rest', targetType: 'boardSet', targetId: label, details: '{}', at });
    await db('auditLog').insert([
      apply('u-second', 'github.com/a/audited', '2026-02-01T00:00:00Z'),
      apply('u-first', 'github.com/a/audited', '2026-01-01T00:00:00Z'),
      { ...apply('u-second', 'github.com/a/audited', '2025-12-01T00:00:00Z'), outcome: 'failure' },
      { action: 'provisioning.apply', outcome: 'success', actorUserId: 'u-second', surface: 'provisioning', targetType: 'boardSet', targetId: 'provisioning:boards', details: '{}' },
    ]);
    await db('boardHistory').insert({
      boardId: 'b2', revision: 1, version: 1, operation: 'applyBoardSet', actorUserId: 'u-hist', summary: '{}', snapshot: '{}', deltaBytes: 0, chainBytes: 0, chainLength: 0, snapshotBytes: 2,
      origin: JSON.stringify({ managedBy: 'github.com/a/history', commit: null, message: null }),
    });

    await migrateToLatest(db);
    const rows = await db('boardLabels').orderBy('label').select('label', 'ownerKind', 'ownerUserId');
    expect(rows).toEqual([
      { label: 'github.com/a/audited', ownerKind: 'user', ownerUserId: 'u-first' },
      { label: 'github.com/a/history', ownerKind: 'user', ownerUserId: 'u-hist' },
      { label: 'provisioning:boards', ownerKind: 'provisioning', ownerUserId: null },
    ]);
  });
});
