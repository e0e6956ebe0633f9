/** `tessera boards …`: the commands that work on a running instance over HTTP, with an API key. */
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { UsageError } from '../errors';
import { BoardDocument, BoardSummary, FileFormat, HistoryEntry, RevisionDiff, TesseraApi } from './api';
import { formatOfExtension, readBoardFile } from './boardFile';
import { applyFile, planFile, printPlan, refuseConflict } from './boardSync';
import { exportAll, importAll } from './bulk';
import { ConnectionOptions, resolveConnection } from './connection';
import { assertCanConfirm, colors, confirmed, printJson, printLine, printTable, yesNo } from './output';
import { hasChanges, labelsFromDocument, mergeLabels, renderDiff } from './planRender';
import { applySet, diffSet, planSet } from './fleet';
import { listContexts, login, useContext } from './contexts';

/** Runs a command's work and takes its exit status. */
export type Runner = (work: () => Promise<number>) => Promise<void>;

interface JsonOption {
  json?: boolean;
}

export const connect = (options: ConnectionOptions) => new TesseraApi(resolveConnection(options));

export function positiveInteger(value: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new InvalidArgumentError('Not a positive integer.');
  return Number(value);
}

/** A command with the connection options, and `--json` unless told otherwise. */
export function remoteCommand(parent: Command, name: string, description: string, { json = true } = {}): Command {
  const command = parent
    .command(name)
    .description(description)
    .option('--url <url>', 'the instance (default: $TESSERA_URL, or the config file)')
    .option('--api-key <id.token>', 'the API key (default: $TESSERA_API_KEY, or the config file)')
    .option('--context <name>', 'a context of the config file ($TESSERA_CONFIG, default ~/.config/tessera/config.yaml)');
  return json ? command.option('--json', 'print JSON instead of text') : command;
}

const homeOf = (board: BoardSummary) => [board.isHome && 'desktop', board.isMobileHome && 'mobile'].filter(Boolean).join(', ');

async function listBoards(api: TesseraApi, options: JsonOption): Promise<number> {
  const boards = await api.listBoards();
  if (options.json) printJson(boards);
  else if (boards.length === 0) printLine('No boards.');
  else printTable(['name', 'id', 'public', 'home'], boards.map((b) => [b.name, b.id, yesNo(b.isPublic), homeOf(b)]));
  return 0;
}

async function pullBoard(api: TesseraApi, name: string, options: { output?: string; format?: FileFormat }): Promise<number> {
  const format = options.format ?? (options.output ? formatOfExtension(options.output) : null) ?? 'yaml';
  const board = await api.boardByName(name);
  const text = await api.exportBoard(board.id, format);
  if (!options.output) {
    process.stdout.write(text);
    return 0;
  }
  writeFileSync(options.output, text);
  printLine(`pulled ${board.name} to ${options.output}`);
  return 0;
}

async function planBoardFile(api: TesseraApi, path: string, options: JsonOption & { force?: boolean }): Promise<number> {
  const file = readBoardFile(path);
  const outcome = await planFile(api, file, { force: options.force ?? false });
  if (outcome.kind === 'conflict') return refuseConflict(api, outcome, file, options.json ?? false);
  if (options.json) printJson(outcome.plan);
  else await printPlan(api, file, outcome.plan);
  return hasChanges(outcome.plan.changes) ? 2 : 0;
}

function summaryText(summary: HistoryEntry['summary']): string {
  const parts = (['items', 'sections', 'layouts'] as const).flatMap((kind) => {
    const { added, removed, updated } = summary[kind];
    const counts = [added && `+${added}`, updated && `~${updated}`, removed && `-${removed}`].filter(Boolean);
    return counts.length > 0 ? [`${kind} ${counts.join(' ')}`] : [];
  });
  if (summary.fields.length > 0) parts.push(`fields: ${summary.fields.join(', ')}`);
  return parts.join('; ');
}

const actorText = (actor: HistoryEntry['actor']) => `${actor.name ?? actor.userId ?? '-'}${actor.apiKeyId ? ' (API key)' : ''}`;

/** FLEET-8: the commit (its first 12 characters) and subject, or the message, a set apply recorded; `-` for none. */
export function originText(origin: HistoryEntry['origin']): string {
  if (!origin || (!origin.commit && !origin.message)) return '-';
  return [origin.commit?.slice(0, 12), origin.message].filter(Boolean).join(' ');
}

