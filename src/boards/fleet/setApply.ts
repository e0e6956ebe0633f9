/**
 * POST /api/boards/apply (FLEET-2..8): a set of board files applied as one transaction, all or nothing. Each file is
 * the single-file import's replace (importInTransaction: same plan, same checks, same answers), run in a savepoint of
 * the set's transaction so that a file that changes nothing leaves nothing (no revision, no version bump); `prune`
 * then deletes the boards of the set's label that no file names. A dry run does all of it and rolls back, so its
 * plan answers exactly as the apply would; only the content of the boards it creates is planned and not written,
 * their ids passed on to the files after them (UnwrittenCreates in importBoard.ts).
 */
import type { Knex } from 'knex';
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import { ApiError, conflict, forbidden } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { loadBoardAccess } from '../access';
import { compareStates } from '../document/changes';
import type { BoardState } from '../document/model';
import { RolledBack, unlessRolledBack, type BoardCaches } from '../document/save';
import { contentOf, loadBoardState, type ExistingElement } from '../document/store';
import { readInstanceId } from '../../db/instance';
import { asApiError, isTransactionCollision, isUniqueViolation } from '../../db/errors';
import { assertFileContent, type BoardFile } from '../files/file';
import { importInTransaction, type ImportStep } from '../files/importBoard';
import type { HistoryContext } from '../history/record';
import { deleteBoard } from '../management/boards';
import { assertMayWriteLabel } from '../management/labels';
import { boardIdsByNames, boardNameIndex, nameConflictMessage, withNameConflictAs409 } from '../management/names';
import { assertDistinctNames, conflictsRefusal, entryOfImport, namingBoard, pruneCandidates, SetPlan, SetPlanEntry, setApplyAuditDetails, summarize } from './setPlan';
import { Board } from '../../db/models';
import { recordAudit, type AuditSource, type AuditAction } from '../../observability/audit';
import { enqueueWebhookEvent } from '../../webhooks/events';
import { metrics } from '../../observability/metrics';

export interface SetApplyOptions {
  principal: Principal;
  managedBy: string;
  /** FLEET-13: provisioning applies its sources' labels as their owner. */
  provisioning?: boolean;
  /** FLEET-9: provisioning does not read the files' `source` (the directory is the truth). */
  ignoreSource?: boolean;
  files: BoardFile[];
  dryRun: boolean;
  prune: boolean;
  /** FLEET-16: overwrite boards another writer changed since their files' base (else they refuse the set). */
  force?: boolean;
  /** The operation, retention and origin (FLEET-8: commit id and subject) every entry written keeps. */
  history: HistoryContext;
  /**
   * AUDIT-7: who applies, and the action its entry records (`board.set.apply`, or `provisioning.apply`); written in
   * the set's transaction, with a `board.delete` entry per pruned board. `onlyWhenChanged`: no entry for an apply
   * that changes nothing (provisioning re-applies its directories at every start). Never for a dry run.
   */
  audit: { source: AuditSource; action: AuditAction; onlyWhenChanged?: boolean };
  /**
   * The instance's caches: each file's board is read from the state cache when it holds the board as of the revision
   * right before the set's lock (lockAndLoad), and every board the set wrote is kept there once it committed.
   */
  caches?: BoardCaches;
  /** Provisioning (PROV-*): runs first in the set's transaction (its lock), and last with what was applied. */
  hooks?: {
    before?: (trx: Knex.Transaction) => Promise<void>;
    after?: (trx: Knex.Transaction, applied: { file: BoardFile; boardId: string }[], plan: SetPlan) => Promise<void>;
  };
}

/** A board with nothing on it: what a pruned board's plan compares against. */
const emptied = (state: BoardState): BoardState => ({ ...state, layouts: [], sections: [], sectionLayouts: [], items: [], itemLayouts: [], bindings: [] });

/**
 * FLEET-11: a deadlock or serialization failure met while working on one board of the set (or on the set's locks,
 * `board` null): the whole set is tried again in a new transaction, and named when the tries run out.
 */
class SetCollision extends Error {
  constructor(readonly board: string | null) {
    super('set apply collided with another transaction');
  }
}

/**
 * FLEET-4: runs one board's part of the set, its errors naming the board. A board of the set's names created by a
 * concurrent request since the set's lock (the name index refuses the insert) is the 409 of the name, naming the
 * board (FLEET-12); a deadlock or serialization failure is a SetCollision of this board (FLEET-11).
 */
async function forBoard<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isTransactionCollision(error)) throw new SetCollision(name);
    if (isUniqueViolation(error, boardNameIndex)) throw namingBoard(conflict(nameConflictMessage), name);
    // PROV-5: the database's refusal of a write to a provisioned board is a 409 of this board too.
    throw namingBoard(asApiError(error), name);
  }
}

