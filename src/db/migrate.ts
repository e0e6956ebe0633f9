import type { Knex } from 'knex';
import { isEmbedded } from './isEmbedded';
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
import * as ops from './migrations/0010_ops';
import * as appReachability from './migrations/0011_app_reachability';
import * as eventStreamLeases from './migrations/0012_event_stream_leases';
import * as provisionedFileNames from './migrations/0013_provisioned_file_names';
import * as labelOwners from './migrations/0015_label_owners';
import * as widgetDataCache from './migrations/0016_widget_data_cache';
import * as customApis from './migrations/0018_custom_apis';
import * as boardColorSchemeSearch from './migrations/0019_board_color_scheme_search';
import * as idempotencyKeys from './migrations/0020_idempotency_keys';
import * as mcpProposals from './migrations/0021_mcp_proposals';
import * as webhooks from './migrations/0022_webhooks';
import * as oidcIdentities from './migrations/0023_oidc_identities';
import * as keyBoardsMcpSessions from './migrations/0024_key_boards_mcp_sessions';

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
  '0010_ops': ops,
  '0011_app_reachability': appReachability,
  '0012_event_stream_leases': eventStreamLeases,
  '0013_provisioned_file_names': provisionedFileNames,
  '0015_label_owners': labelOwners,
  '0016_widget_data_cache': widgetDataCache,
  '0018_custom_apis': customApis,
  '0019_board_color_scheme_search': boardColorSchemeSearch,
  '0020_idempotency_keys': idempotencyKeys,
  '0021_mcp_proposals': mcpProposals,
  '0022_webhooks': webhooks,
  '0023_oidc_identities': oidcIdentities,
  '0024_key_boards_mcp_sessions': keyBoardsMcpSessions,
};

/** Every migration of this build, in order. */
export const migrationNames: readonly string[] = Object.keys(migrations).sort();

const sourceOf = (names: readonly string[]): Knex.MigrationSource<string> => ({
  getMigrations: async () => [...names],
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
});

const migrationSource = sourceOf(migrationNames);

/**
 * Applies this build's migrations up to and including `names` (which must be the first of this build's, in order), as
 * an older version would have: a restore of an older backup into an empty database (BACKUP-3). Not the instance id.
 */
export async function migrateUpTo(db: Knex, names: readonly string[]): Promise<string[]> {
  if (!names.every((name, i) => migrationNames[i] === name)) throw new Error(`Not the first migrations of this build: ${names.join(', ')}`);
  const [, applied] = (await db.migrate.latest({ migrationSource: sourceOf(names) })) as [number, string[]];
  return applied;
}

/**
 * Applies the migrations the database lacks (returns their names), then gives it the rows every database has of its
 * own: its instance id (FILE-6), minted here when missing, as a database made from the template has none.
 */
export async function migrateToLatest(db: Knex): Promise<string[]> {
  const applied = await latestWhenUnlocked(db);
  await ensureInstanceId(db);
  return applied;
}

/** knex's table of applied migrations (its default name). */
const migrationTable = 'knex_migrations';

/** How long a start waits for another instance's migrations (LB-3). */
const migrationLockWaitMs = 120_000;

/** The advisory-lock class under which instances migrating one schema of a PostgreSQL database take turns (LB-3). */
const migrationLockClass = 73_052_011;

type RawConnection = { query(sql: string): Promise<{ rows: { locked: boolean }[] }> };

/**
 * LB-3: instances started at once on one database (a compose file, a rolling deploy) each try the migrations. knex's
 * own lock row comes too late: two instances on an empty database both find no knex_migrations table and both create
 * it, and one fails on the duplicate. On PostgreSQL they take turns under a session advisory lock on a connection of
 * its own, outside the pool (a one-connection pool still migrates), keyed by schema (tests migrate many schemas of one
 * database at once). It is tried, not waited on, so no statement timeout cuts the wait; the later instance then finds
 * nothing left to apply. knex's "Migration table is already locked" is still waited out (an older build's instance).
 */
async function latestWhenUnlocked(db: Knex): Promise<string[]> {
  if (await hasExactlyThisBuildsMigrations(db)) return [];
  const deadline = Date.now() + migrationLockWaitMs;
  const pause = () => new Promise((resolve) => setTimeout(resolve, 200));
  if (isEmbedded(db)) return latest(db);
  const client = db.client as { acquireRawConnection(): Promise<RawConnection>; destroyRawConnection(c: RawConnection): Promise<void> };
  const connection = await client.acquireRawConnection();
  try {
    for (;;) {
      const { rows } = await connection.query(`select pg_try_advisory_lock(${migrationLockClass}, hashtext(current_schema())) as locked`);
      if (rows[0].locked) break;
      if (Date.now() > deadline) throw new Error('Another instance has been migrating this database for too long');
      await pause();
    }
    for (;;) {
      try {
        return await latest(db);
      } catch (error) {
        if ((error as Error)?.name !== 'MigrationLocked' || Date.now() > deadline) throw error;
        await pause();
      }
    }
  } finally {
    // Closing the session releases its advisory lock.
    await client.destroyRawConnection(connection).catch(() => undefined);
  }
}

/**
 * Whether the database records as applied exactly this build's migrations: then a start has nothing to apply, and two
 * queries say so where knex's migrator takes about a dozen (its table checks read information_schema, whose plans
 * are costly on a fresh embedded database) and a lock. Anything else (an empty database, migrations to apply, or
 * applied ones this build does not know, which knex refuses) goes to the migrator as before.
 */
async function hasExactlyThisBuildsMigrations(db: Knex): Promise<boolean> {
  // In the current schema, where knex looks for it (its own check reads information_schema.tables). A name lookup,
  // not a query of the pg_tables view: planning that view was about 20 ms of a start on the embedded database. No
  // current schema (none on the search path exists) gives null, hence no table.
  const { rows } = await db.raw<{ rows: { present: boolean }[] }>(
    `select to_regclass(quote_ident(current_schema()) || '.${migrationTable}') is not null as present`,
  );
  if (!rows[0].present) return false;
  const applied: { name: string }[] = await db(migrationTable).select('name');
  return applied.length === migrationNames.length && applied.every(({ name }) => migrationNames.includes(name));
}

async function latest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}
