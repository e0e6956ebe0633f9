import { BaseModel, col, rowSchema } from './BaseModel';

/** `boards`: a board's metadata and settings columns, its `version` (CONC-1) and internal `revision` (DOC-6). */
export class Board extends BaseModel {
  static override tableName = 'boards';
  static override idColumn = 'id';
  declare id: string;
  declare name: string;
  declare isPublic: boolean;
  declare creatorId: string | null;
  declare pageTitle: string | null;
  declare metaTitle: string | null;
  declare logoImageUrl: string | null;
  declare managedBy: string | null;
  declare faviconImageUrl: string | null;
  declare backgroundImageUrl: string | null;
  declare backgroundImageAttachment: string;
  declare backgroundImageRepeat: string;
  declare backgroundImageSize: string;
  declare primaryColor: string;
  declare secondaryColor: string;
  declare opacity: number;
  declare customCss: string | null;
  declare iconColor: string | null;
  declare itemRadius: string;
  declare disableStatus: boolean;
  declare colorScheme: string;
  declare webSearchUrl: string | null;
  declare version: number;
  declare revision: number;
  declare createdAt: Date;
  declare updatedAt: Date;

  static override jsonSchema = rowSchema(['id', 'name'], {
    id: col.id,
    name: { type: 'string', minLength: 1, maxLength: 255 },
    isPublic: col.bool,
    creatorId: col.nullableText,
    pageTitle: col.nullableText,
    metaTitle: col.nullableText,
    logoImageUrl: col.nullableText,
    managedBy: col.nullableText,
    faviconImageUrl: col.nullableText,
    backgroundImageUrl: col.nullableText,
    backgroundImageAttachment: { type: 'string', enum: ['fixed', 'scroll'] },
    backgroundImageRepeat: { type: 'string', enum: ['repeat', 'repeat-x', 'repeat-y', 'no-repeat'] },
    backgroundImageSize: { type: 'string', enum: ['cover', 'contain'] },
    primaryColor: col.text,
    secondaryColor: col.text,
    opacity: { type: 'integer', minimum: 0, maximum: 100 },
    customCss: col.nullableText,
    iconColor: col.nullableText,
    itemRadius: { type: 'string', enum: ['xs', 'sm', 'md', 'lg', 'xl'] },
    disableStatus: col.bool,
    colorScheme: { type: 'string', enum: ['light', 'dark', 'auto'] },
    webSearchUrl: col.nullableText,
    version: col.int,
    revision: col.int,
    createdAt: col.timestamp,
    updatedAt: col.timestamp,
  });

  static override relationMappings = () => ({
    creator: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'boards.creatorId', to: 'users.id' } },
    layouts: { relation: BaseModel.HasManyRelation, modelClass: 'Layout', join: { from: 'boards.id', to: 'layouts.boardId' } },
    sections: { relation: BaseModel.HasManyRelation, modelClass: 'Section', join: { from: 'boards.id', to: 'sections.boardId' } },
    items: { relation: BaseModel.HasManyRelation, modelClass: 'Item', join: { from: 'boards.id', to: 'items.boardId' } },
    userPermissions: { relation: BaseModel.HasManyRelation, modelClass: 'BoardUserPermission', join: { from: 'boards.id', to: 'board_user_permissions.boardId' } },
    groupPermissions: { relation: BaseModel.HasManyRelation, modelClass: 'BoardGroupPermission', join: { from: 'boards.id', to: 'board_group_permissions.boardId' } },
    history: { relation: BaseModel.HasManyRelation, modelClass: 'BoardHistoryEntry', join: { from: 'boards.id', to: 'board_history.boardId' } },
  });
}
