/**
 * The write protocol of the board document routes: access, the guarded lock, If-Match, the checks against the
 * stored board, the content plan, its application and the fresh read, each route a thin composition of these.
 */
import type { Knex } from 'knex';
import { recordAppPlacements } from '../../apps/placements';
import { badRequest, conflict, notFound, preconditionFailed } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { assertBoardAccess } from '../access';
import { assertCanBind, assertIntegrationsExist } from './bindings';
import { ContentChange, ContentPlan, planContent, planContentChange, writesAnything } from './contentPlan';
import { assertWithinBoardLimits, BoardMeasures } from './limits';
import { BoardState, ifMatchMatches, readableItems, readableSections, SerializedDocument, serializeState, toBoardDocument } from './model';
import type { HistoryContext } from '../history/record';
import { recordStateChange } from '../history/record';
import { stateAfterContentWrites } from './stateAfter';
import type { BoardDocumentCache } from './cache';
import { cacheWrittenDocument } from './read';
import type { BoardStateCache } from './stateCache';
import { applyContentWrites, contentOf, findExistingElementIds, loadBoardContent, loadCallerRows, lockBoardForWrite } from './store';
import type { BoardContent, BoardDocument } from './types';
import { listIds, shownIds, unknownLayoutIds, validateContent } from './validate';

export const etagMismatchMessage = 'Board has changed since the ETag was issued';

/** What every board document write is given: the board, the caller, the history context and If-Match (CONC-6). */
export interface BoardWrite {
  boardId: string;
  principal: Principal;
  history: HistoryContext;
  ifMatch?: string;
  /** The instance's caches; without them every write reads the board, and the next read serializes it. */
  caches?: BoardCaches;
}

/** The instance's caches a write uses and, once committed, keeps up to date: board rows and serialized documents. */
export interface BoardCaches {
  states: BoardStateCache;
  documents: BoardDocumentCache;
}

export interface DocumentResult {
  /** The document as an object, made on first use (answers are sent as `serialized`). */
  readonly document: BoardDocument;
  /** The document as sent (model.ts serializeState). */
  serialized: SerializedDocument;
  etag: string;
}

/** The answer of a board as `state` holds it: serialized now, the document object only if asked for. */
export function documentResult(state: BoardState): DocumentResult {
  const serialized = serializeState(state);
  let document: BoardDocument | undefined;
  return {
    serialized,
    etag: serialized.etag,
    get document() {
      return (document ??= toBoardDocument(state));
    },
  };
}

/** The board limits' measures of a board (LIMIT-1). */
export function measureState(state: BoardState, serialized: SerializedDocument = serializeState(state)): BoardMeasures {
  return { items: readableItems(state).length, sections: readableSections(state).length, layouts: state.layouts.length, contentBytes: serialized.contentBytes };
}

/** The board as it stood before the write's lock (which moved the version by one when `versionBumped`). */
export function stateBeforeLock(state: BoardState, versionBumped: boolean): BoardState {
  return versionBumped ? { ...state, board: { ...state.board, version: state.board.version - 1 } } : state;
}

/** CONC-6: 412 unless the If-Match value names the ETag of the document as this caller saw it before this write. */
export function assertIfMatch(before: BoardState, ifMatch: string | undefined): void {
  if (ifMatch === undefined) return;
  if (!ifMatchMatches(ifMatch, serializeState(before).etag)) throw preconditionFailed(etagMismatchMessage);
}

/**
 * The start of every board write inside its transaction: the lock (lockBoardForWrite), then the board as it stands
 * under it, checked against If-Match unless the route checks it later itself (`ifMatch` omitted). `inserted`: the
 * board was inserted in `trx` (an import's create), so it has no other rows yet.
 */
