import type { Knex } from 'knex';

/**
 * The open event streams of every instance (EVENT-5): one lease per stream, held by the process serving it and
 * renewed on its heartbeat, so that the per-caller limit counts the streams a caller holds on all instances. A
 * process that stops without ending its streams leaves leases that expire on their own.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('event_stream_leases', (table) => {
    table.text('id').primary();
    table.text('caller_key').notNullable();
    table.text('holder').notNullable();
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.index(['caller_key']);
    table.index(['holder']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('event_stream_leases');
}
