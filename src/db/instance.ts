import type { Knex } from 'knex';
import { newId } from './ids';
import { ServerSetting } from './models';

/** The id of this instance's database (migration 0006), the same on every server process sharing it. */
export async function readInstanceId(q: Knex): Promise<string> {
  const row = await ServerSetting.query(q).findById('instance').select('value').castTo<{ value: { id: string } } | undefined>();
  if (!row) throw new Error(`${ServerSetting.tableName} has no instance id: migrations did not run`);
  return row.value.id;
}

/**
 * Mints the instance id of a database that has none (one made from the template); two starts at once keep one. Read
 * first: a database has its id on every start but its first, and the read is cheaper than the insert that conflicts.
 */
export async function ensureInstanceId(q: Knex): Promise<void> {
  if (await ServerSetting.query(q).findById('instance').select('key')) return;
  await ServerSetting.query(q).insert({ key: 'instance', value: JSON.stringify({ id: newId() }) }).onConflict('key').ignore();
}
