/**
 * Recording a board's history (HIST-1): every committed change of a board's content or fields writes one entry in
 * the write's own transaction, after the write's lock, so revisions are consecutive per board and a rolled-back
 * write leaves none. An entry keeps the reverse delta of the change; an entry also keeps the whole board after it
 * when the deltas since the last such snapshot outweigh one (or number 200), so reading any revision applies a
 * bounded run of deltas (HIST-3). Entries beyond the retention limit are deleted, the creation entry kept (HIST-7).
 */
import type { Knex } from 'knex';
import type { OperationId, RequestContext } from '../../core/operation';
import type { Principal } from '../../identity/principal';
import { BoardChanges, compareStates } from '../document/changes';
import type { BoardState } from '../document/model';
import { loadBoardState } from '../document/store';
import { BoardSnapshot, diffStates, isEmptyDelta, SnapshotDelta, snapshotOf } from './snapshot';
import { HistoryOrigin, insertEntry, latestPosition, trimEntries } from './store';
import { HistorySummary, summarize } from './summary';
import { metrics } from '../../observability/metrics';
import { Board } from '../../db/models';

/** Which operation writes, and how many entries a board keeps (BOARD_HISTORY_LIMIT). */
export interface HistoryContext {
  operation: string;
  limit: number;
  /** FLEET-8: the commit a set apply was made from, kept with each entry it writes. */
  origin?: HistoryOrigin;
}

/** The history context of a request: its operation and the instance's retention. */
export function historyContext(ctx: RequestContext, operation: OperationId): HistoryContext {
  return { operation, limit: ctx.config.boardHistoryLimit };
}

/** The longest run of deltas between two snapshots, and the fewest bytes that make one worth a snapshot. */
const maxChainLength = 200;
const minChainBytes = 256 * 1024;

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

interface EntryInput {
  boardId: string;
  version: number;
  principal: Principal | null;
  history: HistoryContext;
  /** Turns the board after the change into the board before it; null for the entry that creates the board. */
  reverse: SnapshotDelta | null;
  summary: HistorySummary;
  after: () => Promise<BoardSnapshot>;
  /** The board before the change, for the baseline entry of a board that has no history yet. */
  before: () => Promise<BoardSnapshot>;
}

/** Appends one entry (and a baseline entry first for a board that predates history). Returns the new revision. */
async function appendEntry(trx: Knex.Transaction, input: EntryInput): Promise<number> {
  const actor = {
    actorUserId: input.principal?.userId ?? null,
    actorName: input.principal?.username ?? null,
    apiKeyId: input.principal?.apiKeyId ?? null,
  };
  let latest = await latestPosition(trx, input.boardId);
  if (!latest && input.reverse !== null) {
    const baseline = await input.before();
    const bytes = bytesOf(baseline);
    await insertEntry(trx, {
      boardId: input.boardId,
      revision: 1,
      version: baseline.board.version as number,
      operation: 'baseline',
      actorUserId: null,
      actorName: null,
      apiKeyId: null,
      summary: { sections: none, items: none, layouts: none, fields: [] },
      origin: null,
      reverseDelta: null,
      snapshot: baseline,
      deltaBytes: 0,
      chainBytes: 0,
      chainLength: 0,
      snapshotBytes: bytes,
    });
    latest = { revision: 1, chainBytes: 0, chainLength: 0, snapshotBytes: bytes };
  }
  const revision = (latest?.revision ?? 0) + 1;
  const deltaBytes = input.reverse === null ? 0 : bytesOf(input.reverse);
  const chainBytes = (latest?.chainBytes ?? 0) + deltaBytes;
  const chainLength = (latest?.chainLength ?? 0) + 1;
  const takeSnapshot = !latest || chainLength >= maxChainLength || chainBytes > Math.max(latest.snapshotBytes, minChainBytes);
  const snapshot = takeSnapshot ? await input.after() : null;
  const snapshotBytes = snapshot ? bytesOf(snapshot) : latest!.snapshotBytes;
  await insertEntry(trx, {
    boardId: input.boardId,
    revision,
    version: input.version,
    operation: input.history.operation,
    ...actor,
    summary: input.summary,
    origin: input.history.origin ?? null,
    reverseDelta: input.reverse,
    snapshot,
    deltaBytes,
    chainBytes: snapshot ? 0 : chainBytes,
    chainLength: snapshot ? 0 : chainLength,
    snapshotBytes,
  });
  await trimEntries(trx, input.boardId, revision, input.history.limit);
  // METRIC-3: counted once the change commits (a rolled-back write counts nothing).
  const entries = revision - (latest?.revision ?? 0);
  trx.executionPromise.then(
    () => {
      metrics.boardWrites.inc({ operation: input.history.operation });
      metrics.revisionsRecorded.inc(entries);
    },
    () => {},
  );
  return revision;
}

