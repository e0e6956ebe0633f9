/**
 * Single sign-on's store (OIDC-*): the sign-ins under way, the identities by issuer and subject, the users they sign
 * in as, and the group memberships the provider's claim makes. Each write runs in the caller's transaction.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db/database';
import type { OidcConfig } from '../../config/config';
import { conflict, badRequest } from '../../core/errors';
import { isUniqueViolation } from '../../db/errors';
import { newId } from '../../db/ids';
import { Group, GroupMember, GroupPermission, OidcIdentity, OidcSignIn, Session, User } from '../../db/models';
import { hashToken, newSecretToken } from '../secrets';
import { keepingAnAdmin } from '../admins';
import { createSession } from '../sessions';
import { AccountClaims, emailOf, planGroupSync, usernameFor, verifiedEmail, type CurrentMembership } from './rules';

/** OIDC-20: how long a started sign-in can be finished. */
export const signInTtlSeconds = 600;

export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
}

/** OIDC-20: stores a started sign-in under the hash of a new cookie value, which it returns; drops expired ones. */
export async function beginSignIn(db: Db, pending: PendingSignIn): Promise<string> {
  const token = newSecretToken();
  await db.transaction(async (trx) => {
    await OidcSignIn.query(trx).where('expiresAt', '<', trx.raw('now()')).delete();
    await OidcSignIn.query(trx).insert({
      id: hashToken(token),
      ...pending,
      expiresAt: trx.raw(`now() + make_interval(secs => ?)`, [signInTtlSeconds]) as unknown as Date,
    });
  });
  return token;
}

/** OIDC-20: takes (deletes and returns) the live sign-in of a cookie value, once: a second callback finds none. */
export async function takeSignIn(db: Db, token: string): Promise<PendingSignIn | null> {
  // One statement: the row goes whoever asks second, and the database's clock decides whether it was still live.
  const { rows } = await db.raw<{ rows: (PendingSignIn & { live: boolean })[] }>(
    `DELETE FROM ${OidcSignIn.tableName} WHERE id = ?
     RETURNING state, nonce, code_verifier AS "codeVerifier", return_to AS "returnTo", expires_at > now() AS live`,
    [hashToken(token)],
  );
  const row = rows[0];
  if (!row?.live) return null;
  return { state: row.state, nonce: row.nonce, codeVerifier: row.codeVerifier, returnTo: row.returnTo };
}

export interface SignedInUser {
  userId: string;
  username: string;
  /** How the user was found: its identity, a local user linked now (OIDC-12), or created now (OIDC-11). */
  how: 'identity' | 'linked' | 'created';
}

const linkHint = 'an admin can allow a first sign-in to take over the local user with AUTH_OIDC_LINK_EXISTING=email or username';

/**
 * OIDC-10..12: the user of the provider's account: the one its (issuer, subject) is linked to; else, where the admin
 * allowed it, the local user with the same verified e-mail address or username (linked now); else a new user. A
 * username already taken is a 409, never a second user of that name.
 */