async function showHistory(api: TesseraApi, name: string, options: JsonOption & { limit?: number }): Promise<number> {
  const board = await api.boardByName(name);
  const page = await api.history(board.id, options.limit);
  if (options.json) printJson(page);
  else {
    const rows = page.entries.map((e) => [String(e.revision), String(e.version), e.at, e.operation, actorText(e.actor), originText(e.origin), summaryText(e.summary)]);
    printTable(['revision', 'version', 'at', 'operation', 'actor', 'origin', 'summary'], rows);
    if (page.nextCursor) printLine(colors.dim(`(older entries not shown: pass --limit)`));
  }
  return 0;
}

/** The diff of `board` from revision `from` to `to` (or now), as lines for people. */
async function printRevisionDiff(api: TesseraApi, board: BoardDocument, diff: RevisionDiff): Promise<void> {
  const [before, after] = await Promise.all([api.revision(board.id, diff.from), diff.to !== null ? api.revision(board.id, diff.to) : board]);
  for (const line of renderDiff(board.name, diff, mergeLabels(labelsFromDocument(before), labelsFromDocument(after)), colors)) printLine(line);
}

async function showDiff(api: TesseraApi, name: string, options: JsonOption & { from: number; to?: number }): Promise<number> {
  const board = await api.boardByName(name);
  const diff = await api.diff(board.id, options.from, options.to);
  if (options.json) printJson(diff);
  else await printRevisionDiff(api, board, diff);
  return 0;
}

/** CLI-1: shows what the restore undoes (the changes since the revision) and asks, unless --yes. */
async function restoreRevision(api: TesseraApi, name: string, revision: number, options: JsonOption & { yes?: boolean }): Promise<number> {
  const board = await api.boardByName(name);
  if (!options.yes) {
    assertCanConfirm('restore');
    printLine(`Restoring ${board.name} to revision ${revision} undoes these changes:`);
    await printRevisionDiff(api, board, await api.diff(board.id, revision));
    if (!(await confirmed(`Restore ${board.name} to revision ${revision}?`, 'restore'))) {
      printLine('Restore cancelled.');
      return 1;
    }
  }
  const { board: restored, dropped } = await api.restore(board.id, revision);
  if (options.json) {
    printJson({ board: restored, dropped });
    return 0;
  }
  printLine(`restored ${restored.name} (${restored.id}) to revision ${revision}: now version ${restored.version}`);
  if (dropped.itemIds.length > 0) printLine(`left out: app widgets whose app was deleted: ${dropped.itemIds.join(', ')}`);
  if (dropped.integrationIds.length > 0) printLine(`left out: bindings of deleted integrations: ${dropped.integrationIds.join(', ')}`);
  if ((dropped.appIds ?? []).length > 0) printLine(`deleted apps the revision's widgets named: ${dropped.appIds!.join(', ')}`);
  return 0;
}

export function addBoardCommands(program: Command, run: Runner): void {
  const boards = program.command('boards').description('work with the boards of a running instance (over HTTP, with an API key)');

  remoteCommand(boards, 'list', 'list the boards you can see').action((options) => run(() => listBoards(connect(options), options)));

  remoteCommand(boards, 'pull', 'write a board as a file (to stdout without -o)', { json: false })
    .argument('<name>', 'the board')
    .option('-o, --output <file>', 'the file to write (its extension .json or .yaml picks the format)')
    .addOption(new Option('--format <format>', 'the file format (default: yaml)').choices(['yaml', 'json']))
    .action((name, options) => run(() => pullBoard(connect(options), name, options)));

  remoteCommand(boards, 'plan', 'show what applying a board file would change (exit 0: nothing, 2: changes, 1: error)')
    .argument('<file>', 'a board file (YAML or JSON)')
    .option('--force', "plan as apply --force would apply: without the guard of the file's source version")
    .action((file, options) => run(() => planBoardFile(connect(options), file, options)));

  remoteCommand(boards, 'apply', 'make the board what the file says: plan, confirm, apply')
    .argument('<file>', 'a board file (YAML or JSON)')
    .option('-y, --yes', 'apply without asking (required when stdin is not a terminal)')
    .option('--force', 'apply even when the board changed on the server since the file was taken')
    .action((file, options) =>
      run(() => applyFile(connect(options), readBoardFile(file), { yes: options.yes ?? false, force: options.force ?? false, json: options.json ?? false })),
    );

  remoteCommand(boards, 'export', 'write every board you can see as <name>.yaml into a directory')
    .option('--all', 'every board (required)')
    .requiredOption('-o, --output <dir>', 'the directory')
    .action((options) =>
      run(() => {
        if (!options.all) throw new UsageError('boards export needs --all (one board: boards pull)');
        return exportAll(connect(options), options.output, options.json ?? false);
      }),
    );

  remoteCommand(boards, 'import', 'import every *.yaml, *.yml and *.json board file of a directory, replacing boards of the same name')
    .argument('<dir>', 'the directory')
    .action((dir, options) => run(() => importAll(connect(options), dir, options.json ?? false)));

  remoteCommand(boards, 'history', "list a board's revisions, newest first")
    .argument('<name>', 'the board')
    .option('--limit <n>', 'entries to show (default 50, at most 500)', positiveInteger)
    .action((name, options) => run(() => showHistory(connect(options), name, options)));

  remoteCommand(boards, 'diff', 'show what changed between two revisions of a board')
    .argument('<name>', 'the board')
    .requiredOption('--from <revision>', 'the earlier revision', positiveInteger)
    .option('--to <revision>', 'the later revision (default: the board as it stands)', positiveInteger)
    .action((name, options) => run(() => showDiff(connect(options), name, options)));

  remoteCommand(boards, 'restore', 'put a board back as it was after a revision: show what it undoes, confirm, restore')
    .argument('<name>', 'the board')
    .argument('<revision>', 'the revision', positiveInteger)
    .option('-y, --yes', 'restore without asking (required when stdin is not a terminal)')
    .action((name, revision, options) => run(() => restoreRevision(connect(options), name, revision, options)));
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** FLEET-7: a usage error of `plan`, `diff` or `drift` exits 1 too (2 means changes). */
export async function exitOneOnError(work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UsageError) throw Object.assign(new Error(error.message), { name: 'Error' });
    throw error;
  }
}