const none = { added: 0, removed: 0, updated: 0 };

/** BOARD_HISTORY_LIMIT=0 turns history off: no entries are written. */
const historyOff = (history: HistoryContext) => history.limit === 0;

/**
 * Records a change of which both states are known (content writes, restore, import). Nothing is recorded when the
 * two states hold the same board. `before` null records the board's creation.
 */
export async function recordStateChange(
  trx: Knex.Transaction,
  input: { principal: Principal | null; history: HistoryContext; before: BoardState | null; after: BoardState; dropped?: HistorySummary['dropped'] },
): Promise<number | null> {
  if (historyOff(input.history)) return null;
  const reverse = input.before ? diffStates(input.after, input.before) : null;
  if (reverse && isEmptyDelta(reverse)) return null;
  const changes: BoardChanges = input.before
    ? compareStates(input.before, input.after)
    : compareStates({ ...input.after, layouts: [], sections: [], sectionLayouts: [], items: [], itemLayouts: [], bindings: [] }, input.after);
  return appendEntry(trx, {
    boardId: input.after.board.id,
    version: input.after.board.version,
    principal: input.principal,
    history: input.history,
    reverse,
    summary: summarize(changes, input.dropped),
    after: async () => snapshotOf(input.after),
    before: async () => snapshotOf(input.before!),
  });
}

/**
 * Records a change of board fields only (name, visibility, settings), from their values before and after. The
 * whole board is read only when the entry needs it (a snapshot, or a baseline).
 */
export async function recordFieldChange(
  trx: Knex.Transaction,
  input: { boardId: string; principal: Principal | null; history: HistoryContext; before: Record<string, unknown>; after: Record<string, unknown> },
): Promise<number | null> {
  if (historyOff(input.history)) return null;
  const changed = Object.keys(input.after).filter((field) => JSON.stringify(input.before[field]) !== JSON.stringify(input.after[field]));
  if (changed.length === 0) return null;
  const current = async () => {
    const state = await loadBoardState(trx, input.boardId, null);
    if (!state) throw new Error(`board ${input.boardId} vanished inside its own write`);
    return snapshotOf(state);
  };
  const { version } = (await Board.query(trx).findById(input.boardId).select('version'))!;
  const board: BoardChanges['board'] = {};
  for (const field of changed) board[field] = { from: input.before[field], to: input.after[field] };
  const reverse: SnapshotDelta = { board: Object.fromEntries(changed.map((field) => [field, input.before[field]])) };
  return appendEntry(trx, {
    boardId: input.boardId,
    version,
    principal: input.principal,
    history: input.history,
    reverse,
    summary: summarize({ sections: emptyChanges(), items: emptyChanges(), layouts: emptyChanges(), board }),
    after: current,
    before: async () => {
      const snapshot = await current();
      return { ...snapshot, board: { ...snapshot.board, ...reverse.board } };
    },
  });
}

const emptyChanges = () => ({ added: [], removed: [], updated: [] });

