import { Model } from 'objection';

/** One row of the append-only audit log (AUDIT-1, migration 0010). */
export class AuditEntry extends Model {
  static override tableName = 'audit_log';

  id!: number;
  at!: Date;
  action!: string;
  outcome!: 'success' | 'failure';
  actorUserId!: string | null;
  actorApiKeyId!: string | null;
  actorName!: string | null;
  clientAddress!: string | null;
  requestId!: string | null;
  surface!: string;
  targetType!: string | null;
  targetId!: string | null;
  details!: Record<string, unknown>;
}
