/**
 * Pure rules of a set apply (FLEET-2..7): the set's own checks, the plan entries and their summary, which boards a
 * prune removes. No I/O: setApply.ts loads the state these functions decide on.
 */
import { ApiError, badRequest } from '../../core/errors';
import type { BoardChanges } from '../document/changes';
import type { PlanWarning } from '../document/warnings';
import type { BoardFile } from '../files/file';
import type { ImportPlan } from '../files/importBoard';
import { listIds } from '../document/validate';

export type SetAction = 'create' | 'update' | 'unchanged' | 'delete';

export interface SetPlanEntry {
  name: string;
  action: SetAction;
  boardId: string | null;
  /** The board's version before the apply; null for a create. */
  version: number | null;
  changes: BoardChanges;
  ignored: never[];
  warnings: PlanWarning[];
}

export interface SetPlan {
  managedBy: string;
  dryRun: boolean;
  boards: SetPlanEntry[];
  summary: Record<SetAction, number> & { changed: boolean };
}

/** FLEET-2: one board per name in a set (names are unique letter case ignored, NAME-2): a repeated name is a 400. */
export function assertDistinctNames(files: readonly BoardFile[]): void {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const file of files) {
    const key = file.name.toLowerCase();
    if (seen.has(key)) repeated.add(file.name);
    seen.add(key);
  }
  if (repeated.size > 0) throw badRequest(`Board names must be unique in a set: ${listIds([...repeated])}`, { names: [...repeated] });
}

/** FLEET-2: a board's entry of the set plan, from the per-board import plan and whether the file changes it. */
export function entryOfImport(plan: ImportPlan, changed: boolean, boardId: string | null): SetPlanEntry {
  return {
    name: plan.name,
    action: plan.action === 'create' ? 'create' : changed ? 'update' : 'unchanged',
    boardId,
    version: plan.version,
    changes: plan.changes,
    ignored: plan.ignored,
    warnings: plan.warnings,
  };
}

/** FLEET-6: the boards a prune removes: those of the set's label that no file of the set names. */
export function pruneCandidates<T extends { id: string }>(labelled: readonly T[], appliedIds: ReadonlySet<string>): T[] {
  return labelled.filter((board) => !appliedIds.has(board.id));
}

export function summarize(managedBy: string, dryRun: boolean, boards: SetPlanEntry[]): SetPlan {
  const summary = { create: 0, update: 0, unchanged: 0, delete: 0 };
  for (const entry of boards) summary[entry.action]++;
  return { managedBy, dryRun, boards, summary: { ...summary, changed: summary.create + summary.update + summary.delete > 0 } };
}

/** FLEET-4: an error of one board of the set, naming the board (message prefix and `data.board`). */
export function namingBoard(error: unknown, name: string): unknown {
  if (!(error instanceof ApiError) || error.status >= 500) return error;
  return new ApiError(error.code, `Board ${name}: ${error.message}`, { ...error.data, board: name }, error.headers);
}

/**
 * AUDIT-7: what the audit entry of a set apply records: its label, how many boards it created, updated, left alone
 * and deleted, and the names of the boards its prune deleted (names and counts only, never a board's content).
 */
export function setApplyAuditDetails(plan: SetPlan): Record<string, unknown> {
  return {
    managedBy: plan.managedBy,
    created: plan.summary.create,
    updated: plan.summary.update,
    unchanged: plan.summary.unchanged,
    deleted: plan.summary.delete,
    pruned: plan.boards.filter((entry) => entry.action === 'delete').map((entry) => entry.name),
  };
}
