import { BaseModel, col, rowSchema } from './BaseModel';

/** `integrations`: a connection to an external service, optionally of an app; its secrets live apart. */
export class Integration extends BaseModel {
  static override tableName = 'integrations';
  static override idColumn = 'id';
  declare id: string;
  declare name: string;
  declare kind: string;
  declare url: string;
  declare appId: string | null;
  declare createdAt: Date;

  static override jsonSchema = rowSchema(['id', 'name', 'kind', 'url'], {
    id: col.id,
    name: col.text,
    kind: col.text,
    url: col.text,
    appId: col.nullableText,
    createdAt: col.timestamp,
  });

  static override relationMappings = () => ({
    app: { relation: BaseModel.BelongsToOneRelation, modelClass: 'App', join: { from: 'integrations.appId', to: 'apps.id' } },
    secrets: { relation: BaseModel.HasManyRelation, modelClass: 'IntegrationSecret', join: { from: 'integrations.id', to: 'integration_secrets.integrationId' } },
    bindings: { relation: BaseModel.HasManyRelation, modelClass: 'IntegrationItem', join: { from: 'integrations.id', to: 'integration_items.integrationId' } },
    userPermissions: { relation: BaseModel.HasManyRelation, modelClass: 'IntegrationUserPermission', join: { from: 'integrations.id', to: 'integration_user_permissions.integrationId' } },
    groupPermissions: { relation: BaseModel.HasManyRelation, modelClass: 'IntegrationGroupPermission', join: { from: 'integrations.id', to: 'integration_group_permissions.integrationId' } },
  });
}
