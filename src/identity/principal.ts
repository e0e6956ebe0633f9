import type { Db } from '../db/database';
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

export function hasPermission(principal: Principal | null, permission: GlobalPermission): boolean {
  return principal !== null && principal.permissions.has(permission);
}

/** 403 `Permission denied` unless the caller holds the global permission. */
export function assertPermission(principal: Principal, permission: GlobalPermission): void {
  if (!principal.permissions.has(permission)) throw forbidden();
}

/** Loads a user's live groups and expanded group permissions in one query; null when the user is gone. */
export async function loadPrincipal(
  db: Db,
  userId: string,
  via: { authMethod: 'apiKey' | 'session'; apiKeyId: string | null; scopes: readonly string[] | null },
): Promise<Principal | null> {
  const rows: { username: string; groupId: string | null; permission: string | null }[] = await db('users')
    .leftJoin('group_members', 'group_members.user_id', 'users.id')
    .leftJoin('group_permissions', 'group_permissions.group_id', 'group_members.group_id')
    .where('users.id', userId)
    .select('users.username', 'group_members.group_id', 'group_permissions.permission');
  if (rows.length === 0) return null;
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
