import { BaseModel, col, rowSchema } from './BaseModel';

/** `app_user_permissions`: a user's grant on an app. */
export class AppUserPermission extends BaseModel {
  static override tableName = 'app_user_permissions';
  static override idColumn = ['appId', 'userId', 'permission'];
  declare appId: string;
  declare userId: string;
  declare permission: 'use' | 'modify' | 'full';

  static override jsonSchema = rowSchema(['appId', 'userId', 'permission'], {
    appId: col.id,
    userId: col.id,
    permission: { type: 'string', enum: ['use', 'modify', 'full'] },
  });

  static override relationMappings = () => ({
    app: { relation: BaseModel.BelongsToOneRelation, modelClass: 'App', join: { from: 'app_user_permissions.appId', to: 'apps.id' } },
    user: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'app_user_permissions.userId', to: 'users.id' } },
  });
}
