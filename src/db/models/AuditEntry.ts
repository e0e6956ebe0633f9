import { BaseModel, col, rowSchema } from './BaseModel';

/** `audit_log`: one append-only audit entry (AUDIT-1, migration 0010; a trigger refuses updates). */
export class AuditEntry extends BaseModel {
  static override tableName = 'audit_log';
  declare id: number;
  declare at: Date;
  declare action: string;
  declare outcome: 'success' | 'failure';
  declare actorUserId: string | null;
  declare actorApiKeyId: string | null;
  declare actorName: string | null;
  declare clientAddress: string | null;
  declare requestId: string | null;
  declare surface: string;
  declare targetType: string | null;
  declare targetId: string | null;
  declare details: Record<string, unknown>;

  static override jsonSchema = rowSchema(['action', 'outcome', 'surface'], {
    id: { type: ['integer', 'string'] },
    at: col.timestamp,
    action: col.text,
    outcome: { type: 'string', enum: ['success', 'failure'] },
    actorUserId: col.nullableText,
    actorApiKeyId: col.nullableText,
    actorName: col.nullableText,
    clientAddress: col.nullableText,
    requestId: col.nullableText,
    surface: col.text,
    targetType: col.nullableText,
    targetId: col.nullableText,
    details: col.json,
  });
}
