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
  // PROV-4: the boards provisioning wrote, the file each comes from, and whether other writers may change them.
  await knex.schema.createTable('provisioned_boards', (t) => {
    t.text('board_id').primary().references('id').inTable('boards').onDelete('CASCADE');
    t.text('source').notNullable();
    t.text('file').notNullable();
    t.boolean('allow_api_updates').notNullable().defaultTo(false);
    // DRIFT-2: written by another writer since provisioning last applied its file.
    t.boolean('drifted').notNullable().defaultTo(false);
  });
  // PROV-3: the status of each provisioning source (last apply, last error), shared by every instance.
  await knex.schema.createTable('provisioning_sources', (t) => {
    t.text('source').primary();
    t.json('status').notNullable();
  });
  // PROV-5: any update or delete of a board provisioned with allowApiUpdates false fails (SQLSTATE TSPRV, mapped to
  // a 409 naming the file), whatever surface it comes from, unless the transaction is provisioning's own
  // (tessera.provisioning = on); with allowApiUpdates true such a write marks the board drifted (DRIFT-2). A user's deletion setting creator_id to NULL, and a change of the board's grants (tessera.grant_write = on), are let through.
  await knex.raw(`
    CREATE FUNCTION boards_refuse_provisioned() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      locked_file text;
      updatable boolean;
    BEGIN
      IF coalesce(current_setting('tessera.provisioning', true), '') = 'on' THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
      END IF;
      IF TG_OP = 'UPDATE' AND ((NEW.creator_id IS NULL AND OLD.creator_id IS NOT NULL) OR coalesce(current_setting('tessera.grant_write', true), '') = 'on') THEN
        RETURN NEW;
      END IF;
      SELECT file, allow_api_updates INTO locked_file, updatable FROM provisioned_boards WHERE board_id = OLD.id;
      IF locked_file IS NOT NULL AND NOT updatable THEN
        RAISE EXCEPTION 'Board is provisioned from %', locked_file USING ERRCODE = 'TSPRV', DETAIL = locked_file;
      END IF;
      IF locked_file IS NOT NULL AND TG_OP = 'UPDATE' THEN
        UPDATE provisioned_boards SET drifted = true WHERE board_id = OLD.id AND NOT drifted;
      END IF;
      RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END
    $$`);
  await knex.raw('CREATE TRIGGER boards_refuse_provisioned BEFORE UPDATE OR DELETE ON boards FOR EACH ROW EXECUTE FUNCTION boards_refuse_provisioned()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS boards_refuse_provisioned ON boards');
  await knex.raw('DROP FUNCTION IF EXISTS boards_refuse_provisioned()');
  await knex.schema.dropTableIfExists('provisioning_sources');
  await knex.schema.dropTableIfExists('provisioned_boards');
  await knex.schema.alterTable('board_history', (t) => {
    t.dropColumn('origin');
  });
  await knex.schema.alterTable('boards', (t) => {
    t.dropIndex(['managed_by'], 'boards_managed_by_index');
    t.dropColumn('managed_by');
  });
}
