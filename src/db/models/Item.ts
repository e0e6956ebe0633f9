import { BaseModel, col, rowSchema } from './BaseModel';

/** `items`: a widget on a board; `options` are stored as sent (PUT-9), `kind` may be unknown to this build (DOC-3). */
export class Item extends BaseModel {
  static override tableName = 'items';
  static override idColumn = 'id';
  declare id: string;
  declare boardId: string;
  declare kind: string;
  declare options: unknown;
  declare advancedOptions: unknown;

  static override jsonSchema = rowSchema(['id', 'boardId', 'kind'], {
    id: col.id,
    boardId: col.id,
    kind: col.text,
    options: col.json,
    advancedOptions: col.json,
  });

  static override relationMappings = () => ({
    board: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Board', join: { from: 'items.boardId', to: 'boards.id' } },
    positions: { relation: BaseModel.HasManyRelation, modelClass: 'ItemLayout', join: { from: 'items.id', to: 'item_layouts.itemId' } },
    bindings: { relation: BaseModel.HasManyRelation, modelClass: 'IntegrationItem', join: { from: 'items.id', to: 'integration_items.itemId' } },
    integrations: {
      relation: BaseModel.ManyToManyRelation,
      modelClass: 'Integration',
      join: { from: 'items.id', through: { from: 'integration_items.itemId', to: 'integration_items.integrationId' }, to: 'integrations.id' },
    },
    appPlacements: { relation: BaseModel.HasManyRelation, modelClass: 'AppPlacement', join: { from: 'items.id', to: 'app_placements.itemId' } },
  });
}
