import { BaseModel, col, rowSchema } from './BaseModel';

/** `group_permissions`: a global permission held by a group (src/identity/permissions.ts lists them). */
export class GroupPermission extends BaseModel {
  static override tableName = 'group_permissions';
  static override idColumn = ['groupId', 'permission'];
  declare groupId: string;
  declare permission: string;

  static override jsonSchema = rowSchema(['groupId', 'permission'], { groupId: col.id, permission: col.text });

  static override relationMappings = () => ({
    group: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Group', join: { from: 'group_permissions.groupId', to: 'groups.id' } },
  });
}
