import { BaseModel, col, rowSchema } from './BaseModel';

/** `users`: a login; the username is unique regardless of case; only the password's hash is stored. */
export class User extends BaseModel {
  static override tableName = 'users';
  static override idColumn = 'id';
  declare id: string;
  declare username: string;
  declare email: string | null;
  declare passwordHash: string | null;
  declare homeBoardId: string | null;
  declare mobileHomeBoardId: string | null;
  declare createdAt: Date;

  static override jsonSchema = rowSchema(['id', 'username'], {
    id: col.id,
    username: col.text,
    email: col.nullableText,
    passwordHash: col.nullableText,
    homeBoardId: col.nullableText,
    mobileHomeBoardId: col.nullableText,
    createdAt: col.timestamp,
  });

  static override relationMappings = () => ({
    groups: {
      relation: BaseModel.ManyToManyRelation,
      modelClass: 'Group',
      join: { from: 'users.id', through: { from: 'group_members.userId', to: 'group_members.groupId' }, to: 'groups.id' },
    },
    apiKeys: { relation: BaseModel.HasManyRelation, modelClass: 'ApiKey', join: { from: 'users.id', to: 'api_keys.userId' } },
    sessions: { relation: BaseModel.HasManyRelation, modelClass: 'Session', join: { from: 'users.id', to: 'sessions.userId' } },
    homeBoard: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Board', join: { from: 'users.homeBoardId', to: 'boards.id' } },
    mobileHomeBoard: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Board', join: { from: 'users.mobileHomeBoardId', to: 'boards.id' } },
  });
}
