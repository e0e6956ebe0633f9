import type { Knex } from 'knex';

/**
 * Operations (issue 32): the audit log (AUDIT-1) and the shared token buckets of the per-caller rate limits (RATE-2).
 *
 * - `audit_log` is append-only: a trigger refuses every UPDATE; rows leave only by retention (AUDIT-5), a DELETE of
 *   rows older than `AUDIT_RETENTION_DAYS`.
 * - `rate_limit_buckets` is UNLOGGED: a bucket is written on every limited request, and an unlogged table costs no WAL
 *   (nor its flush at commit); after a crash PostgreSQL empties it, which only gives every caller a full bucket.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_log', (t) => {
    t.bigIncrements('id').primary();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.text('action').notNullable();
    t.text('outcome').notNullable();
    t.text('actor_user_id');
    t.text('actor_api_key_id');
    t.text('actor_name');
    t.text('client_address');
    t.text('request_id');
    t.text('surface').notNullable();
    t.text('target_type');
    t.text('target_id');
    t.jsonb('details').notNullable().defaultTo('{}');
  });
  await knex.raw('CREATE INDEX audit_log_at ON audit_log (at, id)');
  await knex.raw('CREATE INDEX audit_log_action ON audit_log (action, id)');
  await knex.raw('CREATE INDEX audit_log_actor ON audit_log (actor_user_id, id)');
  await knex.raw('CREATE INDEX audit_log_target ON audit_log (target_id, id)');
  await knex.raw(`
    CREATE FUNCTION tessera_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit_log is append-only';
    END
    $$`);
  await knex.raw('CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION tessera_audit_append_only()');
  await knex.raw(`CREATE UNLOGGED TABLE rate_limit_buckets (
    key text PRIMARY KEY,
    tokens double precision NOT NULL,
    updated_at timestamptz NOT NULL
  )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS rate_limit_buckets');
  await knex.raw('DROP TRIGGER IF EXISTS audit_log_append_only ON audit_log');
  await knex.raw('DROP FUNCTION IF EXISTS tessera_audit_append_only()');
  await knex.schema.dropTableIfExists('audit_log');
}
