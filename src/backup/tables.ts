/**
 * What a backup holds, table by table (BACKUP-2), and the checks of a restore against this build (BACKUP-3, BACKUP-5):
 * pure decisions, no I/O.
 *
 * Every table the migrations create is named here, as copied or as excluded with its reason. A backup enumerates the
 * tables its database really has and refuses one that is not named here, so a migration that adds a table cannot
 * leave it out of backups silently: its author decides here (and test/backup/backup.test.ts fails until then). Keys are
 * the models' table names (MODEL-3), so a renamed table cannot leave a stale name here.
 */

import * as model from '../db/models';

export type TablePolicy = { copy: true } | { copy: false; reason: string };

export const tablePolicies: Record<string, TablePolicy> = {
  [model.User.tableName]: { copy: true },
  [model.Group.tableName]: { copy: true },
  [model.GroupMember.tableName]: { copy: true },
  [model.GroupPermission.tableName]: { copy: true },
  // sha256 hashes of the keys' secrets (KEY rules): the keys authenticate on the restored instance.
  [model.ApiKey.tableName]: { copy: true },
  // OIDC-10: which provider account is which user (issuer and subject): a restored instance signs the same people in.
  [model.OidcIdentity.tableName]: { copy: true },
  [model.Session.tableName]: { copy: false, reason: 'browser sessions are dropped: everyone signs in again' },
  [model.OidcSignIn.tableName]: { copy: false, reason: 'sign-ins through the provider under way expire within minutes; the person signs in again' },
  [model.LoginFailure.tableName]: { copy: false, reason: 'login throttling counters are transient' },
  [model.EventStreamLease.tableName]: { copy: false, reason: 'open event streams belong to the running instances' },
  [model.RateLimitBucket.tableName]: { copy: false, reason: 'rate-limit buckets refill on their own' },
  [model.McpSession.tableName]: { copy: false, reason: 'MCP sessions belong to the connected clients; a client initializes again' },
  [model.McpProposal.tableName]: { copy: false, reason: 'MCP proposals expire within MCP_PROPOSAL_TTL; an agent proposes again' },
  [model.AppReachability.tableName]: { copy: false, reason: 'app reachability results are checked again on the next view' },
  // Who did what, kept when the instance moves (AUDIT-1).
  [model.AuditEntry.tableName]: { copy: true },
  // Which boards a provisioning source wrote from which file (PROV-4): a moved instance keeps their API lock.
  [model.ProvisionedBoard.tableName]: { copy: true },
  // Who owns each managedBy label (FLEET-13): a moved instance keeps them, as it keeps the boards that carry them.
  [model.BoardLabel.tableName]: { copy: true },
  [model.ProvisioningSource.tableName]: { copy: false, reason: 'provisioning status is written again by the next apply at start' },
  [model.Board.tableName]: { copy: true },
  [model.Layout.tableName]: { copy: true },
  [model.Section.tableName]: { copy: true },
  [model.SectionLayout.tableName]: { copy: true },
  [model.SectionCollapseState.tableName]: { copy: true },
  [model.Item.tableName]: { copy: true },
  [model.ItemLayout.tableName]: { copy: true },
  [model.BoardHistoryEntry.tableName]: { copy: true },
  [model.App.tableName]: { copy: true },
  [model.AppPlacement.tableName]: { copy: true },
  [model.Integration.tableName]: { copy: true },
  [model.IntegrationSecret.tableName]: {
    copy: false,
    reason: 'integration secrets are excluded: a backup file holds no secret but key hashes; enter them again after a restore',
  },
  [model.IntegrationItem.tableName]: { copy: true },
  // Custom API definitions (CAPI-1) hold no secret: header values only name the integration's secrets.
  [model.CustomApiDefinition.tableName]: { copy: true },
  [model.IdempotencyKey.tableName]: { copy: false, reason: 'stored answers of Idempotency-Key requests are kept for 24 hours only' },
  [model.WidgetDataCache.tableName]: { copy: false, reason: 'cached widget data is fetched again from the services on the next view' },
  [model.BoardUserPermission.tableName]: { copy: true },
  [model.BoardGroupPermission.tableName]: { copy: true },
  [model.IntegrationUserPermission.tableName]: { copy: true },
  [model.IntegrationGroupPermission.tableName]: { copy: true },
  [model.AppUserPermission.tableName]: { copy: true },
  [model.AppGroupPermission.tableName]: { copy: true },
  // The settings and the instance id (FILE-6): a moved instance is the same instance.
  [model.ServerSetting.tableName]: { copy: true },
  [model.Webhook.tableName]: { copy: false, reason: 'webhook subscriptions hold signing secrets, which a backup never does (HOOK-4): subscribe again after a restore' },
  [model.WebhookOutboxEntry.tableName]: { copy: false, reason: 'queued webhook events go with their subscriptions' },
  [model.WebhookDelivery.tableName]: { copy: false, reason: 'the webhook delivery log goes with its subscriptions' },
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
