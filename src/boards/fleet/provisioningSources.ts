/**
 * PROV-1: the directories provisioning applies, from PROVISIONING_DIR or a config file naming several, and reading a
 * directory's board files with the file, line and message of any that cannot be read (PROV-3). No database.
 */
import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, dockerHostFrom, type Config } from '../../config/config';
import { describeDiscovery, type DiscoverySpec } from '../../discover/spec';
import { WorkerPool, WorkerTimeout } from '../../core/workerPool';
import { maxAliasCount, type YamlData } from '../../core/yamlParse';
import { isBoardFileName } from '../files/directory';

/** The yaml package, loaded when provisioning reads files (a start without provisioning does not load it). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const parseDocument: typeof import('yaml').parseDocument = (...args) => (require('yaml') as typeof import('yaml')).parseDocument(...args);

export interface ProvisioningSource {
  /** The directory, absolute; for a discovery source, how it is named (`docker unix:///var/run/docker.sock`). */
  path: string;
  /** DISC-30: the discovery source the entry names instead of a directory. */
  discovery?: DiscoverySpec;
  managedBy: string;
  prune: boolean;
  allowApiUpdates: boolean;
}

export interface FileProblem {
  file: string;
  line: number | null;
  message: string;
}


const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * PROV-1: PROVISIONING_DIR is one source (managedBy `provisioning:<directory name>`, prune on, API updates off);
 * PROVISIONING_CONFIG is a YAML file `sources: [{path, managedBy, prune?, allowApiUpdates?}]`, paths relative to it;
 * an entry may name a discovery source (`source: docker | kubernetes`) instead of a path (DISC-30).
 */
export function provisioningSources(config: { provisioningDir: string | null; provisioningConfig: string | null }): ProvisioningSource[] {
  const sources: ProvisioningSource[] = [];
  if (config.provisioningDir) {
    sources.push({ path: config.provisioningDir, managedBy: `provisioning:${path.basename(config.provisioningDir)}`, prune: true, allowApiUpdates: false });
  }
  if (config.provisioningConfig) sources.push(...sourcesOfConfigFile(config.provisioningConfig, readFileSync(config.provisioningConfig, 'utf8')));
  const labels = sources.map((s) => s.managedBy);
  const repeated = labels.filter((label, i) => labels.indexOf(label) !== i);
  if (repeated.length > 0) throw new ConfigError(`Provisioning sources must have distinct managedBy: ${[...new Set(repeated)].join(', ')}`);
  return sources;
}

/** DISC-30: the keys a discovery entry may have, by kind. */
const discoveryKeys = {
  docker: ['source', 'host', 'managedBy', 'prune', 'allowApiUpdates', 'board', 'instance', 'interval'],
  kubernetes: ['source', 'namespaces', 'kubeconfig', 'managedBy', 'prune', 'allowApiUpdates', 'board', 'instance', 'interval'],
} as const;
/** DISC-33: the interval of a discovery source's re-read when its entry names none, in seconds. */
export const defaultDiscoveryIntervalSeconds = 60;
/** DISC-1: where the engine is when an entry names no host, as Docker's own clients assume. */
const defaultDockerSocket = 'unix:///var/run/docker.sock';
const namespacePattern = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** DISC-30: a `source:` entry, checked whole: a ConfigError naming the entry and the key otherwise. */
function discoverySpec(file: string, entry: Record<string, unknown>, at: string, invalid: (reason: string) => ConfigError): DiscoverySpec {
  const kind = entry.source;
  if (kind !== 'docker' && kind !== 'kubernetes') throw invalid(`${at}.source must be docker or kubernetes, got ${JSON.stringify(kind)}`);
  const unknown = Object.keys(entry).filter((key) => !(discoveryKeys[kind] as readonly string[]).includes(key));
  if (unknown.length > 0) throw invalid(`${at}: ${unknown.map((key) => JSON.stringify(key)).join(', ')} is not a key of a ${kind} source (${discoveryKeys[kind].join(', ')})`);
  const { board, instance, interval = defaultDiscoveryIntervalSeconds } = entry;
  if (board !== undefined && (typeof board !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(board))) throw invalid(`${at}.board must be a board name: 1 to 200 letters, digits, - and _`);
  if (instance !== undefined && (typeof instance !== 'string' || !/^[^.\s]{1,64}$/.test(instance))) throw invalid(`${at}.instance must be a homepage instance name: 1 to 64 characters, no dot, no space`);
  if (typeof interval !== 'number' || !Number.isInteger(interval) || interval < 1 || interval > 86_400) throw invalid(`${at}.interval must be a whole number of seconds from 1 to 86400`);
  const common = { ...(board ? { board } : {}), ...(instance ? { instance } : {}), intervalMs: interval * 1000 };
  if (kind === 'docker') {
    const { host = defaultDockerSocket } = entry;
    if (typeof host !== 'string') throw invalid(`${at}.host must be unix:///path/to/docker.sock or tcp://host:port`);
    try {
      return { source: 'docker', host: dockerHostFrom({ DOCKER_HOST: host })!, ...common };
    } catch {
      throw invalid(`${at}.host must be unix:///path/to/docker.sock or tcp://host:port, got ${JSON.stringify(host)}`);
    }
  }
  const { namespaces = [], kubeconfig } = entry;
  if (!Array.isArray(namespaces) || !namespaces.every((n): n is string => typeof n === 'string' && namespacePattern.test(n))) {
    throw invalid(`${at}.namespaces must be a list of namespace names (lowercase letters, digits and -, at most 63)`);
  }
  if (kubeconfig !== undefined && (typeof kubeconfig !== 'string' || kubeconfig === '')) throw invalid(`${at}.kubeconfig must be the path of a kubeconfig file`);
  return { source: 'kubernetes', namespaces: [...new Set(namespaces)], kubeconfig: kubeconfig ? path.resolve(path.dirname(file), kubeconfig) : null, ...common };
}

