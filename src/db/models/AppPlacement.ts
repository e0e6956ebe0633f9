import { BaseModel, col, rowSchema } from './BaseModel';

/** `app_placements`: a vouched reference of an app or bookmarks item to an app (src/apps/placements.ts). */
export class AppPlacement extends BaseModel {
  static override tableName = 'app_placements';
  static override idColumn = ['itemId', 'appId'];
  declare itemId: string;
  declare appId: string;

  static override jsonSchema = rowSchema(['itemId', 'appId'], { itemId: col.id, appId: col.id });

  static override relationMappings = () => ({
    item: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Item', join: { from: 'app_placements.itemId', to: 'items.id' } },
    app: { relation: BaseModel.BelongsToOneRelation, modelClass: 'App', join: { from: 'app_placements.appId', to: 'apps.id' } },
  });
}
