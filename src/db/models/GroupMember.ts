import { BaseModel, col, rowSchema } from './BaseModel';

/** `group_members`: a user's membership of a group. */
export class GroupMember extends BaseModel {
  static override tableName = 'group_members';
  static override idColumn = ['groupId', 'userId'];
  declare groupId: string;
  declare userId: string;
  /** OIDC-14: made by the provider's group claim at a sign-in (and removed by a later one); false for one an admin made. */
  declare viaProvider: boolean;

  static override jsonSchema = rowSchema(['groupId', 'userId'], { groupId: col.id, userId: col.id, viaProvider: col.bool });

  static override relationMappings = () => ({
    group: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Group', join: { from: 'group_members.groupId', to: 'groups.id' } },
    user: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'group_members.userId', to: 'users.id' } },
  });
}
