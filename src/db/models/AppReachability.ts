import { BaseModel, col, rowSchema } from './BaseModel';

/** `app_reachability`: the last reachability check of an app and the claim of the next one (PING-2, migration 0011). */
export class AppReachability extends BaseModel {
  static override tableName = 'app_reachability';
  static override idColumn = 'appId';
  declare appId: string;
  declare url: string;
  declare state: 'up' | 'down' | 'unknown';
  declare httpStatus: number | null;
  declare checkedAt: Date | null;
  declare claimedAt: Date | null;

  static override jsonSchema = rowSchema(['appId', 'url'], {
    appId: col.id,
    url: col.text,
    state: { type: 'string', enum: ['up', 'down', 'unknown'] },
    httpStatus: { type: ['integer', 'null'] },
    checkedAt: col.nullableTimestamp,
    claimedAt: col.nullableTimestamp,
  });

  static override relationMappings = () => ({
    app: { relation: BaseModel.BelongsToOneRelation, modelClass: 'App', join: { from: 'app_reachability.appId', to: 'apps.id' } },
  });
}
