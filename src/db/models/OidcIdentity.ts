import { BaseModel, col, rowSchema } from './BaseModel';

/** `oidc_identities`: a provider's account (issuer, subject) and the Tessera user it signs in as (OIDC-10, migration 0023). */
export class OidcIdentity extends BaseModel {
  static override tableName = 'oidc_identities';
  static override idColumn = ['issuer', 'subject'];
  declare issuer: string;
  declare subject: string;
  declare userId: string;
  declare createdAt: Date;
  declare lastSignInAt: Date;

  static override jsonSchema = rowSchema(['issuer', 'subject', 'userId'], {
    issuer: col.text,
    subject: col.text,
    userId: col.id,
    createdAt: col.timestamp,
    lastSignInAt: col.timestamp,
  });

  static override relationMappings = () => ({
    user: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'oidc_identities.userId', to: 'users.id' } },
  });
}