export async function lockAndLoad(
  trx: Knex.Transaction,
  boardId: string,
  principal: Principal,
  options: { bumpVersion: boolean; expectedVersion?: number; ifMatch?: string; caches?: BoardCaches; inserted?: boolean },
): Promise<BoardState> {
  const locked = await lockBoardForWrite(trx, boardId, options);
  // The rows as of the revision right before this write's lock are the board as it stands under the lock.
  const cached = options.caches?.states.get(boardId, locked.revision - 1);
  const content = cached ? { ...cached, board: { ...cached.board, revision: locked.revision, version: locked.version } } : await loadBoardContent(trx, boardId, options);
  if (!content) throw notFound('Board not found');
  const state: BoardState = { ...content, ...(await loadCallerRows(trx, boardId, principal, options)) };
  assertIfMatch(stateBeforeLock(state, options.bumpVersion), options.ifMatch);
  return state;
}

/**
 * Thrown out of a board write's transaction to roll all of it back (the lock's revision bump included) and answer
 * `result` instead: a dry run, or a write that turns out to change nothing and so writes nothing (FILE-3, HIST-6).
 */
export class RolledBack<T> {
  constructor(readonly result: T) {}
}

/** Runs `write`, answering the result of a RolledBack thrown out of it. */
export async function unlessRolledBack<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof RolledBack) return error.result as T;
    throw error;
  }
}

/**
 * Runs a board write in one transaction; once it committed, the board it left (`after`, whose revision is the one
 * its lock took) is kept in the instance's state cache for the next write, and the document it answered (if any) in
 * the document cache for the writer's next read.
 */
export async function inBoardTransaction<T>(
  db: Knex,
  write: { caches?: BoardCaches; principal: Principal },
  work: (trx: Knex.Transaction) => Promise<{ result: T; after: BoardState; answered?: DocumentResult }>,
): Promise<T> {
  const { result, after, answered } = await db.transaction(work);
  if (write.caches) {
    write.caches.states.set(contentOf(after));
    if (answered) cacheWrittenDocument(write.caches.documents, after, write.principal, answered.serialized);
  }
  return result;
}

/**
 * The answer of a write: the board as it stands after it (computed from the plan, stateAfter.ts), refused with a 400
 * that rolls the write back when the write took it past a board limit (LIMIT-1, LIMIT-2; measured against `before`,
 * the state the write started from).
 */
export function resultAfterWrite(before: BoardState, after: BoardState): DocumentResult {
  const result = documentResult(after);
  assertWithinBoardLimits(measureState(after, result.serialized), () => measureState(before));
  return result;
}

/**
 * The checks of a content save against the stored board, in the order a client meets them: positions on layouts
 * not on the board (400, PUT-14), unknown integration ids (400, BIND-6), ids already used elsewhere (409, PUT-4),
 * new bindings the caller may not make (403, BIND-2). Reads only: the plan route runs them on a snapshot.
 */
export async function checkContentAgainstBoard(q: Knex, state: BoardState, content: BoardContent, plan: ContentPlan, principal: Principal): Promise<void> {
  const missingLayouts = unknownLayoutIds(content, new Set(state.layouts.map((layout) => layout.id)));
  if (missingLayouts.length > 0) {
    throw badRequest(`Positions reference layouts not on this board: ${listIds(missingLayouts)}`, { layoutIds: missingLayouts });
  }
  if (plan.integrationIds.length > 0) await assertIntegrationsExist(q, plan.integrationIds);
  await assertIdsFree(q, state.board.id, plan.newItemIds, plan.newSectionIds);
  await assertCanBind(q, principal, plan.newlyBoundIntegrationIds);
}

/** PUT-4: 409 when ids new to the board's comparison set already exist as rows: on another board, or hidden rows here. */
export async function assertIdsFree(q: Knex, boardId: string, newItemIds: string[], newSectionIds: string[]): Promise<void> {
  assertIdsFreeAmong(await findExistingElementIds(q, newItemIds, newSectionIds), boardId);
}

