import type { Db } from '../db/database';
import { preparedStatement } from '../db/prepared';
import { forbidden } from '../core/errors';
import { expandPermissions, GlobalPermission, narrowToScopes } from './permissions';
import { GroupMember, GroupPermission, User } from '../db/models';
import type { McpMode } from '../config/config';

/** The authenticated caller of one request, computed from the database on every request. */
export interface Principal {
  userId: string;
  username: string;
  groupIds: string[];
  /** Effective global permissions: group permissions expanded, narrowed by the key's scopes. */
  permissions: ReadonlySet<GlobalPermission>;
  /** MCPAUTH-5: `oauth` is a provider access token on the MCP endpoint (acting as its user, like an unscoped key). */
  authMethod: AuthMethod;
  apiKeyId: string | null;
  /** For an API-key caller, what the key holds beyond its owner's rights: what keys it may mint and manage (see apiKeys). */
  keyBounds?: KeyBounds;
  /**
   * The row a companion lookup read about the resource `id` in the same query as the API key (see
   * KeyCompanionLookup in apiKeys): the lookup's owner then needs no query of its own. Request-scoped like the
   * principal; undefined `row` = no such resource.
   */
  companion?: { name: string; id: string; row: unknown };
}

export type AuthMethod = 'apiKey' | 'session' | 'oauth';

/**
 * The bounds of an API key: its scopes (null = all of its owner's permissions) and its expiry (null = never); and
 * what it reaches beyond its scopes (KEY-7..KEY-10): the boards it is limited to (null or absent = not limited), the
 * MCP mode it narrows the server's to (null = the server's) and whether it may apply its own MCP proposals.
 */
export interface KeyBounds {
  scopes: readonly GlobalPermission[] | null;
  expiresAt: Date | null;
  boardIds?: readonly string[] | null;
  mcpMode?: McpMode | null;
  agentApprove?: boolean;
}

/**
 * KEY-7, KEY-8: whether the board is within the caller's reach at all: every board but for a board-scoped key, whose
 * other boards are as if they did not exist (decideBoardAccess and the board list ask this, so every surface does).
 */
export function boardInKeyScope(principal: Principal | null, boardId: string): boolean {
  const boardIds = principal?.keyBounds?.boardIds;
  return !boardIds || boardIds.includes(boardId);
}

/** KEY-8: the boards a board-scoped key is limited to, else null. */
export const keyBoardScope = (principal: Principal | null): readonly string[] | null => principal?.keyBounds?.boardIds ?? null;

/** KEY-8: 403 for a board-scoped key on a route that creates a board (it could reach no board it made). */
export const boardScopedKeyCannotCreate = () =>
  forbidden('Permission denied: an API key limited to boards cannot create boards');

/** 403 `Permission denied` unless the caller holds the global permission. */
export function assertPermission(principal: Principal, permission: GlobalPermission): void {
  if (permission === 'board-create' && keyBoardScope(principal) !== null) throw boardScopedKeyCannotCreate();
  if (!principal.permissions.has(permission)) throw forbidden();
}

/** One (group, group permission) pair of a user; `permission` is null for a group without permissions. */
export interface Membership {
  groupId: string;
  permission: string | null;
}

type Via = {
  authMethod: AuthMethod;
  apiKeyId: string | null;
  scopes: readonly GlobalPermission[] | null;
  /** The key's expiry, for an API-key caller. */
  expiresAt?: Date | null;
  /** KEY-7..KEY-10, for an API-key caller. */
  boardIds?: readonly string[] | null;
  mcpMode?: McpMode | null;
  agentApprove?: boolean;
};

/**
 * SQL of a user's memberships as one JSON array of {groupId, permission}; `userIdSql` is the SQL of the user's id.
 * Fixed text for a fixed argument, so that the statements using it can stay prepared.
 */
export const membershipsJsonSql = (userIdSql: string) =>
  `(SELECT coalesce(json_agg(json_build_object('groupId', gm.group_id, 'permission', gp.permission)), '[]'::json)
    FROM ${GroupMember.tableName} gm LEFT JOIN ${GroupPermission.tableName} gp ON gp.group_id = gm.group_id WHERE gm.user_id = ${userIdSql})`;

/** Loads a user's live groups and expanded group permissions in one query; null when the user is gone. */
export async function loadPrincipal(db: Db, userId: string, via: Via): Promise<Principal | null> {
  const { rows } = await db
    .raw<{ rows: { username: string; memberships: Membership[] }[] }>(
      `SELECT u.username, ${membershipsJsonSql('u.id')} AS memberships FROM ${User.tableName} u WHERE u.id = ?`,
      [userId],
    )
    .options(preparedStatement('tessera_principal'));
  return rows.length === 0 ? null : principalFromMemberships({ id: userId, username: rows[0].username }, rows[0].memberships, via);
}

export function principalFromMemberships(user: { id: string; username: string }, memberships: readonly Membership[], via: Via): Principal {
  const groupIds = new Set<string>();
  const granted: string[] = [];
  for (const membership of memberships) {
    groupIds.add(membership.groupId);
    if (membership.permission) granted.push(membership.permission);
  }
  const principal: Principal = {
    userId: user.id,
    username: user.username,
    groupIds: [...groupIds],
    permissions: narrowToScopes(expandPermissions(granted), via.scopes),
    authMethod: via.authMethod,
    apiKeyId: via.apiKeyId,
  };
  if (via.authMethod === 'apiKey') {
    principal.keyBounds = { scopes: via.scopes, expiresAt: via.expiresAt ?? null, boardIds: via.boardIds ?? null, mcpMode: via.mcpMode ?? null, agentApprove: via.agentApprove ?? false };
  }
  return principal;
}

/** What PRIV-1 needs to know of a reader: who it is and whether it holds `admin` (a plain value, kept with a board state). */
export interface EmailReader {
  userId: string | null;
  admin: boolean;
}

export const emailReaderOf = (principal: Principal | null): EmailReader => ({ userId: principal?.userId ?? null, admin: principal?.permissions.has('admin') ?? false });

/** PRIV-1: a user's e-mail address is shown to the user itself and to admins only. */
export const maySeeEmailOf = (reader: EmailReader, ownerId: string | null): boolean => reader.admin || (ownerId !== null && reader.userId === ownerId);

/** PRIV-1: the e-mail address as `reader` is shown it, null for everybody but its owner and admins. */
export const emailAsSeenBy = (reader: EmailReader, ownerId: string | null, email: string | null): string | null => (maySeeEmailOf(reader, ownerId) ? email : null);
