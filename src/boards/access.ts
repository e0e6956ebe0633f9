import type { GrantTables } from '../access/grants';
import { resolveLevels } from '../access/levels';
import type { Db } from '../db/database';
import { BatchedLookup, batchedLoad } from '../db/batchedLookup';
import { Board, BoardGroupPermission, BoardUserPermission } from '../db/models';
import { preparedStatement } from '../db/prepared';
import { notFound } from '../core/errors';
import { openApiDocument } from '../core/openapiDocument';
import type { KeyCompanionLookup } from '../identity/apiKeys';
import { boardInKeyScope, type Principal } from '../identity/principal';

export type BoardPermissionLevel = 'view' | 'modify' | 'full';
export const boardPermissionLevels: readonly BoardPermissionLevel[] = ['view', 'modify', 'full'];
export const boardGrantTables: GrantTables<BoardPermissionLevel> = {
  userModel: BoardUserPermission,
  groupModel: BoardGroupPermission,
  column: 'boardId',
  levels: boardPermissionLevels,
};

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
 * Board permission resolution (ACCESS-1): creator, the caller's user rows, rows of its groups,
 * the global board-*-all permissions (admin implies them), and isPublic for view. Anonymous callers only
 * ever view public boards. A board-scoped key (KEY-8) holds nothing on the boards it is not limited to.
 */
export function decideBoardAccess(
  board: { id: string; revision: number; isPublic: boolean; creatorId: string | null },
  principal: Principal | null,
  rows: OwnBoardRows,
): BoardAccess & OwnBoardRows {
  // KEY-8: to a key limited to other boards this one is as if it did not exist (public or not, whatever the owner holds).
  if (!boardInKeyScope(principal, board.id)) {
    return { boardId: board.id, revision: board.revision, isPublic: board.isPublic, creatorId: board.creatorId, canView: false, canModify: false, canFull: false, userPermissions: [], groupPermissions: [] };
  }
  // The creator holds full as if through a row of its own.
  const own = [...rows.userPermissions, ...rows.groupPermissions];
  if (principal !== null && board.creatorId === principal.userId) own.push('full');
  const held = resolveLevels(boardPermissionLevels, own, (level) => principal?.permissions.has(`board-${level}-all`) ?? false);
  // One literal (no spread of a partial result): V8 gives `{ ...a, b }` a hidden class of its own on every call.
  return {
    boardId: board.id,
    revision: board.revision,
    isPublic: board.isPublic,
    creatorId: board.creatorId,
    canView: held.view || board.isPublic,
    canModify: held.modify,
    canFull: held.full,
    userPermissions: rows.userPermissions,
    groupPermissions: rows.groupPermissions,
  };
}

interface AccessQuestion {
  boardId: string;
  userId: string | null;
  groupIds: readonly string[];
}

/** A board's access facts for one caller, as the database has them. */
export interface BoardAccessRow {
  id: string;
  revision: number;
  isPublic: boolean;
  creatorId: string | null;
  userPermissions: BoardPermissionLevel[];
  groupPermissions: BoardPermissionLevel[];
}

/**
 * SQL of the columns of a BoardAccessRow (`boards` in the FROM clause) for the user whose id is `userIdSql`, whose
 * groups are those `p.group_id` satisfying `groupMatchSql`.
 */
function boardAccessColumnsSql(userIdSql: string, groupMatchSql: string): string {
  const boards = Board.tableName;
  return `${boards}.id, ${boards}.revision, ${boards}.is_public AS "isPublic", ${boards}.creator_id AS "creatorId",
    (SELECT coalesce(json_agg(permission ORDER BY permission), '[]'::json) FROM ${BoardUserPermission.tableName} p
      WHERE p.board_id = ${boards}.id AND p.user_id = ${userIdSql}) AS "userPermissions",
    (SELECT coalesce(json_agg(permission ORDER BY permission), '[]'::json) FROM ${BoardGroupPermission.tableName} p
      WHERE p.board_id = ${boards}.id AND ${groupMatchSql}) AS "groupPermissions"`;
}

