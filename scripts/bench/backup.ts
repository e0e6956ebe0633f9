/**
 * What a whole-instance backup and restore cost (BACKUP-1, BACKUP-6): an embedded instance filled over HTTP (boards of
 * `--items` clock items on 3 layouts, each then edited `--edits` times, so history holds snapshots and deltas), backed
 * up, then restored into PostgreSQL when DATABASE_URL is set (a fresh schema, dropped after), else into another
 * embedded database. Nothing is asserted.
 *
 *   DATABASE_URL=postgres://... npx tsx scripts/bench/backup.ts [--boards 5] [--items 2000] [--edits 20]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import knexFactory from 'knex';
import pino from 'pino';
import { decodeBackup } from '../../src/backup/format';
import { createBackup, restoreBackup } from '../../src/backup/store';
import { loadConfig } from '../../src/config/config';
import { createDatabase, type Db } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { startServer } from '../../src/server';
import { apiClient, seedBoard } from './seed';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { boards: { type: 'string', default: '5' }, items: { type: 'string', default: '2000' }, edits: { type: 'string', default: '20' } } });
  const [boards, items, edits] = [Number(values.boards), Number(values.items), Number(values.edits)];
  const key = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const sourceDb = createDatabase({ databaseUrl: null, pgliteDir: null });
  const server = await startServer({ ...loadConfig({ LOG_LEVEL: 'silent' }), port: 0, host: '127.0.0.1', bootstrapAdminApiKey: key }, { db: sourceDb, logger: pino({ level: 'silent' }) });
  const api = apiClient(server.url, key);
  for (let b = 0; b < boards; b++) {
    const board = await seedBoard(api, `bench-${b}`, items);
    for (let e = 0; e < edits; e++) {
      await api('PATCH', `/api/boards/${board.id}/items/${board.items[e % board.items.length].id}`, { options: { showSeconds: e % 2 === 1 } });
    }
  }
  let started = performance.now();
  const file = await createBackup(sourceDb, 'pglite');
  const backupMs = performance.now() - started;
  await server.stop();
  started = performance.now();
  const contents = decodeBackup(file);
  const checkMs = performance.now() - started;

  const url = process.env.DATABASE_URL;
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  let target: Db;
  if (url) {
    const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE SCHEMA "${schema}"`);
    await admin.destroy();
    target = createDatabase({ databaseUrl: url, schema });
  } else target = createDatabase({ databaseUrl: null, pgliteDir: null });
  await migrateToLatest(target);
  started = performance.now();
  await restoreBackup(target, contents);
  const restoreMs = performance.now() - started;
  await target.destroy();
  if (url) {
    const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
    await admin.raw(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.destroy();
  }
  const rows = Object.values(contents.header.tables).reduce((a, b) => a + b, 0);
  console.log(
    JSON.stringify(
      {
        boards,
        items,
        edits,
        rows,
        historyRows: contents.header.tables.board_history,
        fileBytes: file.length,
        backupMs: Math.round(backupMs),
        checkMs: Math.round(checkMs),
        restoreInto: url ? 'postgresql' : 'pglite',
        restoreMs: Math.round(restoreMs),
      },
      null,
      2,
    ),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
