import type { Db } from '../db/database';
import { badRequest } from '../core/errors';
import { Board, ServerSetting } from '../db/models';

/** Server-wide board defaults, stored as jsonb in server_settings under the key `board` (SET-2). */
export interface ServerBoardSettings {
  homeBoardId: string | null;
  mobileHomeBoardId: string | null;
  enableStatusByDefault: boolean;
  forceDisableStatus: boolean;
}

export const boardSettingsKey = 'board';

export const defaultServerBoardSettings: ServerBoardSettings = {
  homeBoardId: null,
  mobileHomeBoardId: null,
  enableStatusByDefault: true,
  forceDisableStatus: false,
};

function withDefaults(stored: Partial<ServerBoardSettings> | null | undefined): ServerBoardSettings {
  const merged = { ...defaultServerBoardSettings };
  for (const key of Object.keys(defaultServerBoardSettings) as (keyof ServerBoardSettings)[]) {
    if (stored && stored[key] !== undefined) (merged as Record<string, unknown>)[key] = stored[key];
  }
  return merged;
}

export async function readServerBoardSettings(db: Db): Promise<ServerBoardSettings> {
  const row: { value: Partial<ServerBoardSettings> } | undefined = await ServerSetting.query(db).findById(boardSettingsKey).select('value').castTo<{ value: Partial<ServerBoardSettings> } | undefined>();
  return withDefaults(row?.value);
}

/**
 * Locks the `board` settings row for the rest of the transaction (creating it when absent, so that there is
 * a row to lock) and returns the settings. Every transaction that touches both the settings and a board
 * takes this lock first, so they always lock in the same order and cannot deadlock.
 */
export async function lockServerBoardSettings(trx: Db, mode: 'share' | 'update'): Promise<ServerBoardSettings> {
  await ServerSetting.query(trx).insert({ key: boardSettingsKey, value: JSON.stringify({}) }).onConflict('key').ignore();
  const query = ServerSetting.query(trx).findById(boardSettingsKey).select('value');
  const row = await (mode === 'share' ? query.forShare() : query.forUpdate()).castTo<{ value: Partial<ServerBoardSettings> } | undefined>();
  return withDefaults(row?.value);
}

/**
 * PATCH /api/settings/board: shallow merge of the supplied fields over the stored settings. Non-null home
 * board ids must reference existing public boards (400 listing the offending ids). One transaction; the
 * merge itself is done by the database (jsonb `||` in an upsert), so concurrent patches never lose a field.
 */
export async function updateServerBoardSettings(db: Db, patch: Partial<ServerBoardSettings>): Promise<ServerBoardSettings> {
  const supplied = Object.fromEntries(Object.entries(patch).filter(([key, value]) => key in defaultServerBoardSettings && value !== undefined));
  return db.transaction(async (trx) => {
    await lockServerBoardSettings(trx, 'update');
    const homeIds = [...new Set([supplied.homeBoardId, supplied.mobileHomeBoardId].filter((id): id is string => typeof id === 'string'))];
    if (homeIds.length > 0) {
      // FOR SHARE: a concurrent visibility change of these boards waits for this transaction.
      const publicRows: { id: string }[] = await Board.query(trx).whereIn('id', homeIds).where('isPublic', true).forShare().select('id');
      const publicIds = new Set(publicRows.map((row) => row.id));
      const offending = homeIds.filter((id) => !publicIds.has(id));
      if (offending.length > 0) {
        throw badRequest(`Board settings home board IDs must reference public boards: ${offending.join(', ')}`, { boardIds: offending });
      }
    }
    const [row] = await ServerSetting.query(trx)
      .patch({ value: trx.raw(`${ServerSetting.tableName}.value || ?::jsonb`, [JSON.stringify(supplied)]) })
      .where({ key: boardSettingsKey })
      .returning('value')
      .castTo<{ value: Partial<ServerBoardSettings> }[]>();
    return withDefaults(row?.value);
  });
}

/** Clears the server-wide home pointers naming the board (used when the board is deleted). */
export async function clearServerHomeBoard(trx: Db, boardId: string): Promise<void> {
  const settings = await lockServerBoardSettings(trx, 'update');
  const cleared: Partial<ServerBoardSettings> = {};
  if (settings.homeBoardId === boardId) cleared.homeBoardId = null;
  if (settings.mobileHomeBoardId === boardId) cleared.mobileHomeBoardId = null;
  if (Object.keys(cleared).length === 0) return;
  await ServerSetting.query(trx)
    .findById(boardSettingsKey)
    .patch({ value: trx.raw(`${ServerSetting.tableName}.value || ?::jsonb`, [JSON.stringify(cleared)]) });
}
