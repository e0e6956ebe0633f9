/**
 * MCPAUTH-7, OIDC-10: the one place that says which Tessera user a provider identity (issuer, subject) is: the user
 * the identity was linked to when that account first signed in through the provider (oidc_identities), never a user
 * found by a name the provider lets its users change. None: the token is refused.
 */
import type { Db } from '../../db/database';
import { OidcIdentity } from '../../db/models';

export async function userForIdentity(db: Db, issuer: string, subject: string): Promise<string | null> {
  const identity = await OidcIdentity.query(db).findById([issuer, subject]).select('userId');
  return identity?.userId ?? null;
}
