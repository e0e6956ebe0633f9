import type { Knex } from 'knex';

/**
 * KEY-7..KEY-11: what an API key may reach beyond its scopes: `board_ids` (null = every board its owner may reach; a
 * JSON array of board ids = only those), `mcp_mode` (null = the server's MCP_MODE; else a mode that narrows it) and
 * `agent_approve` (the key may apply its own proposals without a person, AGENT-17).
 *
 * AGENT-14..AGENT-16: MCP sessions kept in the database, so that any instance knows what a client declared on
 * `initialize` (its name and capabilities) and can carry an elicitation's answer (posted to any instance) to the
 * instance that waits for it (`answers`: elicitation id -> the client's JSON-RPC result).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.jsonb('board_ids').nullable();
    t.text('mcp_mode').nullable();
    t.boolean('agent_approve').notNullable().defaultTo(false);
  });
  await knex.schema.createTable('mcp_sessions', (t) => {
    t.text('id').primary();
    t.text('api_key_id').notNullable().references('id').inTable('api_keys').onDelete('CASCADE');
    t.text('client_name').nullable();
    t.jsonb('capabilities').notNullable();
    t.jsonb('answers').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mcp_sessions');
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('board_ids');
    t.dropColumn('mcp_mode');
    t.dropColumn('agent_approve');
  });
}
