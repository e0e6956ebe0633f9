import type { Knex } from 'knex';

/**
 * The change feed's signal (EVENT-2): every history entry and every board deletion sends a notification on the
 * channel `tessera_board_changes` with the schema and the board id (ids only: events are read from history). A
 * notification sent in a transaction is delivered when it commits, and never when it rolls back.
 */
export async function up(knex: Knex): Promise<void> {
  for (const [name, boardId] of [
    ['tessera_notify_history_entry', 'NEW.board_id'],
    ['tessera_notify_board_deleted', 'OLD.id'],
  ]) {
    await knex.raw(`
      CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('tessera_board_changes', current_schema() || ':' || ${boardId});
        RETURN NULL;
      END
      $$`);
  }
  await knex.raw('CREATE TRIGGER board_history_notify AFTER INSERT ON board_history FOR EACH ROW EXECUTE FUNCTION tessera_notify_history_entry()');
  await knex.raw('CREATE TRIGGER boards_delete_notify AFTER DELETE ON boards FOR EACH ROW EXECUTE FUNCTION tessera_notify_board_deleted()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS boards_delete_notify ON boards');
  await knex.raw('DROP TRIGGER IF EXISTS board_history_notify ON board_history');
  await knex.raw('DROP FUNCTION IF EXISTS tessera_notify_board_deleted()');
  await knex.raw('DROP FUNCTION IF EXISTS tessera_notify_history_entry()');
}
