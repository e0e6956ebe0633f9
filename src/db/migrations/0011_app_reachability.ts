import type { Knex } from 'knex';

/**
 * The last reachability check of each app (PING-2): the URL checked, its outcome and time, and the time an instance
 * claimed the next check. Kept in the database, not in process memory, so that every instance on one database sees
 * the same result and at most one of them checks an app per interval. Nothing secret is stored: no response body,
 * no header, only up/down and the HTTP status.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('app_reachability', (t) => {
    t.text('app_id').primary().references('id').inTable('apps').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('state').notNullable().defaultTo('unknown');
    t.integer('http_status').nullable();
    t.timestamp('checked_at', { useTz: true }).nullable();
    t.timestamp('claimed_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('app_reachability');
}
