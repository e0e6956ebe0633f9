import { BaseModel, col, rowSchema } from './BaseModel';

/** `board_group_permissions`: a group's grant on a board (ACCESS rules). */
export class BoardGroupPermission extends BaseModel {
  static override tableName = 'board_group_permissions';
  static override idColumn = ['boardId', 'groupId', 'permission'];
  declare boardId: string;
  declare groupId: string;
  declare permission: 'view' | 'modify' | 'full';

  static override jsonSchema = rowSchema(['boardId', 'groupId', 'permission'], {
    boardId: col.id,
    groupId: col.id,
    permission: { type: 'string', enum: ['view', 'modify', 'full'] },
  });

  static override relationMappings = () => ({
    board: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Board', join: { from: 'board_group_permissions.boardId', to: 'boards.id' } },
    group: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Group', join: { from: 'board_group_permissions.groupId', to: 'groups.id' } },
  });
}
