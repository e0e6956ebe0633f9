import type { Knex } from 'knex';

/**
 * CAPI-1: custom API definitions, managed by holders of integration-full-all. A definition that reads an integration
 * (its URL a path on the integration's) goes with the integration. No secret is stored here: header values name the
 * integration's secrets (`{{apiKey}}`), filled in at request time.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('custom_apis', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('integration_id').nullable().references('id').inTable('integrations').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('method').notNullable();
    t.text('body').nullable();
    t.jsonb('headers').notNullable();
    t.jsonb('fields').notNullable();
    t.jsonb('list').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['integration_id']);
  });
  await knex.raw(`ALTER TABLE custom_apis ADD CONSTRAINT custom_apis_method_check CHECK (method IN ('GET', 'POST'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('custom_apis');
}
