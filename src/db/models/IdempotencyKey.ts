import { BaseModel, col, rowSchema } from './BaseModel';

/** `idempotency_keys`: a user's Idempotency-Key, its request's fingerprint, claim and stored answer (IDEM-1..6, migration 0020). */
export class IdempotencyKey extends BaseModel {
  static override tableName = 'idempotency_keys';
  static override idColumn = ['userId', 'key'];
  declare userId: string;
  declare key: string;
  declare fingerprint: string;
  declare claimToken: string | null;
  declare claimedUntil: Date | null;
  declare status: number | null;
  declare headers: Record<string, string | string[]> | null;
  declare body: string | null;
  declare contentType: string | null;
  declare expiresAt: Date;

  static override jsonSchema = rowSchema(['userId', 'key', 'fingerprint', 'expiresAt'], {
    userId: col.id,
    key: col.text,
    fingerprint: col.text,
    claimToken: col.nullableText,
    claimedUntil: col.nullableTimestamp,
    status: { type: ['integer', 'null'] },
    headers: col.json,
    body: col.nullableText,
    contentType: col.nullableText,
    expiresAt: col.timestamp,
  });

  static override relationMappings = () => ({
    user: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'idempotency_keys.userId', to: 'users.id' } },
  });
}
