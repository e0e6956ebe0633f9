/** AUDIT-6: reading the audit log, newest first, filtered and paged (HTTP-8 cursors: the last entry's id). */
import type { Db } from '../db/database';
import { AuditEntry } from '../db/models/AuditEntry';
import { decodeCursor, Page, pageOfRows } from '../core/pages';
import { badRequest } from '../core/errors';
import { storableInstant } from '../core/instant';

export interface AuditQuery {
  actor?: string;
  action?: string;
  outcome?: 'success' | 'failure';
  target?: string;
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

export interface AuditEntryView {
  id: string;
  at: string;
  action: string;
  outcome: 'success' | 'failure';
  actor: { userId: string | null; apiKeyId: string | null; name: string | null };
  clientAddress: string | null;
  requestId: string | null;
  surface: 'rest' | 'trpc' | 'mcp' | 'page' | 'cli' | 'provisioning' | 'webhooks';
  target: { type: 'user' | 'group' | 'apikey' | 'board' | 'boardSet' | 'settings' | 'session' | null; id: string | null };
  details: Record<string, unknown>;
}

const defaultLimit = 100;

export async function listAuditEntries(db: Db, query: AuditQuery): Promise<Page<AuditEntryView>> {
  const limit = query.limit ?? defaultLimit;
  const rows = await AuditEntry.query(db)
    .modify((q) => {
      if (query.actor !== undefined) {
        const actor = query.actor;
        q.where((w) => w.where('actorUserId', actor).orWhere('actorApiKeyId', actor).orWhere('actorName', actor));
      }
      if (query.action !== undefined) q.where('action', query.action);
      if (query.outcome !== undefined) q.where('outcome', query.outcome);
      if (query.target !== undefined) q.where('targetId', query.target);
      if (query.since !== undefined) q.where('at', '>=', auditInstant('since', query.since));
      if (query.until !== undefined) q.where('at', '<=', auditInstant('until', query.until));
      if (query.cursor !== undefined) q.where('id', '<', decodeCursor(query.cursor, ['number'])[0]);
    })
    .orderBy('id', 'desc')
    .limit(limit + 1);
  const page = pageOfRows(rows, limit, (row) => [Number(row.id)]);
  return { items: page.items.map(view), nextCursor: page.nextCursor };
}

/**
 * AUDIT-10: `since` and `until` compared as the instant they name (TIME-1): passed as written, PostgreSQL refused an
 * offset past ±15:59 (`+17:43`) and the year 0, a 500.
 */
function auditInstant(name: 'since' | 'until', text: string): string {
  const instant = storableInstant(text);
  if (!instant) throw badRequest(`Invalid ${name}: not an RFC 3339 date-time`, { parameter: name });
  return instant.toISOString();
}

function view(row: AuditEntry): AuditEntryView {
  return {
    id: String(row.id),
    at: new Date(row.at).toISOString(),
    action: row.action,
    outcome: row.outcome,
    actor: { userId: row.actorUserId, apiKeyId: row.actorApiKeyId, name: row.actorName },
    clientAddress: row.clientAddress,
    requestId: row.requestId,
    surface: row.surface as AuditEntryView['surface'],
    target: { type: row.targetType as AuditEntryView['target']['type'], id: row.targetId },
    details: row.details ?? {},
  };
}