export function sourcesOfConfigFile(file: string, text: string): ProvisioningSource[] {
  const invalid = (reason: string) => new ConfigError(`Invalid PROVISIONING_CONFIG ${file}: ${reason}`);
  const document = parseDocument(text);
  if (document.errors.length > 0) throw invalid(document.errors[0].message.split('\n')[0]);
  const parsed: unknown = document.toJS();
  if (!isRecord(parsed) || !Array.isArray(parsed.sources)) throw invalid('expected a mapping with a list `sources`');
  return parsed.sources.map((entry: unknown, i: number) => {
    if (!isRecord(entry)) throw invalid(`sources[${i}] is not a mapping`);
    const { path: dir, managedBy, prune = true, allowApiUpdates = false } = entry;
    // DISC-30: an entry names a directory (`path`) or a discovery source (`source`), never both.
    if (entry.source !== undefined && dir !== undefined) throw invalid(`sources[${i}] names both a path and a source: one or the other`);
    if (entry.source === undefined && (typeof dir !== 'string' || dir === '')) throw invalid(`sources[${i}].path must be a directory (or name a discovery source with source: docker | kubernetes)`);
    if (typeof managedBy !== 'string' || !/^[^\u0000\s][^\u0000]{0,127}$/.test(managedBy)) throw invalid(`sources[${i}].managedBy must be a label of 1 to 128 characters`);
    if (typeof prune !== 'boolean' || typeof allowApiUpdates !== 'boolean') throw invalid(`sources[${i}]: prune and allowApiUpdates are true or false`);
    if (entry.source !== undefined) {
      const discovery = discoverySpec(file, entry, `sources[${i}]`, invalid);
      return { path: describeDiscovery(discovery), discovery, managedBy, prune, allowApiUpdates };
    }
    return { path: path.resolve(path.dirname(file), dir as string), managedBy, prune, allowApiUpdates };
  });
}

/** PROV-7: how provisioning reads a directory's files. */
export interface ReadLimits {
  /** PROVISIONING_MAX_FILES: the files of one directory read, in name order; the rest are refused. */
  maxFiles: number;
  /** PROVISIONING_MAX_FILE_BYTES: a larger file is refused unread. */
  maxFileBytes: number;
  /** YAML_PARSE_TIMEOUT_MS: how long reading and parsing one file may take on its worker. */
  timeoutMs: number;
  /** BODY_LIMIT: the characters of JSON a file may stand for once its YAML aliases are expanded (INPUT-5). */
  expandedBytes: number;
}

/** PROV-7: the limits of reading provisioned files, from the configuration. */
export function provisioningReadLimits(config: Pick<Config, 'provisioningMaxFiles' | 'provisioningMaxFileBytes' | 'yamlParseTimeoutMs' | 'bodyLimitBytes'>): ReadLimits {
  return { maxFiles: config.provisioningMaxFiles, maxFileBytes: config.provisioningMaxFileBytes, timeoutMs: config.yamlParseTimeoutMs, expandedBytes: config.bodyLimitBytes };
}

/** One file read: its content, a problem with its text (PROV-3), a refusal (PROV-7), or nothing there. */
export type ReadOutcome = { content: unknown } | { problem: FileProblem } | { refused: FileProblem } | { missing: true };