/**
 * A set command (FLEET-*): the connection options, `-f` paths, `-o`, and for those that send a set (plan, apply)
 * `--managed-by`; diff and drift compare each file with its board by name and have no label to take.
 */
function setCommand(program: Command, name: string, description: string, { labelled }: { labelled: boolean }): Command {
  const command = remoteCommand(program, name, description, { json: false })
    .requiredOption('-f, --file <dir|file>', 'a directory of board files (*.yaml, *.yml, *.json) or one board file; repeatable', collect)
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'));
  return labelled ? command.option('--managed-by <name>', "the set's label (default: the git remote origin, else the directory's name)") : command;
}

/** `tessera plan|apply|diff|drift` (a fleet of boards, FLEET-*) and `tessera login`, `tessera context` (CTX-*). */
export function addFleetCommands(program: Command, run: Runner): void {
  setCommand(program, 'plan', 'show what applying the board files as one set would change (exit 0: nothing, 2: changes, 1: error)', { labelled: true })
    .option('--prune', 'also plan deleting the boards of the label that no file names')
    .option('--force', 'plan as apply --force would apply: over boards changed on the server since their files\' base')
    .option('--message <text>', 'the change message recorded (default: the subject of the git commit)')
    .action((options) => run(() => exitOneOnError(() => planSet(connect(options), options))));

  setCommand(program, 'apply', 'apply the board files as one set, all or nothing: plan, confirm, apply', { labelled: true })
    .option('--prune', 'also delete the boards of the label that no file names')
    .option('--dry-run', 'only show the plan (exit 0: nothing, 2: changes, as plan)')
    .option('--force', 'apply over boards changed on the server since their files\' base, overwriting those changes')
    .option('-y, --yes', 'apply without asking (required when stdin is not a terminal)')
    .option('--message <text>', 'the change message recorded in history (default: the subject of the git commit)')
    .action((options) => run(() => applySet(connect(options), options)));

  setCommand(program, 'diff', 'show field by field what applying the board files would change (exit 0: nothing, 2: changes)', { labelled: false })
    .action((options) => run(() => exitOneOnError(() => diffSet(connect(options), { ...options, reverse: false }))));

  setCommand(program, 'drift', 'show field by field what the live boards changed since the files (exit 0: none, 2: drift)', { labelled: false })
    .action((options) => run(() => exitOneOnError(() => diffSet(connect(options), { ...options, reverse: true }))));

  program
    .command('login')
    .description('store a server and a checked API key as a context of the config file (key from $TESSERA_API_KEY, stdin, or asked)')
    .requiredOption('--server <url>', 'the instance')
    .option('--context <name>', 'the context name (default: the host)')
    .action((options) => run(() => login(options)));

  const context = program.command('context').description('the contexts of the config file (several servers)');
  context
    .command('list')
    .description('list the contexts, the current one marked')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action((options) => run(async () => listContexts(options)));
  context
    .command('use')
    .description('make a context the current one')
    .argument('<name>', 'the context')
    .action((name) => run(async () => useContext(name)));
}
