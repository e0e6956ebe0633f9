import { BaseModel, col, rowSchema } from './BaseModel';

/** `custom_apis` (CAPI-1): an admin-managed custom API definition the customApi widget names by id; no secrets. */
export class CustomApiDefinition extends BaseModel {
  static override tableName = 'custom_apis';
  static override idColumn = 'id';
  declare id: string;
  declare name: string;
  declare integrationId: string | null;
  declare url: string;
  declare method: 'GET' | 'POST';
  declare body: string | null;
  declare headers: { name: string; value: string }[];
  declare fields: { label: string; path: string; format: string }[];
  declare list: { path: string; limit: number } | null;
  declare createdAt: Date;
  declare updatedAt: Date;

  static override jsonSchema = rowSchema(['id', 'name', 'url', 'method', 'headers', 'fields'], {
    id: col.id,
    name: col.text,
    integrationId: col.nullableText,
    url: col.text,
    method: { type: 'string', enum: ['GET', 'POST'] },
    body: col.nullableText,
    headers: col.json,
    fields: col.json,
    list: col.json,
    createdAt: col.timestamp,
    updatedAt: col.timestamp,
  });

  static override relationMappings = () => ({
    integration: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Integration', join: { from: 'custom_apis.integrationId', to: 'integrations.id' } },
  });
}
