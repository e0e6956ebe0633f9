import { BaseModel, col, rowSchema } from './BaseModel';

/** `item_layouts`: an item's position in one layout (one per item and layout), inside a section. */
export class ItemLayout extends BaseModel {
  static override tableName = 'item_layouts';
  static override idColumn = ['itemId', 'layoutId'];
  declare itemId: string;
  declare layoutId: string;
  declare sectionId: string;
  declare xOffset: number;
  declare yOffset: number;
  declare width: number;
  declare height: number;

  static override jsonSchema = rowSchema(['itemId', 'layoutId', 'sectionId', 'xOffset', 'yOffset', 'width', 'height'], {
    itemId: col.id,
    layoutId: col.id,
    sectionId: col.id,
    xOffset: col.gridOffset,
    yOffset: col.gridOffset,
    width: col.gridSize,
    height: col.gridSize,
  });

  static override relationMappings = () => ({
    item: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Item', join: { from: 'item_layouts.itemId', to: 'items.id' } },
    layout: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Layout', join: { from: 'item_layouts.layoutId', to: 'layouts.id' } },
    section: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Section', join: { from: 'item_layouts.sectionId', to: 'sections.id' } },
  });
}
