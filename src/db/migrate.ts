import type { Knex } from 'knex';
import { ensureInstanceId } from './instance';
import * as initial from './migrations/0001_initial';
import * as apps from './migrations/0002_apps';
import * as boardRevisionTrigger from './migrations/0003_board_revision_trigger';
import * as appPlacements from './migrations/0004_app_placements';
import * as boardHistory from './migrations/0005_board_history';
import * as instanceId from './migrations/0006_instance_id';
import * as boardChangeNotify from './migrations/0007_board_change_notify';
import * as historyJson from './migrations/0008_history_json';
import * as fleet from './migrations/0009_fleet';

/** Migrations are listed here (no filesystem globbing), so tsx, Jest and compiled code behave the same. */
const migrations: Record<string, { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> }> = {
  '0001_initial': initial,
  '0002_apps': apps,
  '0003_board_revision_trigger': boardRevisionTrigger,
  '0004_app_placements': appPlacements,
  '0005_board_history': boardHistory,
  '0006_instance_id': instanceId,
  '0007_board_change_notify': boardChangeNotify,
  '0008_history_json': historyJson,
  '0009_fleet': fleet,
};

/** Every migration of this build, in order. */
export const migrationNames: readonly string[] = Object.keys(migrations).sort();

const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => [...migrationNames],
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};

/**
 * Applies the migrations the database lacks (returns their names), then gives it the rows every database has of its
 * own: its instance id (FILE-6), minted here when missing, as a database made from the template has none.
 */
export async function migrateToLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  await ensureInstanceId(db);
  return applied;
}
