import type { Knex } from 'knex';

/**
 * History keeps its snapshots and reverse deltas as `json` (the text, checked) instead of `jsonb`: they are only ever
 * written whole and read whole, never queried inside, and converting a board-sized document to jsonb made the write
 * that takes a snapshot several times slower (1 MB: about 70 ms as jsonb, 10 ms as json, on PostgreSQL 15). The
 * rows come back as the same JSON values.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE board_history ALTER COLUMN snapshot TYPE json USING snapshot::json, ALTER COLUMN reverse_delta TYPE json USING reverse_delta::json');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE board_history ALTER COLUMN snapshot TYPE jsonb USING snapshot::jsonb, ALTER COLUMN reverse_delta TYPE jsonb USING reverse_delta::jsonb');
}
