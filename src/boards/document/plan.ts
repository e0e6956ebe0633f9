/**
 * Dry runs of the whole-board writes (PLAN-1..5): every check of the write, with the same answers, on a read-only
 * snapshot of the board; nothing is written, locked beyond the read, or bumped.
 */
import type { Knex } from 'knex';
import { conflict, notFound } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { assertBoardAccess } from '../access';
import { compareStates, ElementChanges } from './changes';
import { IgnoredPart, planContent } from './contentPlan';
import { assertWithinGrid, planLayoutChange, validateLayouts } from './layoutPlan';
import type { BoardState } from './model';
import { assertIfMatch, checkContentAgainstBoard, resultAfterWrite } from './save';
import { stateAfterContentWrites, stateAfterLayoutPlan } from './stateAfter';
import { loadBoardState, loadCallerRows, versionConflictMessage } from './store';
import type { BoardStateCache } from './stateCache';
import type { BoardContent, BreakpointLayout } from './types';
import { validateContent } from './validate';
import { contentWarnings, loadWarningFacts, PlanWarning } from './warnings';
import { Board } from '../../db/models';

export interface SavePlan {
  /** The board's version now: the expectedVersion of the save this plan is for. */
  version: number;
  changes: { sections: ElementChanges; items: ElementChanges };
  ignored: IgnoredPart[];
  warnings: PlanWarning[];
}

/**
 * The board as the snapshot `q` holds it: from the instance's state cache when it holds the revision the snapshot
 * reads (DOC-7: the rows this instance's last write left), else read whole.
 */
async function loadSnapshotState(q: Knex, boardId: string, principal: Principal, states?: BoardStateCache): Promise<BoardState | null> {
  if (states) {
    const row: { revision: number } | undefined = await Board.query(q).findById(boardId).select('revision');
    const cached = row && states.get(boardId, row.revision);
    if (cached) return { ...cached, ...(await loadCallerRows(q, boardId, principal)) };
  }
  return loadBoardState(q, boardId, principal);
}

/** The board for a dry run: read in one read-only snapshot, with the write's version guard and If-Match. */
async function plannedBoard(
  trx: Knex,
  boardId: string,
  principal: Principal,
  guard: { expectedVersion?: number; ifMatch?: string; states?: BoardStateCache },
): Promise<BoardState> {
  const state = await loadSnapshotState(trx, boardId, principal, guard.states);
  if (!state) throw notFound('Board not found');
  if (guard.expectedVersion !== undefined && guard.expectedVersion !== state.board.version) throw conflict(versionConflictMessage);
  assertIfMatch(state, guard.ifMatch);
  return state;
}

const readOnly = { isolationLevel: 'repeatable read', readOnly: true } as const;

/**
 * POST /api/boards/{id}/plan (PLAN-1): what `PUT /api/boards/{id}` with the same body would do: the elements it adds,
 * removes and updates, the parts of the payload the save rules ignore, and warnings.
 */
export async function planBoardSave(
  db: Knex,
  options: { boardId: string; principal: Principal; content: BoardContent; expectedVersion?: number; ifMatch?: string; states?: BoardStateCache },
): Promise<SavePlan> {
  const { boardId, principal, content } = options;
  await assertBoardAccess(db, boardId, principal, 'modify');
  validateContent(content);
  return db.transaction(async (trx) => {
    const state = await plannedBoard(trx, boardId, principal, options);
    const plan = planContent(state, content);
    await checkContentAgainstBoard(trx, state, content, plan, principal);
    const after = stateAfterContentWrites(state, plan.writes);
    resultAfterWrite(state, after);
    const { sections, items } = compareStates(state, after);
    const warnings = contentWarnings(after, content, await loadWarningFacts(trx, principal, content));
    return { version: state.board.version, changes: { sections, items }, ignored: plan.ignored, warnings };
  }, readOnly);
}

export interface LayoutsPlan {
  version: number;
  layouts: {
    created: { name: string; columnCount: number; breakpoint: number; clonedFrom: string | null }[];
    deleted: string[];
    updated: string[];
  };
  /** Positions the change would compute anew (new layouts, changed column counts) and remove (deleted layouts). */
  positions: { regenerated: { items: number; sections: number }; removed: { items: number; sections: number } };
}

/** POST /api/boards/{id}/layouts/plan (PLAN-5): what `PATCH /api/boards/{id}/layouts` with the same body would do. */
export async function planBoardLayouts(
  db: Knex,
  options: { boardId: string; principal: Principal; layouts: BreakpointLayout[]; ifMatch?: string; states?: BoardStateCache },
): Promise<LayoutsPlan> {
  const { boardId, principal, layouts } = options;
  await assertBoardAccess(db, boardId, principal, 'modify');
  validateLayouts(layouts);
  return db.transaction(async (trx) => {
    const state = await plannedBoard(trx, boardId, principal, options);
    const plan = planLayoutChange(state, layouts);
    assertWithinGrid(plan);
    const after = stateAfterLayoutPlan(state, plan);
    resultAfterWrite(state, after);
    const deleted = new Set(plan.deleteLayoutIds);
    const { layouts: changed } = compareStates(state, after);
    return {
      version: state.board.version,
      layouts: {
        created: plan.insertLayouts.map((layout) => ({
          name: layout.name,
          columnCount: layout.columnCount,
          breakpoint: layout.breakpoint,
          clonedFrom: plan.clonedFrom?.[layout.id] ?? null,
        })),
        deleted: plan.deleteLayoutIds,
        updated: changed.updated,
      },
      positions: {
        regenerated: { items: plan.itemPositions.length, sections: plan.sectionPositions.length },
        removed: {
          items: state.itemLayouts.filter((p) => deleted.has(p.layoutId)).length,
          sections: state.sectionLayouts.filter((p) => deleted.has(p.layoutId)).length,
        },
      },
    };
  }, readOnly);
}
