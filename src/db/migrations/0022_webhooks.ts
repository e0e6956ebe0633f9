import type { Knex } from 'knex';

/**
 * HOOK-*: outbound webhooks. `webhooks` holds the subscriptions (the signing secret encrypted as integration secrets
 * are, SECRET-3; the previous secret until its overlap ends, HOOK-6); `webhook_outbox` one row per event and
 * subscription, written in the transaction of the change it reports (HOOK-10) and claimed by the delivery workers
 * (HOOK-12); `webhook_deliveries` the log of every attempt (HOOK-16).
 *
 * HOOK-10: `tessera_webhook_enqueue(type, board_id, data)` is the one writer of outbox rows: it fans an event out to
 * the enabled subscriptions of its type (and of its board, when a subscription names boards). Board events are
 * enqueued by triggers on the writes themselves (a board inserted or deleted, a history entry, a provisioned board
 * turning drifted), so every path that writes a board reports it, and an event exists exactly when its write
 * committed; set applies and provisioning failures call the function from their own transactions.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.text('id').primary();
    t.text('url').notNullable();
    t.jsonb('events').notNullable();
    t.jsonb('board_ids').nullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.text('disabled_reason').nullable();
    t.text('secret').notNullable();
    t.text('previous_secret').nullable();
    t.timestamp('previous_secret_until', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('webhook_outbox', (t) => {
    t.bigIncrements('id').primary();
    t.text('webhook_id').notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.text('event_id').notNullable();
    t.text('event_type').notNullable();
    t.jsonb('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('state').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('claim_token').nullable();
  });
  await knex.raw(`CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at) WHERE state = 'pending'`);
  await knex.raw('CREATE INDEX webhook_outbox_webhook ON webhook_outbox (webhook_id, id)');
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id').primary();
    t.text('webhook_id').notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.text('event_id').notNullable();
    t.text('event_type').notNullable();
    t.integer('attempt').notNullable();
    t.text('status').notNullable();
    t.integer('response_status').nullable();
    t.text('error').nullable();
    t.integer('duration_ms').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('finished_at', { useTz: true }).notNullable();
  });
  await knex.raw('CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id)');
  await knex.raw('CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at)');

  await knex.raw(`
    CREATE FUNCTION tessera_webhook_enqueue(event_type text, board_id text, data jsonb) RETURNS void LANGUAGE sql AS $$
      INSERT INTO webhook_outbox (webhook_id, event_id, event_type, payload)
      SELECT w.id, e.id, event_type,
             jsonb_build_object('type', event_type, 'timestamp', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', data)
      FROM webhooks w, (SELECT 'msg_' || replace(gen_random_uuid()::text, '-', '') AS id) e
      WHERE w.enabled AND w.events @> to_jsonb(event_type) AND (board_id IS NULL OR w.board_ids IS NULL OR w.board_ids @> to_jsonb(board_id))
    $$`);
  const time = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const triggers: [name: string, body: string][] = [
    ['tessera_webhook_board_created', `PERFORM tessera_webhook_enqueue('board.created', NEW.id, jsonb_build_object('boardId', NEW.id, 'name', NEW.name));`],
    ['tessera_webhook_board_deleted', `PERFORM tessera_webhook_enqueue('board.deleted', OLD.id, jsonb_build_object('boardId', OLD.id, 'name', OLD.name));`],
    [
      'tessera_webhook_board_changed',
      `PERFORM tessera_webhook_enqueue('board.changed', NEW.board_id, jsonb_build_object(
         'boardId', NEW.board_id, 'name', (SELECT name FROM boards WHERE id = NEW.board_id), 'revision', NEW.revision,
         'version', NEW.version, 'operation', NEW.operation, 'at', ${time('NEW.at')}, 'summary', NEW.summary));`,
    ],
    [
      'tessera_webhook_board_drifted',
      `PERFORM tessera_webhook_enqueue('board.drifted', NEW.board_id, jsonb_build_object(
         'boardId', NEW.board_id, 'name', (SELECT name FROM boards WHERE id = NEW.board_id), 'managedBy', NEW.source, 'file', NEW.file));`,
    ],
  ];
  for (const [name, body] of triggers) {
    await knex.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} RETURN NULL; END $$`);
  }
  await knex.raw('CREATE TRIGGER boards_webhook_created AFTER INSERT ON boards FOR EACH ROW EXECUTE FUNCTION tessera_webhook_board_created()');
  await knex.raw('CREATE TRIGGER boards_webhook_deleted AFTER DELETE ON boards FOR EACH ROW EXECUTE FUNCTION tessera_webhook_board_deleted()');
  // HOOK-8: a history entry is a change, except the baseline of a board older than history and the creation entry.
  await knex.raw(`CREATE TRIGGER board_history_webhook AFTER INSERT ON board_history FOR EACH ROW
    WHEN (NEW.operation <> 'baseline' AND NEW.reverse_delta IS NOT NULL) EXECUTE FUNCTION tessera_webhook_board_changed()`);
  await knex.raw(`CREATE TRIGGER provisioned_boards_webhook_drifted AFTER UPDATE OF drifted ON provisioned_boards FOR EACH ROW
    WHEN (NEW.drifted AND NOT OLD.drifted) EXECUTE FUNCTION tessera_webhook_board_drifted()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS provisioned_boards_webhook_drifted ON provisioned_boards');
  await knex.raw('DROP TRIGGER IF EXISTS board_history_webhook ON board_history');
  await knex.raw('DROP TRIGGER IF EXISTS boards_webhook_deleted ON boards');
  await knex.raw('DROP TRIGGER IF EXISTS boards_webhook_created ON boards');
  for (const name of ['tessera_webhook_board_drifted', 'tessera_webhook_board_changed', 'tessera_webhook_board_deleted', 'tessera_webhook_board_created']) {
    await knex.raw(`DROP FUNCTION IF EXISTS ${name}()`);
  }
  await knex.raw('DROP FUNCTION IF EXISTS tessera_webhook_enqueue(text, text, jsonb)');
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhook_outbox');
  await knex.schema.dropTableIfExists('webhooks');
}