/**
 * FLEET-11: before any write, the set locks every board it may write or delete (those of its files' names, letter
 * case ignored, and those of its label) in one statement, by id ascending: two sets that overlap lock their common
 * boards in the same order, so one waits for the other instead of deadlocking. A board deleted meanwhile by the set
 * it waited for is not returned (the file creates it again), one renamed is checked under its new name. Answers the
 * boards of the files' names among the locked ones (a name not in it has no board as of the lock).
 */
async function lockSetBoards(trx: Knex.Transaction, names: readonly string[], managedBy: string): Promise<Map<string, string>> {
  const locked: { id: string; name: string }[] = await Board.query(trx)
    .where((q) => q.whereRaw('lower(name) IN (SELECT lower(value) FROM jsonb_array_elements_text(?::jsonb))', [JSON.stringify(names)]).orWhere('managedBy', managedBy))
    .orderBy('id')
    .forUpdate()
    .select('id', 'name')
    .castTo<{ id: string; name: string }[]>();
  const byName = new Map(locked.map((board) => [board.name.toLowerCase(), board.id]));
  const ids = new Map<string, string>();
  for (const name of names) {
    const id = byName.get(name.toLowerCase());
    if (id !== undefined) ids.set(name, id);
  }
  return ids;
}

/**
 * What the set's files share, read once in the set's transaction: this instance's id (FILE-6), the boards of the
 * files' names (no file's write adds or removes another file's name: FLEET-2), and the ids of the boards a dry run
 * created without writing their content (UnwrittenCreates).
 */
interface SetFacts {
  instanceId: string;
  boardIds: ReadonlyMap<string, string>;
  pending: ExistingElement[];
}

/** One file in a savepoint of the set's transaction: rolled back to the savepoint when it changes nothing (FLEET-5). */
async function applyFile(trx: Knex.Transaction, options: SetApplyOptions, file: BoardFile, set: SetFacts): Promise<ImportStep> {
  // DB-4: the event loop serves other requests between the set's boards (PGlite runs on this thread).
  await yieldToRequests();
  return unlessRolledBack(() =>
    trx.transaction(async (savepoint) => {
      const step = await importInTransaction(savepoint, {
        principal: options.principal,
        file,
        onConflict: 'replace',
        write: true,
        // A dry run's writes are rolled back: their history entries (limit 0: none) would be too, and nothing of the
        // set reads them.
        history: options.dryRun ? { ...options.history, limit: 0 } : options.history,
        owner: { managedBy: options.managedBy, ignoreSource: options.ignoreSource, force: options.force },
        caches: options.caches,
        instanceId: set.instanceId,
        boardIds: set.boardIds,
        unwritten: options.dryRun ? { pending: set.pending } : undefined,
        plannedOnly: options.dryRun,
      });
      // FLEET-16: a conflict without force wrote nothing; its savepoint goes too (the lock's revision bump).
      if (!step.changed || (step.conflict && !options.force)) throw new RolledBack(step);
      return step;
    }),
  );
}

/**
 * FLEET-6: deletes the boards of the label that no file names. Boards the caller cannot view are not considered
 * (a prune never reveals a board); one it can view without full access is a 403 naming it, nothing written.
 */
async function pruneBoards(trx: Knex.Transaction, options: SetApplyOptions, appliedIds: ReadonlySet<string>): Promise<SetPlanEntry[]> {
  const labelled = await Board.query(trx).where({ managedBy: options.managedBy }).orderBy('name').select('id', 'name').castTo<{ id: string; name: string }[]>();
  const entries: SetPlanEntry[] = [];
  for (const board of pruneCandidates(labelled, appliedIds)) {
    await yieldToRequests(); // DB-4
    const access = await loadBoardAccess(trx, board.id, options.principal);
    if (!access?.canView) continue;
    await forBoard(board.name, async () => {
      if (!access.canFull) throw forbidden('Permission denied');
      const state = (await loadBoardState(trx, board.id, options.principal))!;
      await deleteBoard(trx, options.principal, board.id);
      entries.push({
        name: board.name,
        action: 'delete',
        boardId: board.id,
        version: state.board.version,
        changes: compareStates(state, emptied(state)),
        ignored: [],
        warnings: [],
      });
    });
  }
  return entries;
}

/** AUDIT-7: the set's entry and one `board.delete` per pruned board, in the set's transaction (after the change). */
async function auditSetApply(trx: Knex.Transaction, options: SetApplyOptions, plan: SetPlan): Promise<void> {
  const { source, action, onlyWhenChanged } = options.audit;
  if (onlyWhenChanged && !plan.summary.changed) return;
  for (const entry of plan.boards) {
    if (entry.action !== 'delete') continue;
    await recordAudit(trx, source, { action: 'board.delete', targetType: 'board', targetId: entry.boardId, details: { name: entry.name, managedBy: plan.managedBy, prune: true } });
  }
  // AUDIT-7: the commit id and subject the set was applied at, as its history entries have them (FLEET-8).
  const origin = { commit: options.history.origin?.commit ?? null, message: options.history.origin?.message ?? null };
  await recordAudit(trx, source, { action, targetType: 'boardSet', targetId: plan.managedBy, details: { ...setApplyAuditDetails(plan), ...origin } });
  // HOOK-9: an applied set (as audited: provisioning's only when it changed something), in the set's transaction.
  const boardIds = plan.boards.flatMap((entry) => (entry.boardId ? [entry.boardId] : []));
  await enqueueWebhookEvent(trx, 'boardSet.applied', null, { label: plan.managedBy, ...origin, counts: plan.summary, boardIds });
}

