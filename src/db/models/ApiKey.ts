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
  /** KEY-7: the boards the key is limited to (null: not limited). */
  declare boardIds: string[] | null;
  /** KEY-9: the MCP mode the key narrows the server's to (null: the server's). */
  declare mcpMode: string | null;
  /** KEY-10: the key may apply its own MCP proposals without a person. */
  declare agentApprove: boolean;

  static override jsonSchema = rowSchema(['id', 'userId', 'tokenHash'], {
    id: col.id,
    userId: col.id,
    name: col.nullableText,
    tokenHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    scopes: col.json,
    expiresAt: col.nullableTimestamp,
    createdAt: col.timestamp,
    lastUsedAt: col.nullableTimestamp,
    boardIds: col.json,
    mcpMode: col.nullableText,
    agentApprove: { type: 'boolean' },
  });

  static override relationMappings = () => ({
    user: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'api_keys.userId', to: 'users.id' } },
  });
}
