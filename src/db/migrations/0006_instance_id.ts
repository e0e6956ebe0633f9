import type { Knex } from 'knex';
import { newId } from '../ids';

/**
 * The instance's identity (FILE-6): one id per database, minted once, which board files name in their `source` so an
 * import can tell a file taken from this very board on this very instance from one taken elsewhere.
 */
export async function up(knex: Knex): Promise<void> {
  await knex('server_settings').insert({ key: 'instance', value: JSON.stringify({ id: newId() }) }).onConflict('key').ignore();
}

export async function down(knex: Knex): Promise<void> {
  await knex('server_settings').where({ key: 'instance' }).del();
}
