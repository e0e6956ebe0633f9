import { Model } from 'objection';

/** One caller's token bucket of one rate-limit class (RATE-2, migration 0010; an UNLOGGED table). */
export class RateLimitBucket extends Model {
  static override tableName = 'rate_limit_buckets';
  static override idColumn = 'key';

  key!: string;
  tokens!: number;
  updatedAt!: Date;
}
