/**
 * PROV-1: the directories provisioning applies, from PROVISIONING_DIR or a config file naming several, and reading a
 * directory's board files with the file, line and message of any that cannot be read (PROV-3). No database.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../config/config';
import { boardFileNamesIn } from '../files/directory';
import { parseFileText } from '../files/fileText';

/** The yaml package, loaded when provisioning reads files (a start without provisioning does not load it). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const parseDocument: typeof import('yaml').parseDocument = (...args) => (require('yaml') as typeof import('yaml')).parseDocument(...args);

export interface ProvisioningSource {
  /** The directory, absolute. */
  path: string;
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
 * PROVISIONING_CONFIG is a YAML file `sources: [{path, managedBy, prune?, allowApiUpdates?}]`, paths relative to it.
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

export function sourcesOfConfigFile(file: string, text: string): ProvisioningSource[] {
  const invalid = (reason: string) => new ConfigError(`Invalid PROVISIONING_CONFIG ${file}: ${reason}`);
  const document = parseDocument(text);
  if (document.errors.length > 0) throw invalid(document.errors[0].message.split('\n')[0]);
  const parsed: unknown = document.toJS();
  if (!isRecord(parsed) || !Array.isArray(parsed.sources)) throw invalid('expected a mapping with a list `sources`');
  return parsed.sources.map((entry: unknown, i: number) => {
    if (!isRecord(entry)) throw invalid(`sources[${i}] is not a mapping`);
    const { path: dir, managedBy, prune = true, allowApiUpdates = false } = entry;
    if (typeof dir !== 'string' || dir === '') throw invalid(`sources[${i}].path must be a directory`);
    if (typeof managedBy !== 'string' || !/^[^\u0000\s][^\u0000]{0,127}$/.test(managedBy)) throw invalid(`sources[${i}].managedBy must be a label of 1 to 128 characters`);
    if (typeof prune !== 'boolean' || typeof allowApiUpdates !== 'boolean') throw invalid(`sources[${i}]: prune and allowApiUpdates are true or false`);
    return { path: path.resolve(path.dirname(file), dir), managedBy, prune, allowApiUpdates };
  });
}

/** A board file's content, or the problem with its text (PROV-3: file, line, message). */
export function parseProvisionedFile(file: string, text: string): { content: unknown } | { problem: FileProblem } {
  const parsed = parseFileText(file, text);
  if ('content' in parsed) return parsed;
  return { problem: { file, line: parsed.problem.position?.line ?? null, message: parsed.problem.message } };
}

/** The board files of a directory (FLEET-10, sorted), each parsed or with its problem. */
export function readSourceFiles(source: ProvisioningSource): { files: { file: string; content: unknown }[]; problems: FileProblem[] } {
  if (!statSync(source.path, { throwIfNoEntry: false })?.isDirectory()) return { files: [], problems: [{ file: source.path, line: null, message: 'No such directory' }] };
  const names = boardFileNamesIn(source.path);
  const files: { file: string; content: unknown }[] = [];
  const problems: FileProblem[] = [];
  for (const name of names) {
    const file = path.join(source.path, name);
    const parsed = parseProvisionedFile(file, readFileSync(file, 'utf8'));
    if ('problem' in parsed) problems.push(parsed.problem);
    else files.push({ file, content: parsed.content });
  }
  return { files, problems };
}
