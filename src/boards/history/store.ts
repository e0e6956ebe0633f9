/** The queries of board history (table board_history, migration 0005). */
import type { Knex } from 'knex';
import type { BoardSnapshot, SnapshotDelta } from './snapshot';
import type { HistorySummary } from './summary';
import { BoardHistoryEntry } from '../../db/models';

export interface HistoryRow {
  boardId: string;
  revision: number;
  version: number;
  at: Date;
  operation: string;
  actorUserId: string | null;
  actorName: string | null;
  apiKeyId: string | null;
  summary: HistorySummary;
  /** FLEET-8: the commit (or message) a set apply was made from; null for other writes. */
  origin: HistoryOrigin | null;
}

/** FLEET-8: where a change came from: the set's `managedBy`, the commit id and its subject (or a message). */
export interface HistoryOrigin {
  managedBy: string | null;
  commit: string | null;
  message: string | null;
}

export interface ChainPosition {
  revision: number;
  chainBytes: number;
  chainLength: number;
  snapshotBytes: number;
}

/** FLEET-9: the version and origin of the board's newest entry; undefined when the board has no history. */
export async function latestOrigin(trx: Knex, boardId: string): Promise<{ version: number; origin: HistoryOrigin | null } | undefined> {
  return BoardHistoryEntry.query(trx).where({ boardId }).orderBy('revision', 'desc').select('version', 'origin').first().castTo<{ version: number; origin: HistoryOrigin | null } | undefined>();
}

/** The newest entry's place in its chain of deltas; undefined when the board has no history yet. */
export async function latestPosition(trx: Knex, boardId: string): Promise<ChainPosition | undefined> {
  return BoardHistoryEntry.query(trx)
    .where({ boardId })
    .orderBy('revision', 'desc')
    .select('revision', 'chainBytes', 'chainLength', 'snapshotBytes')
    .first();
}

export interface NewEntry extends Omit<HistoryRow, 'at'> {
  reverseDelta: SnapshotDelta | null;
  snapshot: BoardSnapshot | null;
  deltaBytes: number;
  chainBytes: number;
  chainLength: number;
  snapshotBytes: number;
}

/**
 * HIST-8: `at` is the time of the insert, taken under the board's lock (not the transaction's start, which may come
 * before a wait for the lock), so a newer revision never carries an older time than the one before it.
 */
export async function insertEntry(trx: Knex, entry: NewEntry): Promise<void> {
  await BoardHistoryEntry.query(trx).insert({
    ...entry,
    at: trx.raw('clock_timestamp()'),
    summary: JSON.stringify(entry.summary),
    origin: entry.origin === null ? null : JSON.stringify(entry.origin),
    reverseDelta: entry.reverseDelta === null ? null : JSON.stringify(entry.reverseDelta),
    snapshot: entry.snapshot === null ? null : JSON.stringify(entry.snapshot),
  });
}

/** Deletes the entries older than the newest `keep`, except the creation entry (revision 1). */
export async function trimEntries(trx: Knex, boardId: string, newest: number, keep: number): Promise<void> {
  if (newest - keep <= 1) return;
  await BoardHistoryEntry.query(trx).where({ boardId }).andWhere('revision', '>', 1).andWhere('revision', '<=', newest - keep).delete();
}

const entryColumns = ['boardId', 'revision', 'version', 'at', 'operation', 'actorUserId', 'actorName', 'apiKeyId', 'summary', 'origin'];

/** Entries newest first, below `beforeRevision` when given. */
export async function listEntries(db: Knex, boardId: string, limit: number, beforeRevision?: number): Promise<HistoryRow[]> {
  const query = BoardHistoryEntry.query(db).where({ boardId }).orderBy('revision', 'desc').limit(limit).select(entryColumns);
  if (beforeRevision !== undefined) query.andWhere('revision', '<', beforeRevision);
  return query.castTo<HistoryRow[]>();
}

export async function findEntry(db: Knex, boardId: string, revision: number): Promise<HistoryRow | undefined> {
  return BoardHistoryEntry.query(db).findById([boardId, revision]).select(entryColumns).castTo<HistoryRow | undefined>();
}

/** The entries from `revision` up to the nearest snapshot at or above it (or the newest), newest first. */
export async function loadChain(
  db: Knex,
  boardId: string,
  revision: number,
): Promise<{ revision: number; reverseDelta: SnapshotDelta | null; snapshot: BoardSnapshot | null }[]> {
  const { rows } = await db.raw<{ rows: { revision: number; reverseDelta: SnapshotDelta | null; snapshot: BoardSnapshot | null }[] }>(
    `WITH top AS (SELECT min(revision) AS revision FROM ${BoardHistoryEntry.tableName} WHERE board_id = ? AND revision >= ? AND snapshot IS NOT NULL)
     SELECT h.revision, h.reverse_delta AS "reverseDelta", CASE WHEN h.revision = top.revision THEN h.snapshot END AS snapshot
     FROM ${BoardHistoryEntry.tableName} h, top
     WHERE h.board_id = ? AND h.revision >= ? AND (top.revision IS NULL OR h.revision <= top.revision)
     ORDER BY h.revision DESC`,
    [boardId, revision, boardId, revision],
  );
  return rows;
}

/** Bytes of history kept for a board, as stored (for the benchmark). */
export async function historyBytes(db: Knex, boardId: string): Promise<number> {
  const row = await BoardHistoryEntry.table(db)
    .where({ boardId })
    .first(db.raw(`coalesce(sum(pg_column_size(${BoardHistoryEntry.tableName}.*)), 0)::int AS bytes`));
  return row?.bytes ?? 0;
}

/** Entries after `revision`, oldest first, at most `limit` (the change feed, EVENT-1). */
export async function entriesAfter(db: Knex, boardId: string, revision: number, limit: number): Promise<HistoryRow[]> {
  return BoardHistoryEntry.query(db).where({ boardId }).andWhere('revision', '>', revision).orderBy('revision', 'asc').limit(limit).select(entryColumns).castTo<HistoryRow[]>();
}

/** The newest revision of a board's history; undefined when it has none. */
export async function latestRevision(db: Knex, boardId: string): Promise<number | undefined> {
  return (await latestPosition(db, boardId))?.revision;
}
