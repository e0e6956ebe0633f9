/**
 * The audit log (AUDIT-*): an append-only table of security-relevant events. An entry is written in the transaction
 * of the change it records (`audited`), so a change that rolls back leaves no entry (AUDIT-3); once that transaction
 * commits the entry is also one JSON log line (AUDIT-4). Entries never hold a secret: targets are ids and names,
 * details are counts, ids and field names chosen by the caller of `recordAudit`.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { PartialModelObject } from 'objection';
import type { Db } from '../db/database';
import { AuditEntry } from '../db/models/AuditEntry';
import type { Surface } from '../core/operation';
import type { Principal } from '../identity/principal';
import { metrics } from './metrics';

/** Who did what from where: a RequestContext is one; the local CLI builds its own (surface `cli`). */
export interface AuditSource {
  db: Db;
  logger: Logger;
  requestId: string | null;
  clientIp: string | null;
  surface: Surface | 'provisioning' | 'webhooks';
  /** The caller; the local CLI has no user (`userId` null, `username` naming the CLI). */
  principal: Pick<Principal, 'apiKeyId'> & { userId: string | null; username: string | null } | null;
}

export type AuditAction =
  | 'auth.login'
  | 'auth.logout'
  | 'user.create'
  | 'user.delete'
  | 'user.password'
  | 'group.create'
  | 'group.delete'
  | 'group.member.add'
  | 'group.member.remove'
  | 'group.permissions'
  | 'apikey.create'
  | 'apikey.revoke'
  | 'board.create'
  | 'board.duplicate'
  | 'board.delete'
  | 'board.rename'
  | 'board.visibility'
  | 'board.permissions'
  | 'board.label.owner'
  | 'board.label.release'
  | 'app.permissions'
  | 'integration.permissions'
  | 'customApi.create'
  | 'customApi.update'
  | 'customApi.delete'
  | 'integration.update'
  | 'integration.action'
  | 'board.restore'
  | 'board.import'
  | 'board.set.apply'
  | 'provisioning.apply'
  | 'apikey.expired'
  | 'settings.update'
  | 'mcp.proposal.apply'
  | 'mcp.proposal.reject'
  | 'webhook.create'
  | 'webhook.update'
  | 'webhook.delete'
  | 'webhook.rotate'
  | 'webhook.disable';

export interface AuditEvent {
  action: AuditAction;
  outcome?: 'success' | 'failure';
  targetType?: 'user' | 'group' | 'apikey' | 'board' | 'boardSet' | 'app' | 'integration' | 'customApi' | 'settings' | 'session' | 'mcpProposal' | 'webhook';
  targetId?: string | null;
  /** Ids, names and counts only; never a secret. */
  details?: Record<string, unknown>;
}

/** AUDIT-1: appends one entry on `db` (a transaction, or the pool for an event that changes nothing, such as a failed login). */
export async function recordAudit(db: Db, source: AuditSource, event: AuditEvent): Promise<void> {
  const row = {
    action: event.action,
    outcome: event.outcome ?? 'success',
    actorUserId: source.principal?.userId ?? null,
    actorApiKeyId: source.principal?.apiKeyId ?? null,
    actorName: source.principal?.username ?? null,
    clientAddress: source.clientIp,
    requestId: source.requestId,
    surface: source.surface,
    targetType: event.targetType ?? null,
    targetId: event.targetId ?? null,
    details: JSON.stringify(event.details ?? {}),
  };
  // details travels as JSON text, as the other jsonb columns do (BaseModel: no jsonAttributes).
  const inserted = await AuditEntry.query(db).insert(row as unknown as PartialModelObject<AuditEntry>).returning(['id', 'at']);
  const { id, at } = inserted as unknown as { id: number; at: Date };
  // AUDIT-4: the log line once the entry is committed (and never for a rolled-back one).
  const log = () => {
    metrics.auditEntries.inc({ action: event.action, outcome: row.outcome });
    source.logger.info({ audit: { ...row, details: event.details ?? {}, id: Number(id), at } }, 'audit');
  };
  if (db.isTransaction) (db as Knex.Transaction).executionPromise.then(log, () => {});
  else log();
}

/**
 * Runs a change and records its entry in one transaction (AUDIT-3): the entry is written only when the change
 * succeeds, and goes with it when the transaction rolls back. `event` may depend on the change's result, and is null
 * for a change that turned out to change nothing (a restore or import of what the board already is: no entry).
 */
export async function audited<T>(source: AuditSource, event: AuditEvent | ((result: T) => AuditEvent | null), work: (trx: Db) => Promise<T>): Promise<T> {
  return source.db.transaction(async (trx) => {
    const result = await work(trx);
    const entry = typeof event === 'function' ? event(result) : event;
    if (entry) await recordAudit(trx, source, entry);
    return result;
  });
}

/** AUDIT-5: deletes the entries older than the retention (days; 0 keeps every entry). Returns how many went. */
export async function pruneAudit(db: Db, retentionDays: number): Promise<number> {
  if (retentionDays <= 0) return 0;
  return AuditEntry.query(db)
    .where('at', '<', db.raw(`now() - make_interval(days => ?)`, [retentionDays]))
    .delete();
}
