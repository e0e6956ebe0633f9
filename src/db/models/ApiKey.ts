import { BaseModel, col, rowSchema } from './BaseModel';

/** `api_keys`: a user's API key; only the sha256 of its secret is stored (`tokenHash`). */
export class ApiKey extends BaseModel {
  static override tableName = 'api_keys';
  static override idColumn = 'id';
  declare id: string;
  declare userId: string;
  declare name: string | null;
  declare tokenHash: string;
  declare scopes: unknown;
  declare expiresAt: Date | null;
  declare createdAt: Date;
  declare lastUsedAt: Date | null;

  static override jsonSchema = rowSchema(['id', 'userId', 'tokenHash'], {
    id: col.id,
    userId: col.id,
    name: col.nullableText,
    tokenHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    scopes: col.json,
    expiresAt: col.nullableTimestamp,
    createdAt: col.timestamp,
    lastUsedAt: col.nullableTimestamp,
  });

  static override relationMappings = () => ({
    user: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'api_keys.userId', to: 'users.id' } },
  });
}