/**
 * The worker's code, plain JavaScript, with core/confinedFile.js and core/yamlParse.js resolved from here (src/ or
 * build/ alike): the shared confined reader (CONV-6, PROV-7), then the YAML parse YAML bodies get (INPUT-5; JSON is
 * YAML).
 */
const workerSource = `
const { parentPort } = require('node:worker_threads');
const { readConfinedFile } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'core', 'confinedFile.js'))});
const { yamlToData, maxAliasCount } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'core', 'yamlParse.js'))});
parentPort.on('message', (job) => {
  try {
    const read = readConfinedFile(job.directory, job.name, job.maxBytes, 'the provisioning directory');
    if (read.text === undefined) return parentPort.postMessage({ result: read });
    parentPort.postMessage({ result: { parsed: yamlToData(read.text, { maxAliasCount, maxExpandedSize: job.expandedBytes }) } });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
`;

/** One worker: provisioning reads one file at a time, and never takes more than a core from the requests. */
const pool = new WorkerPool(workerSource, 'provisioning', 1);

type WorkerAnswer = { missing: true } | { refused: string } | { parsed: YamlData };

/**
 * PROV-7: the file `name` of `directory`, read and parsed on a worker thread within `limits.timeoutMs`: only a regular
 * file whose real path lies inside the directory, of at most `limits.maxFileBytes`, is read (a FIFO cannot hang the
 * read, a device cannot fill the memory, a link cannot reach outside); the event loop goes on serving meanwhile.
 */
export async function readProvisionedFile(directory: string, name: string, limits: Omit<ReadLimits, 'maxFiles'>): Promise<ReadOutcome> {
  const file = path.join(directory, name);
  let answer: WorkerAnswer;
  try {
    answer = await pool.run<WorkerAnswer>({ directory, name, maxBytes: limits.maxFileBytes, expandedBytes: limits.expandedBytes }, limits.timeoutMs);
  } catch (error) {
    const message = error instanceof WorkerTimeout ? `took longer than ${limits.timeoutMs} ms to read and parse (YAML_PARSE_TIMEOUT_MS): refused` : `cannot be read: ${(error as Error).message}`;
    return { refused: { file, line: null, message } };
  }
  if ('missing' in answer) return { missing: true };
  if ('refused' in answer) return { refused: { file, line: null, message: `${name} ${answer.refused}` } };
  const { parsed } = answer;
  if (parsed.refusal === undefined) return { content: parsed.value };
  const refusal = parsed.refusal;
  if (refusal.kind === 'syntax') return { problem: { file, line: refusal.line, message: refusal.message } };
  if (refusal.kind === 'aliases') return { problem: { file, line: null, message: `YAML with more than ${maxAliasCount} aliases` } };
  return { problem: { file, line: null, message: `YAML aliases expand beyond ${limits.expandedBytes} bytes` } };
}

/**
 * The board files of a directory (FLEET-10, sorted), each parsed or with its problem (PROV-3), and the entries refused
 * (PROV-7): past the first `maxFiles`, or not a regular file inside the directory within the byte cap and time budget.
 */
export async function readSourceFiles(
  source: ProvisioningSource,
  limits: ReadLimits,
): Promise<{ files: { file: string; content: unknown }[]; problems: FileProblem[]; refused: FileProblem[] }> {
  const files: { file: string; content: unknown }[] = [];
  const problems: FileProblem[] = [];
  const refused: FileProblem[] = [];
  let names: string[];
  try {
    if (!(await stat(source.path)).isDirectory()) throw new Error('not a directory');
    names = (await readdir(source.path)).filter(isBoardFileName).sort();
  } catch {
    return { files, problems: [{ file: source.path, line: null, message: 'No such directory' }], refused };
  }
  if (names.length > limits.maxFiles) {
    const skipped = names.slice(limits.maxFiles);
    refused.push({
      file: path.join(source.path, skipped[0]),
      line: null,
      message: `${skipped.length} board files past the first ${limits.maxFiles} (PROVISIONING_MAX_FILES), from ${skipped[0]} on in name order: refused, not read`,
    });
    names = names.slice(0, limits.maxFiles);
  }
  for (const name of names) {
    const outcome = await readProvisionedFile(source.path, name, limits);
    if ('content' in outcome) files.push({ file: path.join(source.path, name), content: outcome.content });
    else if ('problem' in outcome) problems.push(outcome.problem);
    else if ('refused' in outcome) refused.push(outcome.refused);
  }
  return { files, problems, refused };
}