/**
 * The set apply of `POST /api/boards/apply`, counted (METRIC-6) by outcome (a refused or failed one is a failure) and
 * whether it was a dry run. Provisioning runs `applySet` and counts its own applies (METRIC-7).
 */
export async function applyBoardSet(db: Knex, options: SetApplyOptions): Promise<SetPlan> {
  const dryRun = String(options.dryRun);
  try {
    const plan = await applySet(db, options);
    metrics.setApplies.inc({ outcome: 'success', dry_run: dryRun });
    return plan;
  } catch (error) {
    metrics.setApplies.inc({ outcome: 'failure', dry_run: dryRun });
    throw error;
  }
}

/** FLEET-11: how many times a set is tried in all when it collides with another transaction (deadlock, serialization). */
export const setApplyTries = 5;

/** FLEET-11: the answer once every try collided: a 409 naming the board (or the set's label), nothing written. */
export function setCollisionConflict(managedBy: string, board: string | null): ApiError {
  const message = 'Another set apply wrote this board at the same time; nothing was written, apply again';
  return board === null ? conflict(`Set ${managedBy}: ${message}`, { managedBy }) : (namingBoard(conflict(message, { managedBy }), board) as ApiError);
}

/**
 * FLEET-11: the set in one transaction, tried again as a whole in a new transaction when the database ended it for a
 * deadlock or a serialization failure, at most `setApplyTries` times (a short random pause between tries spreads
 * two colliding sets apart); then a 409 naming the board, never a 500.
 */
export async function applySet(db: Knex, options: SetApplyOptions): Promise<SetPlan> {
  assertDistinctNames(options.files);
  for (const file of options.files) await forBoard(file.name, async () => (await yieldToRequests(), assertFileContent(file))); // DB-4
  for (let attempt = 1; ; attempt++) {
    try {
      return await applySetOnce(db, options);
    } catch (error) {
      const collision = error instanceof SetCollision ? error : isTransactionCollision(error) ? new SetCollision(null) : null;
      if (!collision) throw error;
      if (attempt >= setApplyTries) throw setCollisionConflict(options.managedBy, collision.board);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

async function applySetOnce(db: Knex, options: SetApplyOptions): Promise<SetPlan> {
  const written: BoardState[] = [];
  const plan = await unlessRolledBack(() =>
    withNameConflictAs409(() =>
      db.transaction(async (trx) => {
        await options.hooks?.before?.(trx);
        // FLEET-14: the set's label is its owner's (or an admin's); the first set of a label claims it (FLEET-13).
        await assertMayWriteLabel(trx, { principal: options.principal, provisioning: options.provisioning }, options.managedBy);
        const set: SetFacts = {
          instanceId: await readInstanceId(trx),
          boardIds: await lockSetBoards(trx, options.files.map((file) => file.name), options.managedBy),
          pending: [],
        };
        const entries: SetPlanEntry[] = [];
        const appliedIds = new Set<string>();
        const applied: { file: BoardFile; boardId: string }[] = [];
        for (const file of options.files) {
          const step = await forBoard(file.name, () => applyFile(trx, options, file, set));
          if (step.unwritten) set.pending.push(...step.unwritten);
          appliedIds.add(step.outcome.boardId);
          applied.push({ file, boardId: step.outcome.boardId });
          if (step.changed && !(step.conflict && !options.force)) written.push(step.after);
          const conflict = step.conflict ? { details: step.conflict, force: options.force ?? false } : undefined;
          entries.push(entryOfImport(step.plan, step.changed, options.dryRun ? step.plan.boardId : step.outcome.boardId, conflict));
        }
        // FLEET-16: a real apply refuses boards changed on the server since their files' base, naming every one.
        const refusal = options.dryRun ? null : conflictsRefusal(entries);
        if (refusal) throw refusal;
        if (options.prune) entries.push(...(await pruneBoards(trx, options, appliedIds)));
        const plan = summarize(options.managedBy, options.dryRun, entries);
        if (options.dryRun) throw new RolledBack(plan);
        await options.hooks?.after?.(trx, applied, plan);
        await auditSetApply(trx, options, plan);
        return plan;
      }),
    ),
  );
  // Committed (a dry run wrote nothing): the boards as the set left them, for the next write's lockAndLoad.
  if (!options.dryRun) for (const after of written) options.caches?.states.set(contentOf(after));
  return plan;
}
