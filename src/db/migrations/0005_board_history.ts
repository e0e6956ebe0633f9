import type { Knex } from 'knex';

/**
 * Board history (HIST-1..7): one row per committed change of a board's content or fields, numbered per board from 1.
 * Each row keeps the delta that turns the board after it into the board before it (`reverse_delta`); some rows
 * also keep the whole board after them (`snapshot`), so that reading an old revision applies a bounded number of
 * deltas. Boards that existed before this table get a baseline row on their first change.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('board_history', (t) => {
    t.text('board_id').notNullable().references('id').inTable('boards').onDelete('CASCADE');
    t.integer('revision').notNullable();
    t.integer('version').notNullable();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('operation').notNullable();
    t.text('actor_user_id').nullable();
    t.text('actor_name').nullable();
    t.text('api_key_id').nullable();
    t.jsonb('summary').notNullable();
    t.jsonb('reverse_delta').nullable();
    t.jsonb('snapshot').nullable();
    t.integer('delta_bytes').notNullable();
    /** Bytes and number of reverse deltas since the newest snapshot up to this row (0 on a snapshot row). */
    t.integer('chain_bytes').notNullable();
    t.integer('chain_length').notNullable();
    /** Bytes of the newest snapshot up to this row. */
    t.integer('snapshot_bytes').notNullable();
    t.primary(['board_id', 'revision']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('board_history');
}
