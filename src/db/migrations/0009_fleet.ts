import type { Knex } from 'knex';

/**
 * A fleet of boards as code (FLEET-*): `boards.managed_by` names the source a board is declared in (a repository, a
 * directory); only boards of one label are ever pruned by a set apply of that label (FLEET-6). `board_history.origin`
 * keeps the commit a set apply was made from (FLEET-8), so a revision maps to a commit.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('boards', (t) => {
    t.text('managed_by').nullable();
    t.index(['managed_by'], 'boards_managed_by_index');
  });
  await knex.schema.alterTable('board_history', (t) => {
    t.json('origin').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('board_history', (t) => {
    t.dropColumn('origin');
  });
  await knex.schema.alterTable('boards', (t) => {
    t.dropIndex(['managed_by'], 'boards_managed_by_index');
    t.dropColumn('managed_by');
  });
}
