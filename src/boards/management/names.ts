import type { Db } from '../../db/database';
import { isUniqueViolation } from '../../db/errors';
import { conflict } from '../../core/errors';
import { Board } from '../../db/models';

export const nameConflictMessage = 'Board with similar name already exists';

/** The unique index on lower(boards.name): the database's word on name collisions, races included. */
export const boardNameIndex = 'boards_name_lower_unique';

/** The board with this name, letter case ignored (names are unique that way, NAME-2); undefined when none. */
export async function boardIdByName(db: Db, name: string): Promise<string | undefined> {
  const row: { id: string } | undefined = await Board.query(db).whereRaw('lower(name) = lower(?)', [name]).select('id').first();
  return row?.id;
}

/** The boards with these names, letter case ignored as in boardIdByName, by the name as asked, in one query. */
export async function boardIdsByNames(db: Db, names: readonly string[]): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const { rows }: { rows: { name: string; id: string }[] } = await db.raw(
    `SELECT asked.name, ${Board.tableName}.id FROM jsonb_array_elements_text(?::jsonb) AS asked(name)
     JOIN ${Board.tableName} ON lower(${Board.tableName}.name) = lower(asked.name)`,
    [JSON.stringify(names)],
  );
  return new Map(rows.map((row) => [row.name, row.id]));
}

/** 409 when another board (any letter case) already has the name; `exceptBoardId` lets a board re-case its own name. */
export async function assertBoardNameAvailable(db: Db, name: string, exceptBoardId?: string): Promise<void> {
  const query = Board.query(db).whereRaw('lower(name) = lower(?)', [name]).select('id').first();
  if (exceptBoardId !== undefined) query.whereNot('id', exceptBoardId);
  if (await query) throw conflict(nameConflictMessage);
}

/**
 * Runs a write that inserts or renames a board; a violation of the name index (a concurrent request took the
 * name between the check and the write) becomes the same 409.
 */
export async function withNameConflictAs409<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, boardNameIndex)) throw conflict(nameConflictMessage);
    throw error;
  }
}
