import { BaseModel, col, rowSchema } from './BaseModel';

/**
 * `oidc_sign_ins`: a sign-in through the provider, started and not yet finished (OIDC-20, migration 0023). The id is
 * the sha256 of the browser's cookie value, never the value; the row is taken (deleted) by the callback that uses it.
 */
export class OidcSignIn extends BaseModel {
  static override tableName = 'oidc_sign_ins';
  static override idColumn = 'id';
  declare id: string;
  declare state: string;
  declare nonce: string;
  declare codeVerifier: string;
  declare returnTo: string;
  declare expiresAt: Date;

  static override jsonSchema = rowSchema(['id', 'state', 'nonce', 'codeVerifier', 'returnTo', 'expiresAt'], {
    id: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    state: col.text,
    nonce: col.text,
    codeVerifier: col.text,
    returnTo: col.text,
    expiresAt: col.timestamp,
  });
}