export async function userForAccount(trx: Knex.Transaction, oidc: OidcConfig, claims: AccountClaims): Promise<SignedInUser> {
  const known = (await OidcIdentity.query(trx)
    .join(User.tableName, `${User.tableName}.id`, `${OidcIdentity.tableName}.user_id`)
    .where({ issuer: oidc.issuer, subject: claims.sub })
    .select(`${User.tableName}.id as userId`, `${User.tableName}.username`)
    .first()) as unknown as { userId: string; username: string } | undefined;
  if (known) {
    await OidcIdentity.query(trx).findById([oidc.issuer, claims.sub]).patch({ lastSignInAt: trx.raw('now()') as unknown as Date });
    return { ...known, how: 'identity' };
  }
  const local = await linkCandidate(trx, oidc, claims);
  if (local) {
    const linkedElsewhere = await OidcIdentity.query(trx).where({ issuer: oidc.issuer, userId: local.id }).first();
    if (linkedElsewhere) throw conflict(`The local user "${local.username}" is already linked to another account of this provider`, { username: local.username });
    await insertIdentity(trx, oidc.issuer, claims.sub, local.id);
    return { userId: local.id, username: local.username, how: 'linked' };
  }
  const username = usernameFor(claims);
  if (!username) throw badRequest('The provider gave no name Tessera can use as a username (preferred_username, email or sub of letters, digits, _ . @ -)');
  const taken = await User.query(trx).whereRaw('lower(username) = lower(?)', [username]).select('id').first();
  if (taken) throw conflict(`A local user named "${username}" already exists; ${linkHint}`, { username });
  const userId = newId();
  try {
    await User.query(trx).insert({ id: userId, username, email: emailOf(claims), passwordHash: null });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A local user named "${username}" already exists; ${linkHint}`, { username });
    throw error;
  }
  await insertIdentity(trx, oidc.issuer, claims.sub, userId);
  return { userId, username, how: 'created' };
}

async function insertIdentity(trx: Knex.Transaction, issuer: string, subject: string, userId: string): Promise<void> {
  try {
    await OidcIdentity.query(trx).insert({ issuer, subject, userId });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('Another sign-in of this account was finished at the same time; sign in again');
    throw error;
  }
}

/** OIDC-12: the local user a first sign-in may take over, as AUTH_OIDC_LINK_EXISTING allows (one match only). */
async function linkCandidate(trx: Knex.Transaction, oidc: OidcConfig, claims: AccountClaims): Promise<{ id: string; username: string } | null> {
  if (oidc.linkExisting === 'email') {
    const email = verifiedEmail(claims);
    if (!email) return null;
    const matches: { id: string; username: string }[] = await User.query(trx).whereRaw('lower(email) = lower(?)', [email]).select('id', 'username').limit(2);
    return matches.length === 1 ? matches[0] : null;
  }
  if (oidc.linkExisting === 'username') {
    const name = claims.preferred_username;
    if (typeof name !== 'string' || name === '') return null;
    return ((await User.query(trx).whereRaw('lower(username) = lower(?)', [name]).select('id', 'username').first()) as { id: string; username: string } | undefined) ?? null;
  }
  return null;
}

export interface GroupSyncResult {
  joined: string[];
  left: string[];
}

/**
 * OIDC-14, OIDC-15: applies the claim's groups to the user's provider memberships (groups created when missing; the
 * admin group mapping gives its group `admin`). ADMIN-1: refused with 409 when it would leave no user with `admin`.
 */
export async function syncGroups(trx: Knex.Transaction, userId: string, claimed: readonly string[], adminGroup: string | null): Promise<GroupSyncResult> {
  return keepingAnAdmin(trx, async () => {
    const current = (await GroupMember.query(trx)
      .join(Group.tableName, `${Group.tableName}.id`, `${GroupMember.tableName}.group_id`)
      .where(`${GroupMember.tableName}.user_id`, userId)
      .select(`${GroupMember.tableName}.group_id as groupId`, `${Group.tableName}.name`, `${GroupMember.tableName}.via_provider as viaProvider`)) as unknown as CurrentMembership[];
    const plan = planGroupSync(current, claimed);
    const joined: string[] = [];
    for (const name of plan.join) {
      await trx.raw(`INSERT INTO ${Group.tableName} (id, name) VALUES (?, ?) ON CONFLICT ((lower(name))) DO NOTHING`, [newId(), name]);
      const group = (await Group.query(trx).whereRaw('lower(name) = lower(?)', [name]).select('id', 'name').first()) as { id: string; name: string };
      await GroupMember.query(trx).insert({ groupId: group.id, userId, viaProvider: true }).onConflict(['groupId', 'userId']).ignore();
      joined.push(group.name);
    }
    if (plan.leave.length > 0) await GroupMember.query(trx).where({ userId, viaProvider: true }).whereIn('groupId', plan.leave).delete();
    if (adminGroup !== null && claimed.some((name) => name.toLowerCase() === adminGroup.toLowerCase())) {
      const group = (await Group.query(trx).whereRaw('lower(name) = lower(?)', [adminGroup]).select('id').first()) as { id: string } | undefined;
      if (group) await GroupPermission.query(trx).insert({ groupId: group.id, permission: 'admin' }).onConflict(['groupId', 'permission']).ignore();
    }
    const left = current.filter((membership) => plan.leave.includes(membership.groupId)).map((membership) => membership.name);
    return { joined, left };
  });
}

/** SEC-1 as for a password sign-in, plus OIDC-17: the session remembers its issuer and ID token for the provider's logout. */
export async function createProviderSession(trx: Knex.Transaction, userId: string, ttlSeconds: number, issuer: string, idToken: string) {
  const session = await createSession(trx, userId, ttlSeconds);
  await Session.query(trx).findById(hashToken(session.token)).patch({ oidcIssuer: issuer, oidcIdToken: idToken });
  return session;
}

/** OIDC-17: the provider of a session (and its ID token), or null for a password session or none. */
export async function providerOfSession(db: Db, token: string): Promise<{ issuer: string; idToken: string | null } | null> {
  const row = (await Session.query(db).findById(hashToken(token)).select('oidcIssuer', 'oidcIdToken')) as { oidcIssuer: string | null; oidcIdToken: string | null } | undefined;
  return row?.oidcIssuer ? { issuer: row.oidcIssuer, idToken: row.oidcIdToken } : null;
}
