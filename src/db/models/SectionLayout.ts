import { BaseModel, col, rowSchema } from './BaseModel';

/** `section_layouts`: a dynamic section's position in one layout, inside its parent section. */
export class SectionLayout extends BaseModel {
  static override tableName = 'section_layouts';
  static override idColumn = ['sectionId', 'layoutId'];
  declare sectionId: string;
  declare layoutId: string;
  declare parentSectionId: string | null;
  declare xOffset: number;
  declare yOffset: number;
  declare width: number;
  declare height: number;

  static override jsonSchema = rowSchema(['sectionId', 'layoutId', 'xOffset', 'yOffset', 'width', 'height'], {
    sectionId: col.id,
    layoutId: col.id,
    parentSectionId: col.nullableText,
    xOffset: col.gridOffset,
    yOffset: col.gridOffset,
    width: col.gridSize,
    height: col.gridSize,
  });

  static override relationMappings = () => ({
    section: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Section', join: { from: 'section_layouts.sectionId', to: 'sections.id' } },
    parentSection: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Section', join: { from: 'section_layouts.parentSectionId', to: 'sections.id' } },
    layout: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Layout', join: { from: 'section_layouts.layoutId', to: 'layouts.id' } },
  });
}
