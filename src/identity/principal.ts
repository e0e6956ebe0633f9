import type { Db } from '../db/database';
import { preparedStatement } from '../db/prepared';
import { forbidden } from '../http/errors';
import { expandPermissions, GlobalPermission, narrowToScopes } from './permissions';

/** The authenticated caller of one request, computed from the database on every request. */
export interface Principal {
  userId: string;
  username: string;
  groupIds: string[];
  /** Effective global permissions: group permissions expanded, narrowed by the key's scopes. */
  permissions: ReadonlySet<GlobalPermission>;
  authMethod: 'apiKey' | 'session';
  apiKeyId: string | null;
}

/** 403 `Permission denied` unless the caller holds the global permission. */
export function assertPermission(principal: Principal, permission: GlobalPermission): void {
  if (!principal.permissions.has(permission)) throw forbidden();
}

/** One row per (membership, group permission) of a user: what a principal is computed from. */
export interface MembershipRow {
  username: string;
  groupId: string | null;
  permission: string | null;
}

type Via = { authMethod: 'apiKey' | 'session'; apiKeyId: string | null; scopes: readonly string[] | null };

/**
 * SQL of the membership rows of the users joined so far (`users` must be in the FROM clause): the columns to select
 * and the joins that produce them. Fixed text, so that the statements using it can stay prepared.
 */
export const membershipColumnsSql = 'users.username, group_members.group_id AS "groupId", group_permissions.permission';
export const membershipJoinsSql =
  'LEFT JOIN group_members ON group_members.user_id = users.id LEFT JOIN group_permissions ON group_permissions.group_id = group_members.group_id';

/** Loads a user's live groups and expanded group permissions in one query; null when the user is gone. */
export async function loadPrincipal(db: Db, userId: string, via: Via): Promise<Principal | null> {
  const { rows } = await db
    .raw<{ rows: MembershipRow[] }>(`SELECT ${membershipColumnsSql} FROM users ${membershipJoinsSql} WHERE users.id = ?`, [userId])
    .options(preparedStatement('tessera_principal'));
  return rows.length === 0 ? null : principalFromRows(userId, rows, via);
}

export function principalFromRows(userId: string, rows: readonly MembershipRow[], via: Via): Principal {
  const groupIds = new Set<string>();
  const granted: string[] = [];
  for (const row of rows) {
    if (row.groupId) groupIds.add(row.groupId);
    if (row.permission) granted.push(row.permission);
  }
  return {
    userId,
    username: rows[0].username,
    groupIds: [...groupIds],
    permissions: narrowToScopes(expandPermissions(granted), via.scopes),
    authMethod: via.authMethod,
    apiKeyId: via.apiKeyId,
  };
}
