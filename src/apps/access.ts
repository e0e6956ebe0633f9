import type { QueryBuilder } from 'objection';
import type { GrantTables } from '../access/grants';
import { resolveLevels } from '../access/levels';
import type { Db } from '../db/database';
import { forbidden, notFound } from '../core/errors';
import type { Principal } from '../identity/principal';
import { whereAmong } from '../db/idList';
import { App, AppGroupPermission, AppPlacement, AppUserPermission, Board, Item } from '../db/models';

export type AppPermissionLevel = 'use' | 'modify' | 'full';
export const appPermissionLevels: readonly AppPermissionLevel[] = ['use', 'modify', 'full'];
export const appGrantTables: GrantTables<AppPermissionLevel> = {
  userModel: AppUserPermission,
  groupModel: AppGroupPermission,
  column: 'appId',
  levels: appPermissionLevels,
};

export interface AppAccessFlags {
  hasUseAccess: boolean;
  hasModifyAccess: boolean;
  hasFullAccess: boolean;
}

/** App permission resolution (ACCESS-3), the one rule for every app route: the access lattice over use/modify/full. */
export function decideAppAccess(principal: Principal | null, ownLevels: readonly AppPermissionLevel[]): AppAccessFlags {
  const held = resolveLevels(appPermissionLevels, ownLevels, (level) => principal?.permissions.has(`app-${level}-all`) ?? false);
  return { hasUseAccess: held.use, hasModifyAccess: held.modify, hasFullAccess: held.full };
}

/**
 * Narrows an `apps` query to the apps the caller has use access to: the SQL form of `decideAppAccess(...).hasUseAccess`
 * (any own row, or a global permission that yields use on every app), for lists that page and count in SQL.
 */
export function whereVisibleApp<Q extends QueryBuilder<App, App[]>>(query: Q, db: Db, principal: Principal): Q {
  if (decideAppAccess(principal, []).hasUseAccess) return query;
  const groupIds = principal.groupIds.length > 0 ? principal.groupIds : [''];
  return query.where((q) =>
    q
      .whereExists(AppUserPermission.query(db).whereRaw(`${AppUserPermission.tableName}.app_id = ${App.tableName}.id`).andWhere('userId', principal.userId).select(db.raw('1')))
      .orWhereExists(
        AppGroupPermission.query(db).whereRaw(`${AppGroupPermission.tableName}.app_id = ${App.tableName}.id`).whereIn('groupId', groupIds).select(db.raw('1')),
      ),
  );
}

/** The caller's flags on the given apps, keyed by id (ids that do not exist are absent). Two queries. */
export async function loadAppAccess(db: Db, principal: Principal | null, ids: readonly string[]): Promise<Map<string, AppAccessFlags>> {
  if (ids.length === 0) return new Map();
  const levels = await loadOwnLevels(db, principal, ids);
  const existing: { id: string }[] = await App.query(db).modify(whereAmong, 'id', ids).select('id');
  return new Map(existing.map(({ id }) => [id, decideAppAccess(principal, levels.get(id) ?? [])]));
}

/** The caller's own user and group rows on the given apps. */
export async function loadOwnLevels(db: Db, principal: Principal | null, ids: readonly string[]): Promise<Map<string, AppPermissionLevel[]>> {
  const levels = new Map<string, AppPermissionLevel[]>();
  if (!principal || ids.length === 0) return levels;
  const groupIds = principal.groupIds.length > 0 ? principal.groupIds : [''];
  const rows: { appId: string; permission: AppPermissionLevel }[] = await db
    .select('appId', 'permission')
    .from(AppUserPermission.tableName)
    .modify(whereAmong, 'appId', ids)
    .andWhere('userId', principal.userId)
    .unionAll((q) => q.select('appId', 'permission').from(AppGroupPermission.tableName).modify(whereAmong, 'appId', ids).whereIn('groupId', groupIds));
  for (const row of rows) levels.set(row.appId, [...(levels.get(row.appId) ?? []), row.permission]);
  return levels;
}

/**
 * Gate of the write routes on one app: 404 `App not found` when the app is missing or the caller has no use
 * access (so that a missing grant never reveals the app), 403 `Permission denied` when visible but the level
 * needed is not held.
 */
export async function assertAppAccess(db: Db, appId: string, principal: Principal, level: 'modify' | 'full'): Promise<AppAccessFlags> {
  const flags = (await loadAppAccess(db, principal, [appId])).get(appId);
  if (!flags || !flags.hasUseAccess) throw notFound('App not found');
  if (level === 'full' ? !flags.hasFullAccess : !flags.hasModifyAccess) throw forbidden();
  return flags;
}

/**
 * True when a vouched placement of the app (an app or bookmarks widget written by someone who could use the app,
 * src/apps/placements.ts) is on a public board: such apps are readable by anyone (APP-3). A placement
 * nobody with use access wrote does not count.
 */
export async function isPlacedOnPublicBoard(db: Db, appId: string): Promise<boolean> {
  const row = await AppPlacement.query(db)
    .join(Item.tableName, Item.col('id'), AppPlacement.col('itemId'))
    .join(Board.tableName, Board.col('id'), Item.col('boardId'))
    .where(AppPlacement.col('appId'), appId)
    .where(Board.col('isPublic'), true)
    .select(db.raw('1 as found'))
    .first();
  return row !== undefined;
}
