/**
 * Which instance the remote commands talk to, and with which API key: `--url`/`--api-key`, else TESSERA_URL and
 * TESSERA_API_KEY, else a context of the config file (`$TESSERA_CONFIG`, or `$XDG_CONFIG_HOME/tessera/config.yaml`,
 * or `~/.config/tessera/config.yaml`):
 *
 *   current-context: prod
 *   contexts:
 *     prod: { url: https://tessera.example.com, apiKey: <id>.<token> }
 *
 * `--context <name>` picks a context; being a flag, its values then come before the environment's.
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../errors';

export interface ConnectionOptions {
  url?: string;
  apiKey?: string;
  context?: string;
}

export interface Connection {
  url: string;
  /** `<id>.<token>`; without one, requests are anonymous (public boards only). */
  apiKey?: string;
}

interface Context {
  url?: string;
  apiKey?: string;
}

interface ConfigFile {
  currentContext?: string;
  contexts: Record<string, Context>;
}

export function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TESSERA_CONFIG) return path.resolve(env.TESSERA_CONFIG);
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'tessera', 'config.yaml');
}

function invalidConfig(file: string, reason: string): UsageError {
  return new UsageError(`Invalid config file ${file}: ${reason}`);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function contextFrom(file: string, name: string, value: unknown): Context {
  if (!isRecord(value)) throw invalidConfig(file, `context "${name}" is not a mapping`);
  for (const key of ['url', 'apiKey'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') throw invalidConfig(file, `${key} of context "${name}" is not a string`);
  }
  return { url: value.url as string | undefined, apiKey: value.apiKey as string | undefined };
}

/** The config file, or null when there is none. */
export function readConfigFile(file: string): ConfigFile | null {
  if (!existsSync(file)) return null;
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw invalidConfig(file, error instanceof Error ? error.message.split('\n')[0] : String(error));
  }
  if (parsed === null || parsed === undefined) return { contexts: {} };
  if (!isRecord(parsed)) throw invalidConfig(file, 'not a mapping');
  const current = parsed['current-context'];
  if (current !== undefined && typeof current !== 'string') throw invalidConfig(file, 'current-context is not a string');
  const contexts = parsed.contexts ?? {};
  if (!isRecord(contexts)) throw invalidConfig(file, 'contexts is not a mapping');
  return {
    currentContext: current,
    contexts: Object.fromEntries(Object.entries(contexts).map(([name, value]) => [name, contextFrom(file, name, value)])),
  };
}

function contextNamed(file: string, name: string): Context {
  const context = readConfigFile(file)?.contexts[name];
  if (!context) throw new UsageError(`No context named "${name}" in ${file}`);
  return context;
}

function currentContext(file: string): Context {
  const config = readConfigFile(file);
  if (!config?.currentContext) return {};
  const context = config.contexts[config.currentContext];
  if (!context) throw invalidConfig(file, `current-context "${config.currentContext}" is not among its contexts`);
  return context;
}

function checkedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`Invalid instance URL "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`Invalid instance URL "${url}": not http or https`);
  return url.replace(/\/+$/, '');
}

export function resolveConnection(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): Connection {
  const file = configFilePath(env);
  const flags: Context = { url: options.url, apiKey: options.apiKey };
  const fromEnv: Context = { url: env.TESSERA_URL || undefined, apiKey: env.TESSERA_API_KEY || undefined };
  const needsConfig = options.context !== undefined || !(flags.url ?? fromEnv.url) || !(flags.apiKey ?? fromEnv.apiKey);
  // The config file is read only when it can matter, so a broken one does not stop a fully flagged call.
  const layers = !needsConfig
    ? [flags, fromEnv]
    : options.context !== undefined
      ? [flags, contextNamed(file, options.context), fromEnv]
      : [flags, fromEnv, currentContext(file)];
  const url = layers.find((layer) => layer.url)?.url;
  if (!url) throw new UsageError(`No instance URL: pass --url, set TESSERA_URL or add a context to ${file}`);
  return { url: checkedUrl(url), apiKey: layers.find((layer) => layer.apiKey)?.apiKey };
}
