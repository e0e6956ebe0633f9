import { BaseModel, col, rowSchema } from './BaseModel';

/** `layouts`: a board's breakpoint layouts (LAYOUT-1..4); schema as the contract's `Layout`. */
export class Layout extends BaseModel {
  static override tableName = 'layouts';
  static override idColumn = 'id';
  declare id: string;
  declare boardId: string;
  declare name: string;
  declare columnCount: number;
  declare breakpoint: number;

  static override jsonSchema = rowSchema(['id', 'boardId', 'name', 'columnCount'], {
    id: col.id,
    boardId: col.id,
    name: { type: 'string', minLength: 1, maxLength: 32 },
    columnCount: { type: 'integer', minimum: 1, maximum: 24 },
    breakpoint: { type: 'integer', minimum: 0, maximum: 32767 },
  });

  static override relationMappings = () => ({
    board: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Board', join: { from: 'layouts.boardId', to: 'boards.id' } },
    itemPositions: { relation: BaseModel.HasManyRelation, modelClass: 'ItemLayout', join: { from: 'layouts.id', to: 'item_layouts.layoutId' } },
    sectionPositions: { relation: BaseModel.HasManyRelation, modelClass: 'SectionLayout', join: { from: 'layouts.id', to: 'section_layouts.layoutId' } },
  });
}
