import type { Knex } from 'knex';

/**
 * WDATA-6: the widget-data cache, shared by every viewer and instance. One row per upstream (an integration, or a
 * source the options name) and query: the last answer (data or a readable error) until `expires_at`, and the claim of
 * the one instance fetching it now (`claim_token` until `claimed_until`), so that the database, not a process, decides
 * who asks the service. Rows of an integration go with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('widget_data_cache', (t) => {
    t.text('cache_key').primary();
    t.text('integration_id').nullable().references('id').inTable('integrations').onDelete('CASCADE');
    t.text('status').nullable();
    t.text('message').nullable();
    t.jsonb('data').nullable();
    t.timestamp('fetched_at', { useTz: true }).nullable();
    t.timestamp('expires_at', { useTz: true }).nullable();
    t.text('claim_token').nullable();
    t.timestamp('claimed_until', { useTz: true }).nullable();
    t.index(['integration_id']);
  });
  await knex.raw(`ALTER TABLE widget_data_cache ADD CONSTRAINT widget_data_cache_status_check CHECK (status IS NULL OR status IN ('ok', 'error'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('widget_data_cache');
}
