/**
 * Reading a board's history (HIST-2, HIST-4, HIST-5): the entry list, the board as it was after a revision, and the
 * difference between two revisions. View access, as for the board itself (ACCESS-2).
 */
import type { Knex } from 'knex';
import { badRequest, notFound } from '../../core/errors';
import { emailReaderOf, maySeeEmailOf, type Principal } from '../../identity/principal';
import { assertBoardAccess } from '../access';
import { BoardChanges, compareStates } from '../document/changes';
import type { BoardState } from '../document/model';
import { BoardDocumentCache, CachedDocument } from '../document/cache';
import { ownRowsKey, serializeDocument } from '../document/read';
import { loadBoardState, loadCollapsedKey } from '../document/store';
import { SnapshotBuilder, snapshotOf, stateFromSnapshot } from './snapshot';
import { findEntry, HistoryOrigin, HistoryRow, listEntries, loadChain } from './store';
import type { HistorySummary } from './summary';

export const revisionNotFound = () => notFound('Revision not found');

export interface HistoryEntry {
  revision: number;
  version: number;
  at: string;
  operation: string;
  actor: { userId: string | null; name: string | null; apiKeyId: string | null };
  summary: HistorySummary;
  /** FLEET-8: present on entries a set apply wrote. */
  origin?: HistoryOrigin;
}

export function toHistoryEntry(row: HistoryRow): HistoryEntry {
  return {
    revision: row.revision,
    version: row.version,
    at: new Date(row.at).toISOString(),
    operation: row.operation,
    actor: { userId: row.actorUserId, name: row.actorName, apiKeyId: row.apiKeyId },
    summary: row.summary,
    ...(row.origin ? { origin: row.origin } : {}),
  };
}

/** PRIV-2: an anonymous reader (of a public board) is shown who acted by name only, never user or API key ids. */
export function entryAsSeenBy(entry: HistoryEntry, principal: Principal | null): HistoryEntry {
  return principal ? entry : { ...entry, actor: { userId: null, name: entry.actor.name, apiKeyId: null } };
}

/** Reads in one REPEATABLE READ snapshot, so that the live board and the history agree. */
function inSnapshot<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(work, { isolationLevel: 'repeatable read', readOnly: true });
}

/** Cursor of the next page: the revision to continue below, opaque to clients. */
const encodeCursor = (revision: number) => Buffer.from(`r${revision}`).toString('base64url');
function decodeCursor(cursor: string): number {
  const match = /^r(\d{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw badRequest('Invalid cursor', { cursor });
  return Number(match[1]);
}

/** GET /api/boards/{id}/history: entries newest first, `limit` at a time (HIST-2). */
export async function listHistory(
  db: Knex,
  principal: Principal | null,
  boardId: string,
  page: { limit: number; cursor?: string },
): Promise<{ entries: HistoryEntry[]; nextCursor: string | null }> {
  const before = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
  await assertBoardAccess(db, boardId, principal, 'view');
  const rows = await listEntries(db, boardId, page.limit + 1, before);
  const entries = rows.slice(0, page.limit).map((row) => entryAsSeenBy(toHistoryEntry(row), principal));
  return { entries, nextCursor: rows.length > page.limit ? encodeCursor(entries[entries.length - 1].revision) : null };
}

/**
 * The board as it was after `revision` (HIST-3): the nearest snapshot at or above the revision, or else the board
 * as it stands (`live`, which must be the board as of the newest entry), taken back entry by entry with the reverse
 * deltas. 404 `Revision not found` for a revision the board never had or that retention removed.
 */
export async function revisionState(q: Knex, boardId: string, revision: number, live: BoardState): Promise<BoardState> {
  const chain = await loadChain(q, boardId, revision);
  if (chain.length === 0 || chain[chain.length - 1].revision !== revision) throw revisionNotFound();
  const snapshot = new SnapshotBuilder(chain[0].snapshot ?? snapshotOf(live));
  for (const entry of chain) {
    if (entry.revision === revision) break;
    if (entry.reverseDelta) snapshot.apply(entry.reverseDelta);
  }
  return stateFromSnapshot(snapshot.build(), live);
}

async function liveState(q: Knex, boardId: string, principal: Principal | null): Promise<BoardState> {
  const state = await loadBoardState(q, boardId, principal);
  if (!state) throw notFound('Board not found');
  return state;
}

/**
 * GET /api/boards/{id}/history/{revision}: the document after that revision, its version as it was then (HIST-4).
 * A revision never changes, so its serialized document is cached like the board's (DOC-6), keyed on what the
 * database says on every request: the entry still exists, the board's creator, the caller, its groups, own rows
 * and collapsed sections.
 */
export async function readRevisionJson(
  db: Knex,
  cache: BoardDocumentCache,
  principal: Principal | null,
  boardId: string,
  revision: number,
): Promise<CachedDocument> {
  const access = await assertBoardAccess(db, boardId, principal, 'view');
  if (!(await findEntry(db, boardId, revision))) throw revisionNotFound();
  const userId = principal?.userId ?? null;
  const reader = emailReaderOf(principal);
  const key = (parts: { creatorId: string | null; ownRows: string; collapsed: string }) =>
    BoardDocumentCache.key({
      boardId: `history:${boardId}`,
      revision,
      userId,
      groupIds: principal ? [...principal.groupIds].sort().join(',') : '',
      creatorEmail: maySeeEmailOf(reader, parts.creatorId),
      ...parts,
    });
  const requested = key({
    creatorId: access.creatorId,
    ownRows: ownRowsKey([...access.userPermissions], [...access.groupPermissions]),
    collapsed: userId === null ? '' : await loadCollapsedKey(db, boardId, userId),
  });
  return cache.getOrBuild(requested, () =>
    inSnapshot(db, async (trx) => {
      const live = await liveState(trx, boardId, principal);
      const entry = serializeDocument(await revisionState(trx, boardId, revision, live));
      const built = key({
        creatorId: live.board.creatorId,
        ownRows: ownRowsKey(live.userPermissions.map((row) => row.permission), live.groupPermissions.map((row) => row.permission)),
        collapsed: userId === null ? '' : [...live.collapsedSectionIds].sort().join(','),
      });
      cache.set(built, `history:${boardId}`, revision, entry);
      return entry;
    }),
  );
}

export interface RevisionDiff {
  from: number;
  /** null: the board as it stands. */
  to: number | null;
  /** The shape of a plan's `changes` (HIST-5). */
  changes: BoardChanges;
}

/** GET /api/boards/{id}/diff?from&to: what changed from one revision to another, or to now (HIST-5). */
export async function diffRevisions(db: Knex, principal: Principal | null, boardId: string, from: number, to?: number): Promise<RevisionDiff> {
  await assertBoardAccess(db, boardId, principal, 'view');
  return inSnapshot(db, async (trx) => {
    const live = await liveState(trx, boardId, principal);
    const older = await revisionState(trx, boardId, from, live);
    const newer = to === undefined ? live : await revisionState(trx, boardId, to, live);
    return { from, to: to ?? null, changes: compareStates(older, newer) };
  });
}
