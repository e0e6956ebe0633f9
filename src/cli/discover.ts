/**
 * `tessera discover docker|kubernetes [--board NAME] [--managed-by LABEL] [--instance NAME] [-o DIR] [--plan]` (DISC-1,
 * DISC-12, DISC-13, DISC-24): reads the Docker Engine API at DOCKER_HOST, or the Kubernetes API a kubeconfig names
 * (read-only), maps the labels or annotations (src/discover/) and writes one board file per board and
 * `discover-report.json` into DIR, then prints the report. `tessera plan -f DIR` and `apply --prune` take the directory
 * as any other; `--plan` shows that plan against the server at once, through the same code as `tessera plan`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { stringify as toYaml } from 'yaml';
import { discoverReportFileName } from '../boards/files/directory';
import { dockerHostFrom, type DockerHost } from '../config/config';
import { defaultDockerHost, discoverFromDocker } from '../discover/docker';
import { discoverKubernetes } from '../discover/kubernetes';
import { KubeConfigError, readKubernetes } from '../discover/kubernetesReader';
import type { DiscoverOptions, DiscoverReport, DiscoverResult } from '../discover/services';
import { describeDockerHost } from '../integrations/clients/docker';
import { boardNameOption } from './convert';
import { UsageError } from './errors';
import { connect, exitOneOnError, remoteCommand } from './remote/commands';
import type { ConnectionOptions } from './remote/connection';
import { planOfSet, printSetPlan } from './remote/fleet';
import { printJson, printLine, printTable } from './remote/output';
import type { Runner } from './remote/commands';

export { discoverReportFileName, defaultDockerHost };

interface DiscoverOptionsGiven extends ConnectionOptions {
  output?: string;
  kubeconfig?: string;
  namespace?: string[];
  plan?: boolean;
  prune?: boolean;
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

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** DISC-12, DISC-23: what was found, per source, in one phrase. */
function foundText(report: DiscoverReport): { text: string; objects: number } {
  const found = report.found;
  if (report.source === 'docker') {
    const swarm = found.services === null ? 'not a Swarm manager' : plural(found.services, 'Swarm service');
    return { text: `${plural(found.containers ?? 0, 'container')} (${swarm})`, objects: (found.containers ?? 0) + (found.services ?? 0) };
  }
  const kinds = [['ingresses', 'Ingress', 'Ingresses'], ['ingressRoutes', 'IngressRoute', 'IngressRoutes'], ['httpRoutes', 'HTTPRoute', 'HTTPRoutes']] as const;
  const parts = kinds.map(([key, one, many]) => (found[key] === null ? `no ${many} (not served)` : plural(found[key]!, one, many)));
  return { text: parts.join(', '), objects: kinds.reduce((sum, [key]) => sum + (found[key] ?? 0), 0) };
}

function printReport(report: DiscoverReport, where: string, written: string | null, next: string | null): void {
  printTable(['object', 'label', 'status', 'detail'], report.entries.map((entry) => [entry.object, entry.label, entry.status, entry.detail]));
  const apps = report.boards.reduce((sum, board) => sum + board.apps, 0);
  const { text, objects } = foundText(report);
  printLine();
  printLine(`${where}: found ${text}; mapped ${plural(apps, 'app')} onto ${plural(report.boards.length, 'board')}; skipped ${objects - apps}`);
  if (written !== null) printLine(`wrote ${[...report.boards.map((board) => path.join(written, board.file)), path.join(written, discoverReportFileName)].join(', ')}`);
  if (next !== null) printLine(next);
}

