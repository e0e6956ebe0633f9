import { BaseModel, col, rowSchema } from './BaseModel';

/** `integration_items`: an item's binding to an integration (the document's `integrationIds`). */
export class IntegrationItem extends BaseModel {
  static override tableName = 'integration_items';
  static override idColumn = ['itemId', 'integrationId'];
  declare itemId: string;
  declare integrationId: string;

  static override jsonSchema = rowSchema(['itemId', 'integrationId'], { itemId: col.id, integrationId: col.id });

  static override relationMappings = () => ({
    item: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Item', join: { from: 'integration_items.itemId', to: 'items.id' } },
    integration: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Integration', join: { from: 'integration_items.integrationId', to: 'integrations.id' } },
  });
}
