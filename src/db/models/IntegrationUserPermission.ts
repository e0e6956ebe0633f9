import { BaseModel, col, rowSchema } from './BaseModel';

/** `integration_user_permissions`: a user's grant on an integration. */
export class IntegrationUserPermission extends BaseModel {
  static override tableName = 'integration_user_permissions';
  static override idColumn = ['integrationId', 'userId', 'permission'];
  declare integrationId: string;
  declare userId: string;
  declare permission: 'use' | 'interact' | 'full';

  static override jsonSchema = rowSchema(['integrationId', 'userId', 'permission'], {
    integrationId: col.id,
    userId: col.id,
    permission: { type: 'string', enum: ['use', 'interact', 'full'] },
  });

  static override relationMappings = () => ({
    integration: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Integration', join: { from: 'integration_user_permissions.integrationId', to: 'integrations.id' } },
    user: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'integration_user_permissions.userId', to: 'users.id' } },
  });
}
