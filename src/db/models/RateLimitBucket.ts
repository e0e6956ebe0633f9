import { BaseModel, col, rowSchema } from './BaseModel';

/** `rate_limit_buckets`: one caller's token bucket of one rate-limit class (RATE-2, migration 0010; UNLOGGED). */
export class RateLimitBucket extends BaseModel {
  static override tableName = 'rate_limit_buckets';
  static override idColumn = 'key';
  declare key: string;
  declare tokens: number;
  declare updatedAt: Date;

  static override jsonSchema = rowSchema(['key', 'tokens', 'updatedAt'], { key: col.text, tokens: { type: 'number' }, updatedAt: col.timestamp });
}