/** DISC-1: the Docker engine's services. */
async function fromDocker(options: DiscoverOptions): Promise<{ result: DiscoverResult; where: string }> {
  let host: DockerHost;
  try {
    host = dockerHostFrom(process.env) ?? defaultDockerHost;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return { result: await discoverFromDocker(host, options), where: describeDockerHost(host) };
}

/** DISC-13: the Kubernetes API's Ingresses, IngressRoutes and HTTPRoutes. */
async function fromKubernetes(options: DiscoverOptions, given: DiscoverOptionsGiven): Promise<{ result: DiscoverResult; where: string }> {
  let answer: Awaited<ReturnType<typeof readKubernetes>>;
  try {
    answer = await readKubernetes({ kubeconfig: given.kubeconfig, namespaces: given.namespace });
  } catch (error) {
    if (error instanceof KubeConfigError) throw new UsageError(error.message);
    throw error;
  }
  const { server, ...lists } = answer;
  const namespaces = given.namespace && given.namespace.length > 0 ? `namespace${given.namespace.length === 1 ? '' : 's'} ${[...new Set(given.namespace)].sort().join(', ')}` : 'all namespaces';
  return { result: discoverKubernetes(lists, options), where: `${server} (${namespaces})` };
}

async function discover(source: string, options: DiscoverOptionsGiven): Promise<number> {
  if (source !== 'kubernetes' && (options.kubeconfig !== undefined || options.namespace !== undefined)) throw new UsageError('--kubeconfig and --namespace go with discover kubernetes');
  if (!options.plan && options.output === undefined) throw new UsageError('Name the directory of the board files with -o DIR (or show their plan with --plan)');
  if (options.prune && !options.plan) throw new UsageError('--prune goes with --plan');
  if (options.plan && options.output === undefined && options.managedBy === undefined) throw new UsageError("Name the set's label with --managed-by (or write the files with -o DIR, whose name is then the label, as for tessera plan -f DIR)");
  const mapping: DiscoverOptions = { board: options.board, managedBy: options.managedBy, instance: options.instance };
  const { result, where } = source === 'docker' ? await fromDocker(mapping) : await fromKubernetes(mapping, options);
  // DISC-24: without -o, the plan's files are written into a directory of their own, planned, and removed.
  const dir = options.output !== undefined ? path.resolve(options.output) : mkdtempSync(path.join(os.tmpdir(), 'tessera-discover-'));
  try {
    writeResult(dir, result);
    const managedBy = options.managedBy ? ` --managed-by ${options.managedBy}` : '';
    if (!options.plan) {
      if (options.json) printJson(result.report);
      else printReport(result.report, where, options.output!, `next: tessera plan -f ${options.output}${managedBy}`);
      return 0;
    }
    const api = connect(options);
    const { plan, files } = await planOfSet(api, { file: [dir], managedBy: options.managedBy, prune: options.prune ?? false });
    if (options.json) printJson({ report: result.report, plan });
    else {
      printReport(result.report, where, options.output ?? null, null);
      printLine();
      await printSetPlan(api, plan, files);
    }
    // DISC-24, FLEET-7: as tessera plan: 0 nothing to change, 2 changes.
    return plan.summary.changed ? 2 : 0;
  } finally {
    if (options.output === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** DISC-13: a namespace name (a DNS label). */
function namespaceOption(value: string, previous: string[] = []): string[] {
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(value)) throw new InvalidArgumentError('Expected a namespace name (lower-case letters, digits and -, at most 63).');
  return collect(value, previous);
}

export function addDiscoverCommand(program: Command, run: Runner): void {
  remoteCommand(
    program,
    'discover',
    'read the services that running containers (labels: homepage.*, glance.*, tessera.*) or Kubernetes Ingresses, IngressRoutes and HTTPRoutes (annotations: gethomepage.dev/*, tessera.dev/*) declare and write board files for tessera plan / apply, or show their plan (read-only: DOCKER_HOST, default unix:///var/run/docker.sock; a kubeconfig or the pod\'s service account)',
  )
    .addArgument(new Command().createArgument('<source>', 'where the services run').choices(['docker', 'kubernetes']))
    .option('-o, --output <dir>', 'the directory to write the board files and discover-report.json into (required without --plan)')
    .addOption(new Option('--board <name>', 'the board of the services without a tessera.board label or tessera.dev/board annotation (default: docker, kubernetes)').argParser(boardNameOption))
    .addOption(new Option('--managed-by <label>', 'the managedBy label written into each file (pass the same to tessera plan / apply)').argParser(labelOption))
    .addOption(new Option('--instance <name>', "the homepage instance: homepage.instance.<name>.* labels over the plain ones; gethomepage.dev/instance annotations naming it").argParser(instanceOption))
    .option('--kubeconfig <file>', 'kubernetes: the kubeconfig (default: $KUBECONFIG, ~/.kube/config, else the pod\'s service account)')
    .addOption(new Option('--namespace <name>', 'kubernetes: read this namespace only; repeatable (default: all namespaces)').argParser(namespaceOption))
    .option('--plan', 'show the plan of the files against the server (as tessera plan -f; exit 0: nothing, 2: changes, 1: error)')
    .option('--prune', 'with --plan: also plan deleting the boards of the label that no file names')
    .action((source, options) => run(() => (options.plan ? exitOneOnError(() => discover(source, options)) : discover(source, options))));
}
