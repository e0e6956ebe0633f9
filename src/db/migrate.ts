import type { Knex } from 'knex';
import * as initial from './migrations/0001_initial';
import * as apps from './migrations/0002_apps';
import * as boardRevisionTrigger from './migrations/0003_board_revision_trigger';
import * as appPlacements from './migrations/0004_app_placements';
import * as boardHistory from './migrations/0005_board_history';
import * as instanceId from './migrations/0006_instance_id';
import * as boardChangeNotify from './migrations/0007_board_change_notify';

/** Migrations are listed here (no filesystem globbing), so tsx, Jest and compiled code behave the same. */
const migrations: Record<string, { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> }> = {
  '0001_initial': initial,
  '0002_apps': apps,
  '0003_board_revision_trigger': boardRevisionTrigger,
  '0004_app_placements': appPlacements,
  '0005_board_history': boardHistory,
  '0006_instance_id': instanceId,
  '0007_board_change_notify': boardChangeNotify,
};

const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};

export async function migrateToLatest(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource });
}
