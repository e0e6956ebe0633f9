import { BaseModel, col, rowSchema } from './BaseModel';

/** `widget_data_cache`: the last upstream answer per integration (or source) and query, and who fetches the next (WDATA-6, migration 0016). */
export class WidgetDataCache extends BaseModel {
  static override tableName = 'widget_data_cache';
  static override idColumn = 'cacheKey';
  declare cacheKey: string;
  declare integrationId: string | null;
  declare status: 'ok' | 'error' | null;
  declare message: string | null;
  declare data: unknown;
  declare fetchedAt: Date | null;
  declare expiresAt: Date | null;
  declare claimToken: string | null;
  declare claimedUntil: Date | null;

  static override jsonSchema = rowSchema(['cacheKey'], {
    cacheKey: col.text,
    integrationId: col.nullableText,
    status: { type: ['string', 'null'], enum: ['ok', 'error', null] },
    message: col.nullableText,
    data: {},
    fetchedAt: col.nullableTimestamp,
    expiresAt: col.nullableTimestamp,
    claimToken: col.nullableText,
    claimedUntil: col.nullableTimestamp,
  });

  static override relationMappings = () => ({
    integration: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Integration', join: { from: 'widget_data_cache.integrationId', to: 'integrations.id' } },
  });
}
