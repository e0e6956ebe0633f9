/**
 * `boards plan` and `boards apply`: a board file planned as an import with `onConflict=replace`, and applied after
 * the plan was shown (and confirmed). A file whose `source` version the board has moved past is refused by the
 * server (FILE-6); the CLI then shows what changed on the server since the file was taken.
 */
import { RemoteError } from '../errors';
import type { ImportPlan, ImportResult, TesseraApi } from './api';
import { LocalBoardFile, sourceOf, withoutSource, withSourceVersion } from './boardFile';
import { inFileTerms } from './fileErrors';
import { colors, confirmed, printJson, printLine } from './output';
import { hasChanges, Labels, labelsFromDocument, labelsFromFile, mergeLabels, renderDiff, renderPlan } from './planRender';

export type FilePlan =
  /** `file` is what to apply: the file itself, or without its source when that guard is set aside. */
  | { kind: 'plan'; plan: ImportPlan; file: LocalBoardFile }
  | { kind: 'conflict'; error: RemoteError; boardId: string; revision: number | null };

const isVersionConflict = (error: unknown): error is RemoteError =>
  error instanceof RemoteError && error.status === 409 && error.code === 'CONFLICT';

export async function planFile(api: TesseraApi, file: LocalBoardFile, options: { force: boolean }): Promise<FilePlan> {
  const sent = options.force ? withoutSource(file) : file;
  try {
    return { kind: 'plan', plan: await api.planImport(sent.text, sent.format), file: sent };
  } catch (error) {
    const source = sourceOf(file);
    // CLI-9: a file the schema refuses, in the file's terms (the original's lines: `--force` sends it without `source`).
    if (!isVersionConflict(error) || !source) throw inFileTerms(error, [file], 'file');
    // CLI-2: the board's version moved on since the file was taken. Nothing made there needs protecting when the
    // board already is what the file says (the file was applied, say) or is again what the file was taken from (a
    // restore, say): the file is then planned, and applied, guarded by the board's version now.
    const unguarded = withoutSource(file);
    const plan = await api.planImport(unguarded.text, unguarded.format);
    const rebased = plan.version === null ? unguarded : withSourceVersion(file, plan.version);
    if (!hasChanges(plan.changes) || !(await changedSince(api, source.boardId, source.revision))) return { kind: 'plan', plan, file: rebased };
    return { kind: 'conflict', error, boardId: source.boardId, revision: source.revision };
  }
}

/** Whether the board differs from what it was after `revision`; true when that cannot be told. */
async function changedSince(api: TesseraApi, boardId: string, revision: number | null): Promise<boolean> {
  if (revision === null) return true;
  try {
    return hasChanges((await api.diff(boardId, revision)).changes);
  } catch (error) {
    if (error instanceof RemoteError && error.status === 404) return true; // the revision left the history since
    throw error;
  }
}

/** Labels for a plan's ids: the board as it stands (for what is removed), then the file (for what is added). */
async function planLabels(api: TesseraApi, file: LocalBoardFile, plan: ImportPlan): Promise<Labels> {
  const current = plan.boardId ? labelsFromDocument(await api.board(plan.boardId)) : new Map();
  return mergeLabels(current, labelsFromFile(file.content));
}

export async function printPlan(api: TesseraApi, file: LocalBoardFile, plan: ImportPlan): Promise<void> {
  for (const line of renderPlan(plan, await planLabels(api, file, plan), colors)) printLine(line);
}

/** What changed on the server since the revision the file was taken at; null when that cannot be told. */
async function serverChanges(api: TesseraApi, conflict: Extract<FilePlan, { kind: 'conflict' }>, file: LocalBoardFile) {
  if (conflict.revision === null) return null;
  try {
    const diff = await api.diff(conflict.boardId, conflict.revision);
    const [then, now] = await Promise.all([api.revision(conflict.boardId, conflict.revision), api.board(conflict.boardId)]);
    return { diff, boardName: now.name, labels: mergeLabels(labelsFromDocument(then), labelsFromFile(file.content), labelsFromDocument(now)) };
  } catch (error) {
    if (error instanceof RemoteError && error.status === 404) return null; // the revision left the history since
    throw error;
  }
}

/** Shows what changed on the server since the file was taken, then fails with the server's conflict. */
export async function refuseConflict(api: TesseraApi, conflict: Extract<FilePlan, { kind: 'conflict' }>, file: LocalBoardFile, json: boolean): Promise<never> {
  const changes = await serverChanges(api, conflict, file);
  if (json) {
    printJson({ error: { message: conflict.error.message, code: conflict.error.code }, boardId: conflict.boardId, serverChanges: changes?.diff ?? null });
    throw conflict.error;
  }
  printLine(`The board changed on the server since ${file.path} was taken.`);
  if (changes) for (const line of renderDiff(changes.boardName, changes.diff, changes.labels, colors)) printLine(line);
  else printLine('What changed there cannot be shown: the file names no revision the board still has in its history.');
  printLine(`Pull the board again and redo your edit, or apply with --force to overwrite the changes made there.`);
  throw conflict.error;
}

export interface ApplyOptions {
  yes: boolean;
  force: boolean;
  json: boolean;
}

/** `boards apply`: exit status 0 when applied or nothing to apply, 1 when declined. */
export async function applyFile(api: TesseraApi, file: LocalBoardFile, options: ApplyOptions): Promise<number> {
  const outcome = await planFile(api, file, options);
  if (outcome.kind === 'conflict') return refuseConflict(api, outcome, file, options.json);
  const { plan } = outcome;
  if (!hasChanges(plan.changes)) {
    if (options.json) printJson({ result: 'unchanged', boardId: plan.boardId, name: plan.name, plan });
    else printLine(`No changes: board ${plan.name} already matches ${file.path}.`);
    return 0;
  }
  if (!options.json) await printPlan(api, file, plan);
  if (!options.yes && !(await confirmed('Apply these changes?', 'apply'))) {
    printLine('Apply cancelled.');
    return 1;
  }
  const { data, status } = await api.importBoard(outcome.file.text, outcome.file.format, { onConflict: 'replace' });
  const { boardId, name } = data as ImportResult;
  const result = status === 201 ? 'created' : 'updated';
  if (options.json) printJson({ result, boardId, name, plan });
  else printLine(`${result} ${name} (${boardId})`);
  return 0;
}
