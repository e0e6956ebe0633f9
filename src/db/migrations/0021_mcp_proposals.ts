import type { Knex } from 'knex';

/**
 * AGENT-4: proposals made by MCP tools in `propose` mode, stored so that any instance can apply or reject them. One row
 * per proposal until it is applied, rejected or expires (`expires_at`, set from the database's clock). Rows of a user or
 * key go with them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mcp_proposals', (t) => {
    t.text('id').primary();
    t.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('api_key_id').nullable().references('id').inTable('api_keys').onDelete('CASCADE');
    t.text('client_name').nullable();
    t.text('tool').notNullable();
    t.text('operation_id').notNullable();
    t.jsonb('input').notNullable();
    t.jsonb('plan').nullable();
    t.text('summary').notNullable();
    t.jsonb('boards').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['user_id']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mcp_proposals');
}
