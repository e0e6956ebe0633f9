import { BaseModel, col, rowSchema } from './BaseModel';

/** `app_group_permissions`: a group's grant on an app. */
export class AppGroupPermission extends BaseModel {
  static override tableName = 'app_group_permissions';
  static override idColumn = ['appId', 'groupId', 'permission'];
  declare appId: string;
  declare groupId: string;
  declare permission: 'use' | 'modify' | 'full';

  static override jsonSchema = rowSchema(['appId', 'groupId', 'permission'], {
    appId: col.id,
    groupId: col.id,
    permission: { type: 'string', enum: ['use', 'modify', 'full'] },
  });

  static override relationMappings = () => ({
    app: { relation: BaseModel.BelongsToOneRelation, modelClass: 'App', join: { from: 'app_group_permissions.appId', to: 'apps.id' } },
    group: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Group', join: { from: 'app_group_permissions.groupId', to: 'groups.id' } },
  });
}
