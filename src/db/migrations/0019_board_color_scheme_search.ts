import type { Knex } from 'knex';

/**
 * THEME-1, THEME-2: two board settings for the board page as a start page: its colour scheme (`light`, `dark`, or
 * `auto` = the viewer's system preference; existing boards get `auto`) and the web search its search box falls back to
 * (a URL template with `{query}`, null for none).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('boards', (t) => {
    t.text('color_scheme').notNullable().defaultTo('auto');
    t.text('web_search_url').nullable();
  });
  await knex.raw(`ALTER TABLE boards ADD CONSTRAINT boards_color_scheme_check CHECK (color_scheme IN ('light', 'dark', 'auto'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('boards', (t) => {
    t.dropColumn('web_search_url');
    t.dropColumn('color_scheme');
  });
}
