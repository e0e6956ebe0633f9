import type { Knex } from 'knex';

/**
 * Apps and integrations:
 * - the app dedupe key (exact name, exact href, null href equal to null href) as a unique index, so that two
 *   concurrent identical POST /api/apps are decided by the database: one inserts, the other references;
 * - lookup indexes for the app widget references read by anonymous GET /api/apps/{id}.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE UNIQUE INDEX apps_name_href_unique ON apps (name, (href IS NULL), coalesce(href, ''))`);
  await knex.raw(`CREATE INDEX apps_name_lower ON apps (lower(name))`);
  await knex.raw(`CREATE INDEX items_kind ON items (kind)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS items_kind');
  await knex.raw('DROP INDEX IF EXISTS apps_name_lower');
  await knex.raw('DROP INDEX IF EXISTS apps_name_href_unique');
}
