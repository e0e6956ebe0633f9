/**
 * A fleet of boards as code (FLEET-2..8) from the command line: `tessera plan|apply|diff|drift -f <dir|file>…`.
 * Every board file of the paths is sent as one set to `POST /api/boards/apply` (dry run for `plan`), so the server
 * plans and applies the whole set in one transaction; in a git work tree the commit id and subject go with it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { RemoteError, UsageError } from '../errors';
import type { BoardFile, BoardSetPlan, BoardSetRequest, TesseraApi } from './api';
import { boardFileNamesIn } from '../../boards/files/directory';
import { inFileTerms, parsedOrThrow } from './fileErrors';
import { diffBoardFiles, FieldDiff, renderFieldDiffs } from './fileDiff';
import { colors, confirmed, printJson, printLine } from './output';
import { labelsFromDocument, labelsFromFile, mergeLabels, renderDiff, renderPlan, type Labels } from './planRender';

export interface FleetFile {
  path: string;
  content: BoardFile;
  /** The file as written (CLI-9: where a problem is). */
  text: string;
}

/**
 * The board files the `-f` paths name: a directory's board files (FLEET-10, sorted), or the file itself. A file that
 * does not parse is named with the line and column of its error (CLI-9).
 */
export function readFleetFiles(paths: readonly string[]): FleetFile[] {
  if (paths.length === 0) throw new UsageError('Name the board files with -f <dir|file>');
  const files = paths.flatMap((given) => {
    const stat = statSync(given, { throwIfNoEntry: false });
    if (!stat) throw new UsageError(`No such file or directory: ${given}`);
    if (!stat.isDirectory()) return [given];
    return boardFileNamesIn(given).map((name) => path.join(given, name));
  });
  return files.map((file) => {
    const text = readFileSync(file, 'utf8');
    const content = parsedOrThrow(file, text);
    if (typeof content !== 'object' || content === null || Array.isArray(content)) throw new Error(`${file}: not a board file (a YAML or JSON mapping)`);
    return { path: file, content: content as BoardFile, text };
  });
}

function git(dir: string, args: string[]): string | null {
  try {
    return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
  } catch {
    return null;
  }
}

const dirOf = (given: string) => (statSync(given, { throwIfNoEntry: false })?.isDirectory() ? given : path.dirname(given));

/** FLEET-8: the commit the files are at (in a git work tree) and its subject, or `--message`. */
export function originOf(paths: readonly string[], message?: string): NonNullable<BoardSetRequest['origin']> {
  const dir = dirOf(paths[0]);
  const commit = git(dir, ['rev-parse', 'HEAD']);
  return { commit, message: message ?? (commit ? git(dir, ['log', '-1', '--format=%s']) : null) };
}

/**
 * The label of the set when `--managed-by` is not given: the git work tree's `origin` remote, else the name of the
 * work tree's (or the first path's) directory; the same on every machine that checks out the repository.
 */
export function defaultManagedBy(paths: readonly string[]): string {
  const dir = dirOf(paths[0]);
  const remote = git(dir, ['config', '--get', 'remote.origin.url']);
  if (remote) return labelOfRemote(remote);
  return path.basename(git(dir, ['rev-parse', '--show-toplevel']) ?? path.resolve(dir));
}

/**
 * A git remote as a label that names the repository, not the way it is reached: `git@github.com:example/dashboards.git`
 * (scp-like SSH), `ssh://git@github.com:22/example/dashboards`, `https://user:token@GitHub.com/example/dashboards.git/`
 * all give `github.com/example/dashboards`, so a developer's SSH clone and CI's HTTPS checkout share one label.
 */
export function labelOfRemote(remote: string): string {
  const url = remote.trim();
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:]+)(?::\d*)?(?:\/(.*))?$/i.exec(url);
  const scpLike = /^(?:[^@/:]+@)?([^/:]+):(?!\/\/)(.*)$/.exec(url);
  const parts = scheme ?? scpLike;
  if (!parts) return url.replace(/\/+$/, '').replace(/\.git$/, '');
  const repository = (parts[2] ?? '').replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
  return repository ? `${parts[1].toLowerCase()}/${repository}` : parts[1].toLowerCase();
}

export interface SetOptions {
  file: string[];
  managedBy?: string;
  prune?: boolean;
  /** FLEET-16: overwrite boards changed on the server since their files' base. */
  force?: boolean;
  message?: string;
  output?: 'json' | 'text';
}

function setRequest(files: FleetFile[], options: SetOptions): BoardSetRequest {
  return { managedBy: options.managedBy ?? defaultManagedBy(options.file), origin: originOf(options.file, options.message), boards: files.map((f) => f.content) };
}

/** FLEET-4: a server error naming a board also names the file it comes from. */
function withFile(error: unknown, files: FleetFile[]): unknown {
  if (!(error instanceof RemoteError) || typeof error.data.board !== 'string') return error;
  const file = files.find((f) => f.content.name?.toLowerCase() === (error.data.board as string).toLowerCase());
  return file ? new RemoteError(`${file.path}: ${error.message}`, error.code, error.status, error.data, error.details) : error;
}

