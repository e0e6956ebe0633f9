import { BaseModel, col, rowSchema } from './BaseModel';

/** `sessions`: a login session; the id is the sha256 of the cookie value, never the value. */
export class Session extends BaseModel {
  static override tableName = 'sessions';
  static override idColumn = 'id';
  declare id: string;
  declare userId: string;
  declare expiresAt: Date;
  declare createdAt: Date;

  static override jsonSchema = rowSchema(['id', 'userId', 'expiresAt'], {
    id: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    userId: col.id,
    expiresAt: col.timestamp,
    createdAt: col.timestamp,
  });

  static override relationMappings = () => ({
    user: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'sessions.userId', to: 'users.id' } },
  });
}
