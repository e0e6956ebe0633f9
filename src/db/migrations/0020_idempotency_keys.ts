import type { Knex } from 'knex';

/**
 * IDEM-1..6: the Idempotency-Key store, shared by every instance. One row per user and key: the fingerprint of the
 * first request's payload, the claim of the request running now (`claim_token` until `claimed_until`), then its
 * answer (status, headers, body) until `expires_at`. The primary key makes the database decide which of two
 * concurrent requests with one key runs; rows of a deleted user go with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('key').notNullable();
    t.text('fingerprint').notNullable();
    t.text('claim_token').nullable();
    t.timestamp('claimed_until', { useTz: true }).nullable();
    t.integer('status').nullable();
    t.jsonb('headers').nullable();
    t.text('body').nullable();
    t.text('content_type').nullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['user_id', 'key']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('idempotency_keys');
}
