/**
 * What the board page needs of apps (VIEW-2, PING-1): the app records a board's widgets name, and their
 * reachability, each only for apps the caller may read and only on a board it may view.
 */
import type { Db } from '../db/database';
import type { PingConfig } from '../config/config';
import type { Principal } from '../identity/principal';
import { assertBoardAccess } from '../boards/access';
import { whereAmong } from '../db/idList';
import { loadAppAccess } from './access';
import { placedAppIds } from './placements';
import { appStatuses, pingTarget, type AppStatus } from './reachability';
import { App, AppPlacement, Board, Item } from '../db/models';

export interface BoardApp {
  id: string;
  name: string;
  description: string | null;
  iconUrl: string;
  href: string | null;
}

interface ItemRow {
  kind: string;
  options: unknown;
}

async function appItems(db: Db, boardId: string): Promise<ItemRow[]> {
  return Item.query(db).where({ boardId }).whereIn('kind', ['app', 'bookmarks']).select('kind', 'options').castTo<ItemRow[]>();
}

/**
 * VIEW-2: of `ids`, the apps the caller may read, by the rule of `GET /api/apps/{id}` (readApp): use access, or a
 * vouched placement on a public board (APP-3). Three queries whatever the count.
 */
async function readableApps(db: Db, principal: Principal | null, ids: readonly string[]): Promise<(BoardApp & { pingUrl: string | null })[]> {
  if (ids.length === 0) return [];
  const apps = await App.query(db)
    .modify(whereAmong, `${App.tableName}.id`, ids)
    .select('id', 'name', 'description', 'iconUrl', 'href', 'pingUrl')
    .orderBy([{ column: 'name' }, { column: 'id' }])
    .castTo<(BoardApp & { pingUrl: string | null })[]>();
  if (apps.length === 0) return [];
  const access = principal ? await loadAppAccess(db, principal, apps.map((app) => app.id)) : new Map();
  const others = apps.filter((app) => !access.get(app.id)?.hasUseAccess).map((app) => app.id);
  const published = others.length
    ? await AppPlacement.query(db)
        .join(Item.tableName, `${Item.tableName}.id`, `${AppPlacement.tableName}.itemId`)
        .join(Board.tableName, `${Board.tableName}.id`, `${Item.tableName}.boardId`)
        .modify(whereAmong, `${AppPlacement.tableName}.app_id`, others)
        .where(`${Board.tableName}.isPublic`, true)
        .distinct(`${AppPlacement.tableName}.appId`)
        .castTo<{ appId: string }[]>()
    : [];
  const publicIds = new Set(published.map((row) => row.appId));
  return apps.filter((app) => access.get(app.id)?.hasUseAccess || publicIds.has(app.id));
}

/** VIEW-2: the readable apps the board's `app` and `bookmarks` widgets name; 404 `Board not found` without view access. */
export async function listBoardApps(db: Db, principal: Principal | null, boardId: string): Promise<BoardApp[]> {
  await assertBoardAccess(db, boardId, principal, 'view');
  const items = await appItems(db, boardId);
  const apps = await readableApps(db, principal, [...new Set(items.flatMap((item) => placedAppIds(item)))]);
  return apps.map(({ id, name, description, iconUrl, href }) => ({ id, name, description, iconUrl, href }));
}

/** PING-1: the apps whose reachability a board shows: named by an `app` widget with `pingEnabled: true`. Pure. */
export function pingedAppIds(items: readonly ItemRow[]): string[] {
  const ids = items.flatMap((item) => {
    const options = typeof item.options === 'object' && item.options !== null ? (item.options as Record<string, unknown>) : {};
    return item.kind === 'app' && options.pingEnabled === true && typeof options.appId === 'string' ? [options.appId] : [];
  });
  return [...new Set(ids)];
}

/**
 * PING-1: the reachability of the readable apps the board's `app` widgets ask to ping; 404 `Board not found` without
 * view access. Nothing else is ever checked: the addresses are those of app records on a board the caller can view.
 */
export async function boardAppStatuses(db: Db, principal: Principal | null, boardId: string, config: PingConfig): Promise<AppStatus[]> {
  await assertBoardAccess(db, boardId, principal, 'view');
  const apps = await readableApps(db, principal, pingedAppIds(await appItems(db, boardId)));
  const statuses = await appStatuses(db, apps.map((app) => ({ appId: app.id, url: pingTarget(app) })), config);
  // PING-7: an anonymous viewer (of a public board) is told up or down, never the status code an internal address
  // answered (a 401 or a 302 says what runs there).
  return principal ? statuses : statuses.map((status) => ({ ...status, httpStatus: null }));
}
