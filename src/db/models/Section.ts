import { BaseModel, col, rowSchema } from './BaseModel';

/**
 * `sections`: empty, category and dynamic sections. `xOffset`/`yOffset` are the column and row of empty and category
 * sections (xOffset stored as 0, PUT-7); a dynamic section has null here and one position per layout (SectionLayout).
 */
export class Section extends BaseModel {
  static override tableName = 'sections';
  static override idColumn = 'id';
  declare id: string;
  declare boardId: string;
  declare kind: 'empty' | 'category' | 'dynamic';
  declare xOffset: number | null;
  declare yOffset: number | null;
  declare name: string | null;
  declare options: unknown;

  static override jsonSchema = rowSchema(['id', 'boardId', 'kind'], {
    id: col.id,
    boardId: col.id,
    kind: { type: 'string', enum: ['empty', 'category', 'dynamic'] },
    xOffset: col.nullableGridInt,
    yOffset: col.nullableGridInt,
    name: col.nullableText,
    options: col.json,
  });

  static override relationMappings = () => ({
    board: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Board', join: { from: 'sections.boardId', to: 'boards.id' } },
    positions: { relation: BaseModel.HasManyRelation, modelClass: 'SectionLayout', join: { from: 'sections.id', to: 'section_layouts.sectionId' } },
    itemPositions: { relation: BaseModel.HasManyRelation, modelClass: 'ItemLayout', join: { from: 'sections.id', to: 'item_layouts.sectionId' } },
    collapseStates: { relation: BaseModel.HasManyRelation, modelClass: 'SectionCollapseState', join: { from: 'sections.id', to: 'section_collapse_states.sectionId' } },
  });
}
