import type { Knex } from 'knex';
import { assertBoardAccess } from '../access';
import { assertWithinGrid, planLayoutChange, validateLayouts } from './layoutPlan';
import { recordStateChange } from '../history/record';
import { BoardWrite, DocumentResult, inBoardTransaction, lockAndLoad, resultAfterWrite } from './save';
import { stateAfterLayoutPlan } from './stateAfter';
import { applyLayoutPlan } from './store';
import type { BreakpointLayout } from './types';

/**
 * PATCH /api/boards/{id}/layouts: full replacement of the breakpoint layouts in one transaction (LAYOUT-5, stricter
 * than the reference). Bumps the revision only; the version is not touched (LAYOUT-8).
 */
export async function saveBoardLayouts(
  db: Knex,
  options: BoardWrite & { layouts: BreakpointLayout[] },
): Promise<DocumentResult> {
  const { boardId, principal, layouts } = options;
  await assertBoardAccess(db, boardId, principal, 'modify');
  validateLayouts(layouts);
  return inBoardTransaction(db, options, async (trx) => {
    const state = await lockAndLoad(trx, boardId, principal, { ...options, bumpVersion: false });
    const plan = planLayoutChange(state, layouts);
    assertWithinGrid(plan);
    const after = stateAfterLayoutPlan(state, plan);
    const result = resultAfterWrite(state, after);
    await applyLayoutPlan(trx, boardId, plan);
    await recordStateChange(trx, { principal, history: options.history, before: state, after });
    return { result, after, answered: result };
  });
}
