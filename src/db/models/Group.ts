import { BaseModel, col, rowSchema } from './BaseModel';

/** `groups`: a set of users holding global permissions; the name is unique regardless of case. */
export class Group extends BaseModel {
  static override tableName = 'groups';
  static override idColumn = 'id';
  declare id: string;
  declare name: string;
  declare ownerId: string | null;
  declare homeBoardId: string | null;
  declare mobileHomeBoardId: string | null;
  declare position: number;
  declare createdAt: Date;

  static override jsonSchema = rowSchema(['id', 'name'], {
    id: col.id,
    name: col.text,
    ownerId: col.nullableText,
    homeBoardId: col.nullableText,
    mobileHomeBoardId: col.nullableText,
    position: col.int,
    createdAt: col.timestamp,
  });

  static override relationMappings = () => ({
    owner: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'groups.ownerId', to: 'users.id' } },
    members: {
      relation: BaseModel.ManyToManyRelation,
      modelClass: 'User',
      join: { from: 'groups.id', through: { from: 'group_members.groupId', to: 'group_members.userId' }, to: 'users.id' },
    },
    permissions: { relation: BaseModel.HasManyRelation, modelClass: 'GroupPermission', join: { from: 'groups.id', to: 'group_permissions.groupId' } },
    homeBoard: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Board', join: { from: 'groups.homeBoardId', to: 'boards.id' } },
    mobileHomeBoard: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Board', join: { from: 'groups.mobileHomeBoardId', to: 'boards.id' } },
  });
}