/**
 * PUT-4 on rows already read: `taken` are the rows (findExistingElementIds) of exactly the ids new to the board's
 * comparison set, read in the write's transaction after the last statement that could add or remove such rows.
 */
export function assertIdsFreeAmong(taken: readonly { id: string; boardId: string }[], boardId: string): void {
  const elsewhere = taken.filter((row) => row.boardId !== boardId).map((row) => row.id);
  if (elsewhere.length > 0) throw conflict(`Ids already used on another board: ${listIds(elsewhere)}`, { ids: shownIds(elsewhere), count: new Set(elsewhere).size });
  const hidden = taken.map((row) => row.id);
  if (hidden.length > 0) {
    throw conflict(`Ids already used by elements of this board that this server cannot read: ${listIds(hidden)}`, {
      ids: shownIds(hidden),
      count: new Set(hidden).size,
    });
  }
}

/**
 * Saves a planned content change over the board `state`, locked with a version bump: checks, writes, app placements,
 * history. `content` holds the payload's sections and items the plan was made of. An unchanged payload writes nothing
 * but the lock's bump (PUT-15).
 */
async function saveContentOver(
  trx: Knex.Transaction,
  state: BoardState,
  change: { plan: ContentPlan; content: BoardContent },
  writer: { principal: Principal; history: HistoryContext },
): Promise<{ result: DocumentResult; after: BoardState; answered: DocumentResult }> {
  const { plan, content } = change;
  await checkContentAgainstBoard(trx, state, content, plan, writer.principal);
  const after = stateAfterContentWrites(state, plan.writes);
  const result = resultAfterWrite(state, after);
  if (writesAnything(plan.writes)) {
    await applyContentWrites(trx, state.board.id, plan.writes);
    await recordAppPlacements(trx, writer.principal, [...plan.writes.items.insert, ...plan.writes.items.update]);
  }
  await recordStateChange(trx, { principal: writer.principal, history: writer.history, before: stateBeforeLock(state, true), after });
  return { result, after, answered: result };
}

export interface SaveContentOptions extends BoardWrite {
  content: BoardContent;
  expectedVersion?: number;
}

/**
 * PUT /api/boards/{id}: full replacement of sections and items in one transaction, the guarded version increment
 * first (CONC-2), then the checks against the stored board, the plan and a fresh read. A fixed number of
 * statements whatever the board's size.
 */
export async function saveBoardContent(db: Knex, options: SaveContentOptions): Promise<DocumentResult> {
  const { boardId, principal, content } = options;
  await assertBoardAccess(db, boardId, principal, 'modify');
  validateContent(content);
  return inBoardTransaction(db, options, async (trx) => {
    const state = await lockAndLoad(trx, boardId, principal, { ...options, bumpVersion: true });
    return saveContentOver(trx, state, { plan: planContent(state, content), content }, options);
  });
}

/**
 * The granular item and section routes (CONC-7): the board is read and saved in one transaction under its row
 * lock, so concurrent granular changes serialize instead of conflicting. `change` names the elements changed, from
 * the board as it stands (and throws the route's own 404, 400 or 409, and the payload checks of what it changes);
 * the change is planned and saved by the rules of a whole-board save, looking only at the rows it touches. The
 * version moves by one.
 */
export async function changeBoardContent(
  db: Knex,
  options: BoardWrite,
  change: (state: BoardState) => ContentChange,
): Promise<DocumentResult> {
  const { boardId, principal } = options;
  await assertBoardAccess(db, boardId, principal, 'modify');
  return inBoardTransaction(db, options, async (trx) => {
    const state = await lockAndLoad(trx, boardId, principal, { bumpVersion: true, caches: options.caches });
    const elements = change(state);
    assertIfMatch(stateBeforeLock(state, true), options.ifMatch);
    const content = { sections: elements.sections ?? [], items: elements.items ?? [] };
    return saveContentOver(trx, state, { plan: planContentChange(state, elements), content }, options);
  });
}
