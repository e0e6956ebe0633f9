/**
 * Pure rules of a set apply (FLEET-2..7): the set's own checks, the plan entries and their summary, which boards a
 * prune removes. No I/O: setApply.ts loads the state these functions decide on.
 */
import { ApiError, badRequest, conflict } from '../../core/errors';
import type { BoardChanges } from '../document/changes';
import type { PlanWarning } from '../document/warnings';
import type { BoardConflict } from '../files/baseConflict';
import type { BoardFile } from '../files/file';
import type { ImportPlan } from '../files/importBoard';
import { listIds } from '../document/validate';

export type SetAction = 'create' | 'update' | 'unchanged' | 'delete' | 'conflict';

export interface SetPlanEntry {
  name: string;
  action: SetAction;
  boardId: string | null;
  /** The board's version before the apply; null for a create. */
  version: number | null;
  changes: BoardChanges;
  ignored: never[];
  warnings: PlanWarning[];
  /** FLEET-16: what another writer changed since the file's base (action `conflict`, or an `update` with force). */
  conflict?: BoardConflict;
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

/**
 * FLEET-2: a board's entry of the set plan, from the per-board import plan and whether the file changes it. FLEET-16:
 * a board another writer changed since the file's base is a `conflict`, or with `force` an `update` that says what it
 * overwrites.
 */
export function entryOfImport(plan: ImportPlan, changed: boolean, boardId: string | null, conflict?: { details: BoardConflict; force: boolean }): SetPlanEntry {
  return {
    name: plan.name,
    action: plan.action === 'create' ? 'create' : conflict && !conflict.force ? 'conflict' : changed ? 'update' : 'unchanged',
    boardId,
    version: plan.version,
    changes: plan.changes,
    ignored: plan.ignored,
    warnings: plan.warnings,
    ...(conflict ? { conflict: conflict.details } : {}),
  };
}

/**
 * FLEET-16: the 409 of a set apply (without force) over boards another writer changed since their files' base: it
 * names every such board and the remedy, and carries what changed on each and who changed it.
 */
export function conflictsRefusal(entries: readonly SetPlanEntry[]): ApiError | null {
  const conflicts = entries.filter((entry) => entry.action === 'conflict');
  if (conflicts.length === 0) return null;
  const names = conflicts.map((entry) => entry.name);
  // FLEET-4's form (`Board <name>: …`), with every name when there are several.
  const [these, whose, them, edits] = names.length === 1 ? ['Board', "its file's", 'it', 'edit'] : ['Boards', "their files'", 'them', 'edits'];
  return conflict(
    `${these} ${names.join(', ')}: Changed on the server since ${whose} base. Pull ${them} again and redo your ${edits}, or apply with force=true to overwrite the changes made there.`,
    {
      ...(names.length === 1 ? { board: names[0] } : {}),
      boards: names,
      conflicts: conflicts.map((entry) => ({ name: entry.name, boardId: entry.boardId, conflict: entry.conflict })),
    },
  );
}

/** FLEET-6: the boards a prune removes: those of the set's label that no file of the set names. */
export function pruneCandidates<T extends { id: string }>(labelled: readonly T[], appliedIds: ReadonlySet<string>): T[] {
  return labelled.filter((board) => !appliedIds.has(board.id));
}

/** FLEET-2, FLEET-16: a conflict counts as a change (`force` would write it; without, `plan` has something to show). */
export function summarize(managedBy: string, dryRun: boolean, boards: SetPlanEntry[]): SetPlan {
  const summary = { create: 0, update: 0, unchanged: 0, delete: 0, conflict: 0 };
  for (const entry of boards) summary[entry.action]++;
  return { managedBy, dryRun, boards, summary: { ...summary, changed: summary.create + summary.update + summary.delete + summary.conflict > 0 } };
}

/** FLEET-4: an error of one board of the set, naming the board (message prefix and `data.board`). */
export function namingBoard(error: unknown, name: string): unknown {
  if (!(error instanceof ApiError) || error.status >= 500) return error;
  return new ApiError(error.code, `Board ${name}: ${error.message}`, { ...error.data, board: name }, error.headers);
}

/**
 * AUDIT-7: what the audit entry of a set apply records: its label, how many boards it created, updated, left alone
 * and deleted, the names of the boards its prune deleted and of those a forced apply overwrote (names and counts only,
 * never a board's content).
 */
export function setApplyAuditDetails(plan: SetPlan): Record<string, unknown> {
  return {
    managedBy: plan.managedBy,
    created: plan.summary.create,
    updated: plan.summary.update,
    unchanged: plan.summary.unchanged,
    deleted: plan.summary.delete,
    pruned: plan.boards.filter((entry) => entry.action === 'delete').map((entry) => entry.name),
    // FLEET-16: the boards a forced apply wrote over another writer's changes.
    overwritten: plan.boards.filter((entry) => entry.action === 'update' && entry.conflict).map((entry) => entry.name),
  };
}