async function sendSet(api: TesseraApi, files: FleetFile[], request: BoardSetRequest, query: { dryRun: boolean; prune: boolean; force: boolean }): Promise<BoardSetPlan> {
  try {
    return await api.applySet(request, query);
  } catch (error) {
    // CLI-9: a refused set in its files' terms.
    throw withFile(inFileTerms(error, files), files);
  }
}

type SetEntry = BoardSetPlan['boards'][number];

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** `alice (updateBoardItem, revision 12, 2026-11-23T10:15:00.000Z)`: who wrote a history entry, and what. */
function entryLine(entry: NonNullable<SetEntry['conflict']>['changedBy'][number]): string {
  const who = entry.actor.name ?? entry.actor.userId ?? 'someone';
  const commit = entry.origin?.commit ? `, ${entry.origin.managedBy ?? 'a set'} at ${entry.origin.commit.slice(0, 12)}` : '';
  return `  ${who} (${entry.operation}, revision ${entry.revision}${commit}, ${entry.at})`;
}

/**
 * FLEET-16: a board changed on the server since its file's base: who changed it, what changed there (the revision
 * diff, with the labels of the file and the board as it stands), and, without --force, the remedy.
 */
function conflictLines(entry: SetEntry, labels: Labels, forced: boolean): string[] {
  const conflict = entry.conflict!;
  const c = colors;
  const base = `version ${conflict.baseVersion}${conflict.baseRevision === null ? '' : `, revision ${conflict.baseRevision}`}`;
  const lines = [
    forced
      ? `Board ${c.bold(entry.name)} (${entry.boardId}, version ${entry.version}) will be ${c.yellow('updated')}, ${c.red('overwriting')} what changed on the server since its file's base (${base}):`
      : `Board ${c.bold(entry.name)} (${entry.boardId}, version ${entry.version}) is in ${c.red('conflict')}: it changed on the server since its file's base (${base}).`,
  ];
  if (conflict.changedBy.length > 0) lines.push(`Changed there by:`, ...conflict.changedBy.map(entryLine));
  if (conflict.serverChanges && conflict.baseRevision !== null) {
    lines.push(...renderDiff(entry.name, { from: conflict.baseRevision, to: null, changes: conflict.serverChanges }, labels, c).filter((l) => l !== '' && !/^\d+ added, /.test(l)));
  } else lines.push('What changed there cannot be shown: the base revision is not in the board\'s history.');
  lines.push(forced ? 'The file makes it:' : 'Applying the file with --force would make it:');
  return lines;
}

export async function printSetPlan(api: TesseraApi, plan: BoardSetPlan, files: FleetFile[]): Promise<void> {
  const byName = new Map(files.map((f) => [f.content.name?.toLowerCase(), f]));
  for (const entry of plan.boards) {
    if (entry.action === 'unchanged') continue;
    if (entry.action === 'delete') {
      printLine(`Board ${colors.bold(entry.name)} (${entry.boardId}, version ${entry.version}) will be ${colors.red('deleted')} (pruned: no file names it).`);
      printLine('');
      continue;
    }
    const file = byName.get(entry.name.toLowerCase());
    // A new board's name is in the heading: its change from "" is not shown again.
    const { name: _name, ...board } = entry.changes.board;
    const changes = entry.action === 'create' ? { ...entry.changes, board } : entry.changes;
    const fileLabels = labelsFromFile(file?.content ?? null);
    // A conflict's elements are named with the board as it stands too (what the server added, what the file removes).
    const labels = entry.conflict && entry.boardId ? mergeLabels(labelsFromDocument(await api.board(entry.boardId)), fileLabels) : fileLabels;
    const lines = renderPlan({ ...entry, changes, action: entry.action === 'create' ? 'create' : 'replace' } as never, labels, colors);
    const planned = lines.filter((l) => !l.startsWith('Plan: '));
    if (entry.conflict) {
      for (const line of conflictLines(entry, labels, entry.action !== 'conflict')) printLine(line);
      planned.shift(); // the heading: said above
    }
    for (const line of planned) printLine(line);
    if (entry.action === 'conflict') {
      printLine(`Pull the board again (tessera boards pull ${entry.name}${file ? ` -o ${file.path}` : ''}) and redo your edit, or apply with --force to overwrite the changes made there.`);
      printLine('');
    }
  }
  const { create, update, unchanged, delete: deleted, conflict = 0 } = plan.summary;
  const conflicts = conflict > 0 ? `; ${conflict} in conflict (changed on the server since ${plural(conflict, "its file's", "their files'")} base)` : '';
  if (!plan.summary.changed) printLine(`No changes: ${unchanged} board${unchanged === 1 ? '' : 's'} of ${plan.managedBy} already match the files.`);
  else printLine(`Plan for ${plan.managedBy}: ${create} to create, ${update} to update, ${deleted} to delete, ${unchanged} unchanged${conflicts}.`);
}

