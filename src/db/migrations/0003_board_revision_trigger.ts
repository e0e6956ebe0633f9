import type { Knex } from 'knex';

/**
 * Any UPDATE of a board row that does not move `revision` itself moves it by one: board columns changed by any
 * writer (including foreign-key actions such as the creator being set to NULL when the user is deleted)
 * invalidate cached documents and ETags. The application's writers bump it explicitly, so they are not counted
 * twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION boards_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.revision IS NOT DISTINCT FROM OLD.revision THEN
        NEW.revision := OLD.revision + 1;
      END IF;
      RETURN NEW;
    END
    $$`);
  await knex.raw('CREATE TRIGGER boards_bump_revision BEFORE UPDATE ON boards FOR EACH ROW EXECUTE FUNCTION boards_bump_revision()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS boards_bump_revision ON boards');
  await knex.raw('DROP FUNCTION IF EXISTS boards_bump_revision()');
}
