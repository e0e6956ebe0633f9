import { BaseModel, col, rowSchema } from './BaseModel';

/** `section_collapse_states`: a user's own collapsed state of a category section (DOC-4, PUT-8). */
export class SectionCollapseState extends BaseModel {
  static override tableName = 'section_collapse_states';
  static override idColumn = ['userId', 'sectionId'];
  declare userId: string;
  declare sectionId: string;
  declare collapsed: boolean;

  static override jsonSchema = rowSchema(['userId', 'sectionId'], { userId: col.id, sectionId: col.id, collapsed: col.bool });

  static override relationMappings = () => ({
    user: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'section_collapse_states.userId', to: 'users.id' } },
    section: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Section', join: { from: 'section_collapse_states.sectionId', to: 'sections.id' } },
  });
}
