import type { Db } from '../db/database';
import { preparedStatement } from '../db/prepared';
import { notFound } from '../http/errors';
import type { Principal } from '../identity/principal';

export type BoardPermissionLevel = 'view' | 'modify' | 'full';

export interface BoardAccess {
  boardId: string;
  /** Internal revision, moved by every board write: what caches of the board key on. */
  revision: number;
  isPublic: boolean;
  creatorId: string | null;
  canView: boolean;
  canModify: boolean;
  canFull: boolean;
}

/** The caller's own rows on a board: user rows and rows of groups it belongs to. */
export interface OwnBoardRows {
  userPermissions: BoardPermissionLevel[];
  groupPermissions: BoardPermissionLevel[];
}

/**
 * Board permission resolution (homarr-facts §2.1): creator, the caller's user rows, rows of its groups,
 * the global board-*-all permissions (admin implies them), and isPublic for view. Anonymous callers only
 * ever view public boards.
 */
export function decideBoardAccess(
  board: { id: string; revision: number; isPublic: boolean; creatorId: string | null },
  principal: Principal | null,
  rows: OwnBoardRows,
): BoardAccess {
  const own = [...rows.userPermissions, ...rows.groupPermissions];
  const isCreator = principal !== null && board.creatorId === principal.userId;
  const has = (permission: 'board-view-all' | 'board-modify-all' | 'board-full-all') => principal?.permissions.has(permission) ?? false;
  const canFull = isCreator || own.includes('full') || has('board-full-all');
  const canModify = canFull || own.includes('modify') || has('board-modify-all');
  const canView = canModify || own.length > 0 || board.isPublic || has('board-view-all');
  return { boardId: board.id, revision: board.revision, isPublic: board.isPublic, creatorId: board.creatorId, canView, canModify, canFull };
}

/**
 * Loads the board's access facts for the caller in one query; null when the board does not exist. Runs on every
 * board request, so its text is fixed (groups as one array parameter) and PostgreSQL keeps it prepared.
 */
export async function loadBoardAccess(db: Db, boardId: string, principal: Principal | null): Promise<(BoardAccess & OwnBoardRows) | null> {
  const userId = principal?.userId ?? null;
  const groupIds = principal?.groupIds ?? [];
  const row: { id: string; revision: number; isPublic: boolean; creatorId: string | null; userPermissions: BoardPermissionLevel[]; groupPermissions: BoardPermissionLevel[] } | undefined =
    await db('boards')
      .where('boards.id', boardId)
      .first(
        'boards.id',
        'boards.revision',
        'boards.isPublic',
        'boards.creatorId',
        db('board_user_permissions')
          .whereRaw('board_user_permissions.board_id = boards.id')
          .andWhere('userId', userId ?? '')
          .select(db.raw(`coalesce(json_agg(permission ORDER BY permission), '[]'::json)`))
          .as('userPermissions'),
        db('board_group_permissions')
          .whereRaw('board_group_permissions.board_id = boards.id')
          .whereRaw('board_group_permissions.group_id = any(?::text[])', [groupIds])
          .select(db.raw(`coalesce(json_agg(permission ORDER BY permission), '[]'::json)`))
          .as('groupPermissions'),
      )
      .options(preparedStatement('tessera_board_access'));
  if (!row) return null;
  const rows = { userPermissions: principal ? row.userPermissions : [], groupPermissions: principal ? row.groupPermissions : [] };
  return { ...decideBoardAccess(row, principal, rows), ...rows };
}

export function allows(access: BoardAccess, level: BoardPermissionLevel): boolean {
  return level === 'full' ? access.canFull : level === 'modify' ? access.canModify : access.canView;
}

/**
 * 404 `Board not found` when the board is missing or the caller lacks the level, so that a permission
 * failure never reveals that a board exists.
 */
export async function assertBoardAccess(
  db: Db,
  boardId: string,
  principal: Principal | null,
  level: BoardPermissionLevel,
): Promise<BoardAccess & OwnBoardRows> {
  const access = await loadBoardAccess(db, boardId, principal);
  if (!access || !allows(access, level)) throw notFound('Board not found');
  return access;
}