/** FLEET-7, FLEET-16: `tessera plan`: exit 0 when nothing changes, 2 when something does (a conflict included). */
export async function planSet(api: TesseraApi, options: SetOptions): Promise<number> {
  const { plan, files } = await planOfSet(api, options);
  if (options.output === 'json') printJson(plan);
  else await printSetPlan(api, plan, files);
  return plan.summary.changed ? 2 : 0;
}

/** The server's plan of the set the `-f` paths hold (a dry run): `tessera plan` and `tessera discover --plan` (DISC-24). */
export async function planOfSet(api: TesseraApi, options: SetOptions): Promise<{ plan: BoardSetPlan; files: FleetFile[] }> {
  const files = readFleetFiles(options.file);
  const plan = await sendSet(api, files, setRequest(files, options), { dryRun: true, prune: options.prune ?? false, force: options.force ?? false });
  return { plan, files };
}

/** FLEET-16: `apply` without --force over boards in conflict refuses, naming them and the remedy, before writing. */
function refuseConflicts(plan: BoardSetPlan): void {
  const names = plan.boards.filter((entry) => entry.action === 'conflict').map((entry) => entry.name);
  if (names.length === 0) return;
  const [these, them, edits] = names.length === 1 ? ['board changed', 'it', 'edit'] : ['boards changed', 'them', 'edits'];
  throw new Error(
    `Refusing to apply: ${names.length} ${these} on the server since ${plural(names.length, "its file's", "their files'")} base: ${names.join(', ')}. Pull ${them} again and redo your ${edits}, or apply with --force to overwrite the changes made there.`,
  );
}

/**
 * `tessera apply`: the plan, a confirmation unless `-y`, then the apply of the same set (or only the plan with
 * `--dry-run`, which exits as `plan`: 2 when it changes something).
 */
export async function applySet(api: TesseraApi, options: SetOptions & { yes?: boolean; dryRun?: boolean }): Promise<number> {
  const files = readFleetFiles(options.file);
  const request = setRequest(files, options);
  const query = { prune: options.prune ?? false, force: options.force ?? false };
  const json = options.output === 'json';
  const plan = await sendSet(api, files, request, { ...query, dryRun: true });
  if (!plan.summary.changed || options.dryRun) {
    if (json) printJson(plan);
    else await printSetPlan(api, plan, files);
    // FLEET-7: a dry run exits as `plan` does.
    return plan.summary.changed ? 2 : 0;
  }
  if (json) {
    if ((plan.summary.conflict ?? 0) > 0) printJson(plan);
  } else await printSetPlan(api, plan, files);
  refuseConflicts(plan);
  if (!options.yes && !(await confirmed('Apply these changes?', 'apply'))) {
    printLine('Apply cancelled.');
    return 1;
  }
  const done = await sendSet(api, files, request, { ...query, dryRun: false });
  if (json) printJson(done);
  else {
    const { create, update, unchanged, delete: deleted } = done.summary;
    const at = request.origin?.commit ? ` at ${request.origin.commit.slice(0, 12)}` : '';
    printLine(`Applied ${done.managedBy}${at}: ${create} created, ${update} updated, ${deleted} deleted, ${unchanged} unchanged.`);
  }
  return 0;
}

/** The live board of a name as a board file, or null when there is none (or the caller cannot see it). */
async function liveFile(api: TesseraApi, name: string): Promise<BoardFile | null> {
  try {
    const board = await api.boardByName(name);
    return JSON.parse(await api.exportBoard(board.id, 'json')) as BoardFile;
  } catch (error) {
    if (error instanceof RemoteError && error.status === 404) return null;
    throw error;
  }
}

/**
 * `tessera diff` (what applying the files would change, field by field) and `tessera drift` (what the live boards
 * changed since the files: the same, reversed). Exit 0 when there is nothing, 2 when there is.
 */
export async function diffSet(api: TesseraApi, options: SetOptions & { reverse: boolean }): Promise<number> {
  const files = readFleetFiles(options.file);
  const results: { name: string; file: string; missing: boolean; changes: FieldDiff[] }[] = [];
  for (const file of files) {
    const live = await liveFile(api, file.content.name);
    const changes = options.reverse ? (live ? diffBoardFiles(file.content, live, 'before') : []) : diffBoardFiles(live, file.content);
    results.push({ name: file.content.name, file: file.path, missing: live === null, changes });
  }
  const drifted = results.filter((r) => r.changes.length > 0 || (options.reverse && r.missing));
  if (options.output === 'json') printJson({ boards: results });
  else if (drifted.length === 0) printLine(options.reverse ? 'No drift: every board matches its file.' : 'No changes: every board matches its file.');
  else {
    for (const r of drifted) {
      if (options.reverse && r.missing) printLine(`Board ${colors.bold(r.name)} (${r.file}) is ${colors.red('missing')} on the server.`);
      else printLine(`Board ${colors.bold(r.name)} (${r.file})${options.reverse ? ' changed on the server' : ''}:`);
      for (const line of renderFieldDiffs(r.changes, colors)) printLine(line);
    }
  }
  return drifted.length > 0 ? 2 : 0;
}
