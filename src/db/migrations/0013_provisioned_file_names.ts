import type { Knex } from 'knex';

/**
 * PROV-5: the refusal of a write to a provisioned board names the file by its name inside its provisioning directory
 * and the source's label (`provisioned_boards.file` holds that name from now on; provisioning rewrites the rows at its
 * next apply, which runs at every start), never the server's absolute path: any writer of the board reads it, while
 * the directories are the admin's (GET /api/provisioning). The label travels as the error's HINT.
 */
const refuse = (select: string, raise: string) => `
  CREATE OR REPLACE FUNCTION boards_refuse_provisioned() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    locked_file text;
    locked_source text;
    updatable boolean;
  BEGIN
    IF coalesce(current_setting('tessera.provisioning', true), '') = 'on' THEN
      RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    IF TG_OP = 'UPDATE' AND ((NEW.creator_id IS NULL AND OLD.creator_id IS NOT NULL) OR coalesce(current_setting('tessera.grant_write', true), '') = 'on') THEN
      RETURN NEW;
    END IF;
    ${select}
    IF locked_file IS NOT NULL AND NOT updatable THEN
      ${raise}
    END IF;
    IF locked_file IS NOT NULL AND TG_OP = 'UPDATE' THEN
      UPDATE provisioned_boards SET drifted = true WHERE board_id = OLD.id AND NOT drifted;
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  END
  $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    refuse(
      'SELECT file, source, allow_api_updates INTO locked_file, locked_source, updatable FROM provisioned_boards WHERE board_id = OLD.id;',
      "RAISE EXCEPTION 'Board is provisioned from %', locked_file USING ERRCODE = 'TSPRV', DETAIL = locked_file, HINT = locked_source;",
    ),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    refuse(
      'SELECT file, allow_api_updates INTO locked_file, updatable FROM provisioned_boards WHERE board_id = OLD.id;',
      "RAISE EXCEPTION 'Board is provisioned from %', locked_file USING ERRCODE = 'TSPRV', DETAIL = locked_file;",
    ),
  );
}
