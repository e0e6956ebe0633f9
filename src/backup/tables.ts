/**
 * What a backup holds, table by table (BACKUP-2), and the checks of a restore against this build (BACKUP-3, BACKUP-5):
 * pure decisions, no I/O.
 *
 * Every table the migrations create is named here, as copied or as excluded with its reason. A backup enumerates the
 * tables its database really has and refuses one that is not named here, so a migration that adds a table cannot
 * leave it out of backups silently: its author decides here (and test/backup/backup.test.ts fails until then).
 */

export type TablePolicy = { copy: true } | { copy: false; reason: string };

export const tablePolicies: Record<string, TablePolicy> = {
  users: { copy: true },
  groups: { copy: true },
  group_members: { copy: true },
  group_permissions: { copy: true },
  // sha256 hashes of the keys' secrets (KEY rules): the keys authenticate on the restored instance.
  api_keys: { copy: true },
  sessions: { copy: false, reason: 'browser sessions are dropped: everyone signs in again' },
  login_failures: { copy: false, reason: 'login throttling counters are transient' },
  event_stream_leases: { copy: false, reason: 'open event streams belong to the running instances' },
  rate_limit_buckets: { copy: false, reason: 'rate-limit buckets refill on their own' },
  app_reachability: { copy: false, reason: 'app reachability results are checked again on the next view' },
  // Who did what, kept when the instance moves (AUDIT-1).
  audit_log: { copy: true },
  // Which boards a provisioning source wrote from which file (PROV-4): a moved instance keeps their API lock.
  provisioned_boards: { copy: true },
  provisioning_sources: { copy: false, reason: 'provisioning status is written again by the next apply at start' },
  boards: { copy: true },
  layouts: { copy: true },
  sections: { copy: true },
  section_layouts: { copy: true },
  section_collapse_states: { copy: true },
  items: { copy: true },
  item_layouts: { copy: true },
  board_history: { copy: true },
  apps: { copy: true },
  app_placements: { copy: true },
  integrations: { copy: true },
  integration_secrets: {
    copy: false,
    reason: 'integration secrets are excluded: a backup file holds no secret but key hashes; enter them again after a restore',
  },
  integration_items: { copy: true },
  board_user_permissions: { copy: true },
  board_group_permissions: { copy: true },
  integration_user_permissions: { copy: true },
  integration_group_permissions: { copy: true },
  app_user_permissions: { copy: true },
  app_group_permissions: { copy: true },
  // The settings and the instance id (FILE-6): a moved instance is the same instance.
  server_settings: { copy: true },
};

/** knex's own bookkeeping: the migrations a database holds travel in the header instead. */
export const migrationTables = new Set(['knex_migrations', 'knex_migrations_lock']);

/** A database or a file that this build's backup cannot handle; nothing was written. */
export class BackupRefusal extends Error {}

/** The tables of a database to back up (BACKUP-2): refuses when one is not named in tablePolicies. */
export function tablesToCopy(databaseTables: string[]): { copied: string[]; excluded: Record<string, string> } {
  const tables = databaseTables.filter((t) => !migrationTables.has(t)).sort();
  const unknown = tables.filter((t) => !Object.hasOwn(tablePolicies, t));
  if (unknown.length > 0) {
    throw new BackupRefusal(
      `The database has tables the backup does not know: ${unknown.join(', ')}. ` +
        'This Tessera build cannot back them up; name each in src/backup/tables.ts (copied, or excluded with a reason).',
    );
  }
  const excluded: Record<string, string> = {};
  for (const t of tables) {
    const policy = tablePolicies[t];
    if (!policy.copy) excluded[t] = policy.reason;
  }
  return { copied: tables.filter((t) => tablePolicies[t].copy), excluded };
}

/**
 * Whether a file taken at schema `fileMigrations` restores onto a database at `databaseMigrations` (this build's, after
 * migrating it): the same migrations only (BACKUP-3).
 */
export function checkSchema(fileMigrations: string[], databaseMigrations: readonly string[]): void {
  const known = new Set(databaseMigrations);
  const newer = fileMigrations.filter((m) => !known.has(m));
  if (newer.length > 0) {
    throw new BackupRefusal(
      `The backup comes from a newer Tessera (its schema has migrations this version lacks: ${newer.join(', ')}). ` +
        'Restore it with that version or a later one.',
    );
  }
  const inFile = new Set(fileMigrations);
  const older = databaseMigrations.filter((m) => !inFile.has(m));
  if (older.length > 0) {
    throw new BackupRefusal(
      `The backup comes from an older Tessera (its schema lacks migrations ${older.join(', ')}). ` +
        'Restore it into an empty database (never started), which takes its schema first, or with the Tessera version that took it, then start this version on that database (it migrates at start).',
    );
  }
}

/** The file's tables checked against the database's (BACKUP-3): each one known and copied here, and present there. */
export function checkFileTables(fileTables: string[], databaseTables: string[]): void {
  const present = new Set(databaseTables);
  const foreign = fileTables.filter((t) => !present.has(t) || !tablePolicies[t]?.copy);
  if (foreign.length > 0) throw new BackupRefusal(`The backup holds tables this Tessera does not restore: ${foreign.join(', ')}`);
}
