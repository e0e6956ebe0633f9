/**
 * EVENT-2's signal on PostgreSQL when the schema comes from the connection string (`options=-c search_path=…`) rather
 * than from knex's config: the listener must take the schema the triggers name (`current_schema()`), or it drops
 * every notification. Needs PostgreSQL (TEST_DATABASE_URL).
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { createDatabase, type Db } from '../../src/db/database';
import { listenForBoardChanges } from '../../src/boards/events/listener';
import { eventually } from '../support/eventually';

const pgUrl = process.env.TEST_DATABASE_URL;
const describeWithPostgres = pgUrl ? describe : describe.skip;

describeWithPostgres('the change listener (EVENT-2) with the schema set in DATABASE_URL', () => {
  const schema = `listen_${randomBytes(5).toString('hex')}`;
  let admin: Db;
  let db: Db;

  beforeAll(async () => {
    admin = createDatabase({ databaseUrl: pgUrl!, poolMax: 1 });
    await admin.raw(`CREATE SCHEMA "${schema}"`);
    const url = new URL(pgUrl!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    db = createDatabase({ databaseUrl: url.toString(), poolMax: 2 });
  });
  afterAll(async () => {
    await db?.destroy();
    await admin.raw(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.destroy();
  });

  it('EVENT-2: a notification sent as the triggers send it (current_schema() and the board id) reaches the listener', async () => {
    const signals = await listenForBoardChanges(db, pino({ level: 'silent' }));
    const seen: (string | null)[] = [];
    signals.onChange((boardId) => seen.push(boardId));
    try {
      await eventually(async () => {
        await db.raw(`select pg_notify('tessera_board_changes', current_schema() || ':' || 'board-1')`);
        expect(seen).toContain('board-1');
      });
    } finally {
      await signals.close();
    }
  });
});
