import { BaseModel, col, rowSchema } from './BaseModel';

/** `integration_secrets`: one secret of an integration per kind, encrypted at rest, never returned. */
export class IntegrationSecret extends BaseModel {
  static override tableName = 'integration_secrets';
  static override idColumn = ['integrationId', 'kind'];
  declare integrationId: string;
  declare kind: string;
  declare value: string;
  declare updatedAt: Date;

  static override jsonSchema = rowSchema(['integrationId', 'kind', 'value'], {
    integrationId: col.id,
    kind: col.text,
    value: col.text,
    updatedAt: col.timestamp,
  });

  static override relationMappings = () => ({
    integration: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Integration', join: { from: 'integration_secrets.integrationId', to: 'integrations.id' } },
  });
}
