/**
 * GET /api/boards/{id}/drift (DRIFT-1): how the live board differs from the file provisioning applied to it: the
 * import plan of that file over the live board (what applying it would change), reversed, so that `added` is what
 * the live board has that the file does not. Computed in a transaction that is always rolled back.
 */
import type { Knex } from 'knex';
import { conflict, notFound } from '../../core/errors';
import type { Principal } from '../../identity/principal';
import { assertBoardAccess } from '../access';
import type { BoardChanges, ElementChanges } from '../document/changes';
import { RolledBack, unlessRolledBack } from '../document/save';
import type { BoardFile } from '../files/file';
import { importInTransaction, type ImportPlan } from '../files/importBoard';
import { readProvisionedFile, type ReadLimits } from './provisioningSources';
import { provisioningStatus } from './provisioner';
import { ProvisionedBoard } from '../../db/models';

export interface BoardDrift {
  boardId: string;
  managedBy: string;
  file: string;
  /** DRIFT-2: another writer wrote the board since provisioning last applied the file. */
  drifted: boolean;
  changes: BoardChanges;
}

const reversedElements = (c: ElementChanges): ElementChanges => ({ added: c.removed, removed: c.added, updated: c.updated });

/** DRIFT-1: the changes from the file to the live board (the plan of applying the file, turned around). */
export function reversedChanges(changes: BoardChanges): BoardChanges {
  return {
    sections: reversedElements(changes.sections),
    items: reversedElements(changes.items),
    layouts: reversedElements(changes.layouts),
    board: Object.fromEntries(Object.entries(changes.board).filter(([field]) => field !== 'managedBy').map(([field, c]) => [field, { from: c.to, to: c.from }])),
  };
}

export async function boardDrift(
  db: Knex,
  principal: Principal | null,
  boardId: string,
  provisioner: () => Promise<Principal | null>,
  limits: Omit<ReadLimits, 'maxFiles'>,
): Promise<BoardDrift> {
  await assertBoardAccess(db, boardId, principal, 'view');
  const row: { source: string; file: string; drifted: boolean } | undefined = await ProvisionedBoard.table(db).where({ boardId }).first('source', 'file', 'drifted');
  if (!row) throw notFound('Board is not provisioned');
  // row.file is the file's name in its source's directory (PROV-5): answers name it so, never by the server's path.
  const status = (await provisioningStatus(db)).find((status) => status.managedBy === row.source);
  // DISC-31: a discovered board has no file to compare with (its source is what runs, read on the source's schedule).
  if (status && status.kind !== 'directory') throw conflict(`Board file cannot be read: ${row.file} of ${row.source}: discovered from ${status.path}, not a file`, { file: row.file, source: row.source });
  const directory = status?.path;
  // PROV-7: read as provisioning reads it: confined, bounded, off the event loop.
  const read = directory === undefined ? ({ missing: true } as const) : await readProvisionedFile(directory, row.file, limits);
  if ('problem' in read) {
    throw conflict(`Board file cannot be read: ${row.file} of ${row.source}: ${read.problem.message}`, { file: row.file, source: row.source, line: read.problem.line });
  }
  if (!('content' in read)) throw conflict(`Board file cannot be read: ${row.file} of ${row.source}`, { file: row.file, source: row.source });
  const parsed = read;
  const as = await provisioner();
  if (!as) throw conflict('No provisioning user to compare the file as', { file: row.file });
  const plan = await unlessRolledBack<ImportPlan>(() =>
    db.transaction(async (trx) => {
      await trx.raw(`SELECT set_config('tessera.provisioning', 'on', true)`);
      const step = await importInTransaction(trx, {
        principal: as,
        file: parsed.content as BoardFile,
        onConflict: 'replace',
        write: false,
        history: { operation: 'drift', limit: 0 },
        owner: { managedBy: row.source, ignoreSource: true },
      });
      throw new RolledBack<ImportPlan>(step.plan);
    }),
  );
  return { boardId, managedBy: row.source, file: row.file, drifted: row.drifted, changes: reversedChanges(plan.changes) };
}
