/**
 * CTX-1..4: `tessera login --server URL` stores an instance and a checked API key as a context of the user's config
 * file (mode 0600); `tessera context list|use` shows the contexts and picks the current one, kubectl-style.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { stringify } from 'yaml';
import { UsageError } from '../errors';
import { TesseraApi } from './api';
import { configFilePath, readConfigFile, resolveConnection } from './connection';
import { printJson, printLine, printTable } from './output';

/** CTX-2: writes the config file with mode 0600 (its directory 0700), replacing it whole. */
export function writeConfigFile(file: string, config: { currentContext?: string; contexts: Record<string, { url?: string; apiKey?: string }> }): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const text = stringify({ ...(config.currentContext ? { 'current-context': config.currentContext } : {}), contexts: config.contexts });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/** Reads the key typed on the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    const output = rl as unknown as { _writeToOutput: (text: string) => void };
    process.stderr.write(question);
    output._writeToOutput = () => {};
    rl.question('', (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer.trim());
    });
  });
}

/** CTX-1: the key from $TESSERA_API_KEY, else stdin when it is not a terminal, else asked for. */
async function apiKeyInput(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.TESSERA_API_KEY) return env.TESSERA_API_KEY.trim();
  if (!process.stdin.isTTY) return readFileSync(0, 'utf8').trim();
  return promptHidden('API key: ');
}

/** A context's name from its URL: the host, with the port when there is one. */
export const contextNameOf = (url: string) => new URL(url).host.replace(/:/g, '-');

export async function login(options: { server: string; context?: string }, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { url } = resolveConnection({ url: options.server, apiKey: 'unused' }, {});
  const apiKey = await apiKeyInput(env);
  if (!apiKey) throw new UsageError('No API key given (type it, pipe it to stdin or set TESSERA_API_KEY)');
  // CTX-1: the key is checked against the server before anything is stored.
  const session = await new TesseraApi({ url, apiKey }).session();
  const file = configFilePath(env);
  const config = readConfigFile(file) ?? { contexts: {} };
  const name = options.context ?? contextNameOf(url);
  writeConfigFile(file, { currentContext: name, contexts: { ...config.contexts, [name]: { url, apiKey } } });
  printLine(`Logged in to ${url} as ${session.username}; context "${name}" stored in ${file} and made current.`);
  return 0;
}

/** CTX-3: the contexts, the current one marked; keys are never shown. */
export function listContexts(options: { output?: string }, env: NodeJS.ProcessEnv = process.env): number {
  const file = configFilePath(env);
  const config = readConfigFile(file) ?? { contexts: {} };
  const rows = Object.entries(config.contexts).map(([name, context]) => ({ name, url: context.url ?? null, current: name === config.currentContext, hasApiKey: Boolean(context.apiKey) }));
  if (options.output === 'json') printJson(rows);
  else if (rows.length === 0) printLine(`No contexts in ${file}: add one with tessera login --server <url>.`);
  else printTable(['current', 'name', 'url', 'api key'], rows.map((r) => [r.current ? '*' : '', r.name, r.url ?? '', r.hasApiKey ? 'stored' : '']));
  return 0;
}

/** CTX-4: makes a context the current one; an unknown name is a usage error, the file left as it is. */
export function useContext(name: string, env: NodeJS.ProcessEnv = process.env): number {
  const file = configFilePath(env);
  const config = readConfigFile(file);
  if (!config?.contexts[name]) throw new UsageError(`No context named "${name}" in ${file}`);
  writeConfigFile(file, { ...config, currentContext: name });
  printLine(`Switched to context "${name}" (${config.contexts[name].url ?? 'no URL'}).`);
  return 0;
}
