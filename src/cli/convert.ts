/**
 * `tessera convert <format> <files or directory> -o <dir>` (CONV-1..6): reads another dashboard's configuration,
 * writes one board file per board into the output directory and `convert-report.json` beside them, and prints the
 * report. Reads only inside the input directory (symbolic links that lead out of it are refused), writes only inside
 * the output directory.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readConfinedFile } from '../core/confinedFile';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { stringify as toYaml } from 'yaml';
import { ConvertError, convertFormats, convertHomarrApi, convertLimits, converters, defaultIconBases, iconSets, type ConvertOptions, type ConvertReport, type ConvertResult, type IconBases, type IconSet } from '../convert';
import { appUrlProblem } from '../apps/urls';
import { UsageError } from './errors';
import { HomarrReadError, homarrReadDefaults, readHomarr, type HomarrAnswers } from './homarrApi';
import { printJson, printLine, printTable } from './remote/output';
import { positiveInteger, type Runner } from './remote/commands';

import { convertReportFileName as reportFileName } from '../boards/files/directory';

export { reportFileName };

/** Where `convert homarr --url` keeps the answers it read (CONV-7), inside the output directory. */
export const homarrApiDirectory = 'homarr-api';

interface Inputs {
  directory: string;
  files: string[];
}

/** The input directory and the files named relative to it. */
function inputsOf(paths: string[]): Inputs {
  for (const given of paths) if (!existsSync(given)) throw new UsageError(`No such file or directory: ${given}`);
  if (paths.length === 1 && statSync(paths[0]).isDirectory()) {
    const directory = path.resolve(paths[0]);
    const files = readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isFile() || entry.isSymbolicLink())
      .map((entry) => entry.name)
      .sort();
    return { directory, files };
  }
  if (paths.some((given) => statSync(given).isDirectory())) throw new UsageError('Name either one directory or files');
  const directory = path.dirname(path.resolve(paths[0]));
  const files = paths.map((given) => path.relative(directory, path.resolve(given)).split(path.sep).join('/'));
  if (files.some((file) => file.startsWith('../'))) throw new UsageError(`The files must be in the directory of the first one (${directory})`);
  return { directory, files };
}

/**
 * Reads `relative` inside `directory` only (CONV-6), with the reader provisioning uses (PROV-7): a regular file whose
 * real path lies inside it, at most the converter's byte cap; anything else is refused unread.
 */
function confinedReader(directory: string) {
  return (relative: string): string | null => {
    const read = readConfinedFile(directory, relative, convertLimits.fileBytes, 'the input directory');
    if (read.refused !== undefined) throw new ConvertError(relative, null, null, read.refused);
    return read.missing ? null : read.text;
  };
}

/**
 * CONV-13: a conversion never overwrites the board file another tool's conversion wrote into the same directory (the
 * two configurations have the same title): a usage error naming the board and `--name`, nothing written.
 */
function refuseCollisions(out: string, report: ConvertReport): void {
  let earlier: { format?: unknown; boards?: { name?: unknown }[] };
  try {
    earlier = JSON.parse(readFileSync(path.join(out, reportFileName), 'utf8'));
  } catch {
    return; // no earlier conversion there
  }
  if (typeof earlier.format !== 'string' || earlier.format === report.format || !Array.isArray(earlier.boards)) return;
  const taken = new Set(earlier.boards.map((board) => (typeof board?.name === 'string' ? board.name.toLowerCase() : '')));
  const colliding = report.boards.filter((board) => taken.has(board.name.toLowerCase())).map((board) => board.name);
  if (colliding.length === 0) return;
  throw new UsageError(
    `${path.join(out, `${colliding[0]}.yaml`)} holds the board ${colliding[0]} of a ${earlier.format} conversion; this ${report.format} configuration converts to the same name${colliding.length > 1 ? ` (and ${colliding.slice(1).join(', ')})` : ''}: name its board with --name <name>, or write into another directory`,
  );
}

/** CONV-13: a board name as BoardName allows it (letters, digits, - and _). */
export function boardNameOption(value: string): string {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) throw new InvalidArgumentError('Expected a board name: 1 to 200 letters, digits, - and _.');
  return value;
}

/** CONV-9: a number of seconds above 0 and at most `max`. */
function positiveNumber(flag: string, max: number) {
  return (value: string): number => {
    const seconds = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(seconds > 0) || seconds > max) throw new InvalidArgumentError(`Expected a number of seconds above 0 and at most ${max} for ${flag}.`);
    return seconds;
  };
}

function iconBase(value: string, previous: Partial<IconBases> = {}): Partial<IconBases> {
  const match = /^([a-z-]+)=(.+)$/.exec(value);
  if (!match || !(iconSets as readonly string[]).includes(match[1])) throw new InvalidArgumentError(`Expected <set>=<url>, set one of ${iconSets.join(', ')}.`);
  // The icon URLs made under it must pass the app URL rule (APP-6), or the files would fail on import.
  const problem = appUrlProblem('iconUrl', `${match[2].replace(/\/+$/, '')}/icon.svg`);
  if (problem) throw new InvalidArgumentError(`${match[2]}: icon URLs under it ${problem}.`);
  return { ...previous, [match[1] as IconSet]: match[2] };
}

function printReport(report: ConvertReport, directory: string): void {
  printTable(
    ['file', 'object', 'field', 'status', 'detail'],
    report.entries.map((entry) => [`${entry.file}${entry.at ? `:${entry.at}` : ''}`, entry.object, entry.field, entry.status, entry.detail]),
  );
  const counts = ['mapped', 'kept', 'unmapped', 'placeholder'].map((status) => `${report.entries.filter((e) => e.status === status).length} ${status}`);
  printLine();
  printLine(`${counts.join(', ')}; wrote ${report.boards.map((board) => path.join(directory, board.file)).join(', ')} and ${path.join(directory, reportFileName)}`);
}

