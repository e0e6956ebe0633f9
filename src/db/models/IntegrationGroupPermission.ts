import { BaseModel, col, rowSchema } from './BaseModel';

/** `integration_group_permissions`: a group's grant on an integration. */
export class IntegrationGroupPermission extends BaseModel {
  static override tableName = 'integration_group_permissions';
  static override idColumn = ['integrationId', 'groupId', 'permission'];
  declare integrationId: string;
  declare groupId: string;
  declare permission: 'use' | 'interact' | 'full';

  static override jsonSchema = rowSchema(['integrationId', 'groupId', 'permission'], {
    integrationId: col.id,
    groupId: col.id,
    permission: { type: 'string', enum: ['use', 'interact', 'full'] },
  });

  static override relationMappings = () => ({
    integration: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Integration', join: { from: 'integration_group_permissions.integrationId', to: 'integrations.id' } },
    group: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Group', join: { from: 'integration_group_permissions.groupId', to: 'groups.id' } },
  });
}
