/**
 * FLEET-16: what changed on the server since a set file's base, and who changed it. Read under the board's lock, in
 * the set's transaction: the board as it stands (`current`), its history entries since the base, and the revision
 * diff from the base to now (HIST-5's comparison, without a second snapshot of the board).
 */
import type { Knex } from 'knex';
import { ApiError } from '../../core/errors';
import { compareStates, noChanges, type BoardChanges } from '../document/changes';
import type { BoardState } from '../document/model';
import { revisionState, toHistoryEntry, type HistoryEntry } from '../history/history';
import { listEntries } from '../history/store';

export interface BoardConflict {
  /** The board's version and history revision at the base (the revision null when the file names none). */
  baseVersion: number;
  baseRevision: number | null;
  /** The board's version now. */
  version: number;
  /** From the base revision to now; null when that revision is not in the history (any more). */
  serverChanges: BoardChanges | null;
  /** The entries written since the base, newest first, at most `maxChangedBy`. */
  changedBy: HistoryEntry[];
}

/** The history entries a conflict lists (and looks through for the set's own last write). */
export const maxChangedBy = 20;

/**
 * The file's base: its `source` (version, revision), or, when the set's label wrote the board after that revision,
 * that write (FLEET-9: the repository's own applies are not another writer's changes). Returns null when the board
 * is again what it was at the base (a restore, say): nothing made on the server is then at stake (as CLI-2 decides
 * for a single file).
 */
export async function conflictSinceBase(
  trx: Knex,
  current: BoardState,
  source: { version: number; revision: number | null },
  managedBy: string,
): Promise<BoardConflict | null> {
  const boardId = current.board.id;
  let base = { version: source.version, revision: source.revision };
  const changedBy: HistoryEntry[] = [];
  for (const row of await listEntries(trx, boardId, 4 * maxChangedBy)) {
    if (source.revision !== null && row.revision <= source.revision) break;
    if (row.origin?.managedBy === managedBy) {
      base = { version: row.version, revision: row.revision };
      break;
    }
    if (changedBy.length < maxChangedBy) changedBy.push(toHistoryEntry(row));
  }
  const serverChanges = base.revision === null ? null : await changesSince(trx, current, base.revision);
  if (serverChanges && noChanges(serverChanges)) return null;
  return { baseVersion: base.version, baseRevision: base.revision, version: current.board.version, serverChanges, changedBy };
}

async function changesSince(trx: Knex, current: BoardState, revision: number): Promise<BoardChanges | null> {
  try {
    return compareStates(await revisionState(trx, current.board.id, revision, current), current);
  } catch (error) {
    // The revision left the history (HIST-7 retention) or never was in it.
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}