interface ConvertOptionsGiven {
  output: string;
  json?: boolean;
  iconBase?: Partial<IconBases>;
  url?: string;
  apiKey?: string;
  timeout?: number;
  maxAnswerBytes?: number;
  name?: string;
  public?: boolean;
}

async function convert(format: string, paths: string[], options: ConvertOptionsGiven): Promise<number> {
  const out = path.resolve(options.output);
  const iconBases = { ...defaultIconBases, ...options.iconBase };
  const convertOptions = { iconBases, ...(options.name ? { name: options.name } : {}), ...(options.public ? { public: true } : {}) };
  let result: ConvertResult;
  let answers: HomarrAnswers | null = null;
  if (options.url !== undefined) {
    answers = await readRunningHomarr(format, paths, options);
    result = convertAnswers(answers, convertOptions);
  } else {
    if (paths.length === 0) throw new UsageError('Name a configuration directory or files (or, for homarr v1, --url and --api-key)');
    const inputs = inputsOf(paths);
    result = converters[format]({ files: inputs.files, read: confinedReader(inputs.directory) }, convertOptions);
  }
  refuseCollisions(out, result.report);
  // Only a conversion that succeeded writes anything (CONV-6, CONV-7).
  mkdirSync(out, { recursive: true });
  const write = (name: string, text: string) => {
    const target = path.resolve(out, name);
    // Board names are letters, digits, - and _; the answers' names are fixed: this holds, and is checked all the same.
    if (!target.startsWith(out + path.sep)) throw new Error(`refusing to write outside ${out}: ${name}`);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
  };
  if (answers) {
    // Answers of an earlier run (a board deleted since) never mix with these.
    rmSync(path.join(out, homarrApiDirectory), { recursive: true, force: true });
    for (const [name, text] of Object.entries(answers.files)) write(path.posix.join(homarrApiDirectory, name), text);
  }
  result.boards.forEach((board, index) => write(result.report.boards[index].file, toYaml(board, { lineWidth: 0 })));
  write(reportFileName, `${JSON.stringify(result.report, null, 2)}\n`);
  if (options.json) printJson(result.report);
  else printReport(result.report, options.output);
  return 0;
}

/** CONV-7: the answers read from a running Homarr v1 (`--url`). */
async function readRunningHomarr(format: string, paths: string[], options: ConvertOptionsGiven): Promise<HomarrAnswers> {
  if (format !== 'homarr') throw new UsageError('--url reads a running Homarr v1: use it with the homarr format');
  if (paths.length > 0) throw new UsageError('Name either configuration files or --url, not both');
  const apiKey = options.apiKey ?? process.env.HOMARR_API_KEY;
  if (!apiKey) throw new UsageError('--url needs --api-key <key> (or HOMARR_API_KEY)');
  return readHomarr(options.url!, apiKey, fetch, {
    timeoutMs: options.timeout === undefined ? homarrReadDefaults.timeoutMs : options.timeout * 1000,
    maxAnswerBytes: options.maxAnswerBytes ?? homarrReadDefaults.maxAnswerBytes,
  });
}

/** Converts the answers in memory; an answer of the wrong shape is one line naming the request that gave it. */
function convertAnswers(answers: HomarrAnswers, options: ConvertOptions): ConvertResult {
  try {
    return convertHomarrApi({ files: Object.keys(answers.files), read: (name) => answers.files[name] ?? null }, options);
  } catch (error) {
    if (!(error instanceof ConvertError) || !answers.requests[error.file]) throw error;
    const place = error.line === null ? '' : ` (at ${error.line}:${error.column} of its JSON)`;
    throw new HomarrReadError(`homarr: ${answers.requests[error.file]} answered what is not Homarr's: ${error.reason}${place}`);
  }
}

export function addConvertCommand(program: Command, run: Runner): void {
  program
    .command('convert')
    .description('convert a homepage, Dashy, Glance or old Homarr configuration, or a running Homarr v1 (--url), to Tessera board files, with a report of what could not be mapped')
    .addArgument(new Command().createArgument('<format>', 'the source dashboard').choices(convertFormats))
    .argument('[paths...]', 'a configuration directory, or configuration files')
    .requiredOption('-o, --output <dir>', 'the directory to write the board files and convert-report.json into')
    .option('--json', 'print the report as JSON instead of a table')
    .option('--url <url>', 'homarr: read a running Homarr v1 over its API instead of files (its answers are kept in <dir>/homarr-api/)')
    .option('--api-key <key>', 'with --url: a Homarr API key (default: HOMARR_API_KEY)')
    .addOption(new Option('--timeout <seconds>', `with --url: seconds one request may take, its answer included`).default(homarrReadDefaults.timeoutMs / 1000).argParser(positiveNumber('--timeout', 3600)))
    .addOption(new Option('--max-answer-bytes <bytes>', `with --url: bytes one answer may have`).default(homarrReadDefaults.maxAnswerBytes).argParser(positiveInteger))
    .addOption(new Option('--name <name>', 'the name of the (main) board; the others are named <name>-<their own>').argParser(boardNameOption))
    .option(
      '--public',
      'make the converted boards public (CONV-17), for a start page that opened without a login: anyone who can reach this instance then sees the boards (app names, links, descriptions) without signing in; editing still needs an account. Without it the boards are private to their importer',
    )
    .addOption(new Option('--icon-base <set=url>', `base URL of an icon set (${iconSets.join(', ')}); repeatable`).argParser(iconBase))
    .action((format, paths, options) => run(() => convert(format, paths, options)));
}