/**
 * The board access facts of an API key's owner, read in the key's own query (one round trip for a board request
 * with a key): the request pipeline passes it to authentication with the board id of the route.
 */
export const boardAccessCompanion: KeyCompanionLookup = {
  name: 'board_access',
  subquerySql: (ownerIdSql, ownerGroupMatchSql) =>
    `SELECT ${boardAccessColumnsSql(ownerIdSql, ownerGroupMatchSql)} FROM ${Board.tableName} WHERE ${Board.tableName}.id = asked.companion_id`,
};

const idSchema = openApiDocument.components?.schemas?.Id as { pattern: string; maxLength: number };
const idPattern = new RegExp(idSchema.pattern);

/**
 * The board access lookup as the request pipeline runs it with the API-key check: for operations under
 * `/api/boards/{id}`, the board of the path. Validation comes after authentication (a missing credential is a 401
 * before any 400), so the raw path segment is checked against the Id schema here: anything else gives no hint.
 */
export const boardAccessKeyCompanion = {
  lookup: boardAccessCompanion,
  idOf(operation: { path: string }, rawParams: Record<string, string>): string | undefined {
    if (!operation.path.startsWith('/api/boards/{id}')) return undefined;
    const id = rawParams.id;
    return id !== undefined && id.length <= idSchema.maxLength && idPattern.test(id) ? id : undefined;
  },
};

/** Each question's board with the asker's own permission rows (undefined when the board does not exist), in one query. */
async function loadAccessRows(db: Db, questions: readonly AccessQuestion[]): Promise<(BoardAccessRow | undefined)[]> {
  const asked = JSON.stringify(questions.map((q, i) => ({ i, board_id: q.boardId, user_id: q.userId ?? '', group_ids: q.groupIds })));
  const { rows } = await db
    .raw<{ rows: (BoardAccessRow & { i: number })[] }>(
      `SELECT asked.i, ${boardAccessColumnsSql('asked.user_id', 'p.group_id = any(asked.group_ids)')}
       FROM jsonb_to_recordset(?::jsonb) AS asked(i int, board_id text, user_id text, group_ids text[])
       JOIN ${Board.tableName} ON ${Board.tableName}.id = asked.board_id`,
      [asked],
    )
    .options(preparedStatement('tessera_board_access'));
  const answers: (BoardAccessRow | undefined)[] = new Array(questions.length);
  for (const { i, ...row } of rows) answers[i] = row;
  return answers;
}

const accessLookups = new WeakMap<Db, BatchedLookup<AccessQuestion, BoardAccessRow | undefined>>();

/**
 * Loads the board's access facts for the caller in one query; null when the board does not exist. Runs on every
 * board request: outside a transaction it shares its query with the access checks of concurrent requests, or uses
 * the facts read with the caller's API key for this request. Inside a transaction it reads in the transaction.
 */
export async function loadBoardAccess(db: Db, boardId: string, principal: Principal | null): Promise<(BoardAccess & OwnBoardRows) | null> {
  const known = principal?.companion;
  const row =
    known && known.name === boardAccessCompanion.name && known.id === boardId && !db.isTransaction
      ? (known.row as BoardAccessRow | undefined)
      : await batchedLoad(accessLookups, db, loadAccessRows, { boardId, userId: principal?.userId ?? null, groupIds: principal?.groupIds ?? [] });
  if (!row) return null;
  const rows = { userPermissions: principal ? row.userPermissions : [], groupPermissions: principal ? row.groupPermissions : [] };
  return decideBoardAccess(row, principal, rows);
}

export function allows(access: BoardAccess, level: BoardPermissionLevel): boolean {
  return level === 'full' ? access.canFull : level === 'modify' ? access.canModify : access.canView;
}

/** The board route's 404, for a missing board and a caller without the level alike (ACCESS-1). */
export const boardNotFound = () => notFound('Board not found');

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
  if (!access || !allows(access, level)) throw boardNotFound();
  return access;
}
