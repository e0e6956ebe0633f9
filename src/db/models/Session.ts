import { BaseModel, col, rowSchema } from './BaseModel';

/** `sessions`: a login session; the id is the sha256 of the cookie value, never the value. */
export class Session extends BaseModel {
  static override tableName = 'sessions';
  static override idColumn = 'id';
  declare id: string;
  declare userId: string;
  declare expiresAt: Date;
  declare createdAt: Date;
  /** OIDC-17: the issuer and ID token of a session that came from a provider (for its RP-initiated logout). */
  declare oidcIssuer: string | null;
  declare oidcIdToken: string | null;

  static override jsonSchema = rowSchema(['id', 'userId', 'expiresAt'], {
    id: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    userId: col.id,
    expiresAt: col.timestamp,
    createdAt: col.timestamp,
    oidcIssuer: col.nullableText,
    oidcIdToken: col.nullableText,
  });

  static override relationMappings = () => ({
    user: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'sessions.userId', to: 'users.id' } },
  });
}
