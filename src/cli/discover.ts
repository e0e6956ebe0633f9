/**
 * `tessera discover docker [--board NAME] [--managed-by LABEL] [--instance NAME] -o DIR` (DISC-1, DISC-12): reads the
 * Docker Engine API at DOCKER_HOST (read-only: the container list and Swarm's service list), maps the labels
 * (src/discover/docker.ts) and writes one board file per board and `discover-report.json` into DIR, then prints the
 * report. `tessera plan -f DIR` and `apply --prune` take the directory as any other.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { stringify as toYaml } from 'yaml';
import { discoverReportFileName } from '../boards/files/directory';
import { dockerHostFrom, type DockerHost } from '../config/config';
import { discoverDocker, type DiscoverReport, type DiscoverResult } from '../discover/docker';
import { describeDockerHost, readDockerLabels } from '../integrations/clients/docker';
import { outboundFetch } from '../outbound/fetch';
import { boardNameOption } from './convert';
import { UsageError } from './errors';
import { printJson, printLine, printTable } from './remote/output';
import type { Runner } from './remote/commands';

export { discoverReportFileName };

/** DISC-1: where the engine is when DOCKER_HOST is unset, as Docker's own clients assume. */
export const defaultDockerHost: DockerHost = { kind: 'unix', socketPath: '/var/run/docker.sock' };

/** DISC-1: the bounds of one read of the engine. */
const readBounds = { timeoutMs: 30_000, maxBytes: 16 * 1024 * 1024 };

interface DiscoverOptionsGiven {
  output: string;
  board?: string;
  managedBy?: string;
  instance?: string;
  json?: boolean;
}

/** DISC-10: a managedBy label as the board file's schema allows it (ManagedBy). */
function labelOption(value: string): string {
  if (value.length < 1 || value.length > 128 || /^\s/.test(value) || value.includes('\u0000')) throw new InvalidArgumentError('Expected a label of 1 to 128 characters, not starting with a space.');
  return value;
}

/** DISC-5: a homepage instance name (a word of the label `homepage.instance.<name>.*`). */
function instanceOption(value: string): string {
  if (!/^[^.\s]{1,64}$/.test(value)) throw new InvalidArgumentError('Expected an instance name: 1 to 64 characters, no dot, no space.');
  return value;
}

/**
 * DISC-12: the files an earlier discovery wrote into `out` (its report's boards), so that a board whose containers
 * went away loses its file (and `apply --prune` its board), and no file discovery did not write is overwritten.
 */
function earlierFiles(out: string): Set<string> | null {
  let earlier: { source?: unknown; boards?: { file?: unknown }[] };
  try {
    earlier = JSON.parse(readFileSync(path.join(out, discoverReportFileName), 'utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(earlier.boards)) return new Set();
  return new Set(earlier.boards.map((board) => board?.file).filter((file): file is string => typeof file === 'string' && /^[A-Za-z0-9_-]{1,200}\.yaml$/.test(file)));
}

function writeResult(out: string, result: DiscoverResult): void {
  mkdirSync(out, { recursive: true });
  const earlier = earlierFiles(out) ?? new Set<string>();
  const files = result.report.boards.map((board) => board.file);
  const foreign = files.filter((file) => !earlier.has(file) && existsSync(path.join(out, file)));
  if (foreign.length > 0) {
    throw new UsageError(`${path.join(out, foreign[0])} is not a file an earlier discovery wrote here: name another board with --board, or write into another directory`);
  }
  for (const file of earlier) if (!files.includes(file)) rmSync(path.join(out, file), { force: true });
  result.boards.forEach((board, index) => writeFileSync(path.join(out, files[index]), toYaml(board, { lineWidth: 0 })));
  writeFileSync(path.join(out, discoverReportFileName), `${JSON.stringify(result.report, null, 2)}\n`);
}

function printReport(report: DiscoverReport, directory: string, host: string, managedBy: string | undefined): void {
  printTable(['object', 'label', 'status', 'detail'], report.entries.map((entry) => [entry.object, entry.label, entry.status, entry.detail]));
  const apps = report.boards.reduce((sum, board) => sum + board.apps, 0);
  const objects = report.found.containers + (report.found.services ?? 0);
  const swarm = report.found.services === null ? 'not a Swarm manager' : `${report.found.services} Swarm service${report.found.services === 1 ? '' : 's'}`;
  const wrote = [...report.boards.map((board) => path.join(directory, board.file)), path.join(directory, discoverReportFileName)];
  printLine();
  printLine(`${host}: found ${report.found.containers} container${report.found.containers === 1 ? '' : 's'} (${swarm}); mapped ${apps} app${apps === 1 ? '' : 's'} onto ${report.boards.length} board${report.boards.length === 1 ? '' : 's'}; skipped ${objects - apps}`);
  printLine(`wrote ${wrote.join(', ')}`);
  printLine(`next: tessera plan -f ${directory}${managedBy ? ` --managed-by ${managedBy}` : ''}`);
}

async function discover(source: string, options: DiscoverOptionsGiven): Promise<number> {
  if (source !== 'docker') throw new UsageError(`discover ${source}: only docker is read here`);
  let host: DockerHost;
  try {
    host = dockerHostFrom(process.env) ?? defaultDockerHost;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const answer = await readDockerLabels({ fetch: outboundFetch, ...readBounds, now: () => new Date() }, host);
  const result = discoverDocker(answer, { board: options.board, managedBy: options.managedBy, instance: options.instance });
  const out = path.resolve(options.output);
  writeResult(out, result);
  if (options.json) printJson(result.report);
  else printReport(result.report, options.output, describeDockerHost(host), options.managedBy);
  return 0;
}

export function addDiscoverCommand(program: Command, run: Runner): void {
  program
    .command('discover')
    .description('read the services running containers declare in their labels (homepage.*, glance.*, tessera.*) and write board files for tessera plan / apply (read-only: DOCKER_HOST, default unix:///var/run/docker.sock)')
    .addArgument(new Command().createArgument('<source>', 'where the services run').choices(['docker']))
    .requiredOption('-o, --output <dir>', 'the directory to write the board files and discover-report.json into')
    .addOption(new Option('--board <name>', 'the board of the services without a tessera.board label (default: docker)').argParser(boardNameOption))
    .addOption(new Option('--managed-by <label>', 'the managedBy label written into each file (pass the same to tessera plan / apply)').argParser(labelOption))
    .addOption(new Option('--instance <name>', "read homepage's homepage.instance.<name>.* labels (over the plain homepage.* ones)").argParser(instanceOption))
    .option('--json', 'print the report as JSON')
    .action((source, options) => run(() => discover(source, options)));
}
