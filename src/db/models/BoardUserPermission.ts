import { BaseModel, col, rowSchema } from './BaseModel';

/** `board_user_permissions`: a user's grant on a board (ACCESS rules). */
export class BoardUserPermission extends BaseModel {
  static override tableName = 'board_user_permissions';
  static override idColumn = ['boardId', 'userId', 'permission'];
  declare boardId: string;
  declare userId: string;
  declare permission: 'view' | 'modify' | 'full';

  static override jsonSchema = rowSchema(['boardId', 'userId', 'permission'], {
    boardId: col.id,
    userId: col.id,
    permission: { type: 'string', enum: ['view', 'modify', 'full'] },
  });

  static override relationMappings = () => ({
    board: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Board', join: { from: 'board_user_permissions.boardId', to: 'boards.id' } },
    user: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'board_user_permissions.userId', to: 'users.id' } },
  });
}
