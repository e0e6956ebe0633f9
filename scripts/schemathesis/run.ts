/**
 * npm run schemathesis [-- --postgres URL] [--seed N] [--max-examples N] [--workers N] [--parallel] [--callers member,admin]
 *                          [--databases pglite,postgresql] [-- <more schemathesis run arguments>]
 * npm run schemathesis -- --install-only    (only makes .venv-contract/: CI does it while the jest runs take the CPU)
 *
 * Runs schemathesis (Python, pinned in scripts/schemathesis/requirements.txt, installed on first use into the
 * project's .venv-contract/, ignored by git) against a freshly started Tessera: every check (`--checks all`) and
 * every phase (examples, coverage, fuzzing, stateful), configured by scripts/schemathesis/schemathesis.toml.
 *
 * Databases: a fresh embedded database always; with --postgres URL (or SCHEMATHESIS_DATABASE_URL) also a fresh
 * PostgreSQL database created on that server for the run and dropped afterwards.
 * Callers, one schemathesis run each on every database: `member`, a user without any permission (its key
 * exercises the 401/403/404 branches), then `admin` (the bootstrap admin). ignored_auth resends requests without
 * credentials by itself.
 *
 * Reports go to build/schemathesis/ (JUnit per run, the server's log per database). The seed is printed; the last
 * line is `schemathesis: N passed, M failed`, counting operations over all runs. Exit code 1 when an operation
 * failed or a run could not be made.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../free-port';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(__dirname, '../..');
const venv = path.join(root, '.venv-contract');
const requirements = path.join(__dirname, 'requirements.txt');
const configFile = path.join(__dirname, 'schemathesis.toml');
const reportDir = path.join(root, 'build', 'schemathesis');
const schemathesisBin = path.join(venv, 'bin', 'schemathesis');

interface Options {
  postgresUrl: string | undefined;
  seed: number;
  maxExamples: number;
  callers: string[];
  databases: string[];
  workers: number;
  parallel: boolean;
  extra: string[];
}

function parseOptions(argv: string[]): Options {
  const dashdash = argv.indexOf('--');
  const own = dashdash >= 0 ? argv.slice(0, dashdash) : argv;
  const extra = dashdash >= 0 ? argv.slice(dashdash + 1) : [];
  const value = (name: string): string | undefined => {
    const i = own.indexOf(`--${name}`);
    if (i >= 0) return own[i + 1];
    return own.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  };
  return {
    postgresUrl: value('postgres') ?? process.env.SCHEMATHESIS_DATABASE_URL,
    seed: Number(value('seed') ?? process.env.SCHEMATHESIS_SEED ?? randomBytes(4).readUInt32BE() % 1_000_000),
    maxExamples: Number(value('max-examples') ?? process.env.SCHEMATHESIS_MAX_EXAMPLES ?? 10),
    callers: (value('callers') ?? 'member,admin').split(','),
    databases: (value('databases') ?? 'pglite,postgresql').split(','),
    workers: Number(value('workers') ?? process.env.SCHEMATHESIS_WORKERS ?? 2),
    parallel: own.includes('--parallel'),
    extra,
  };
}

/**
 * The Python the venv is made with. CPython 3.11 and 3.12.1 fail schemathesis runs now and then inside the interpreter
 * (python/cpython#106905, "AST constructor recursion depth mismatch", and a KeyError from linecache): 3.13 has
 * neither, so a 3.13 is preferred where the machine has one (pyenv's included), else `python3`, whose failed runs
 * the retries below take again. SCHEMATHESIS_PYTHON names one explicitly.
 */
function pythonForVenv(): string {
  const pyenvRoot = process.env.PYENV_ROOT ?? path.join(homedir(), '.pyenv');
  const pyenv313 = existsSync(path.join(pyenvRoot, 'versions'))
    ? readdirSync(path.join(pyenvRoot, 'versions'))
        .filter((name) => /^3\.13\.\d+$/.test(name))
        .map((name) => path.join(pyenvRoot, 'versions', name, 'bin', 'python3'))
    : [];
  const candidates = [process.env.SCHEMATHESIS_PYTHON, ...pyenv313, 'python3.13', 'python3'].filter((each): each is string => Boolean(each));
  return candidates.find((each) => spawnSync(each, ['-c', 'import sys, venv'], { stdio: 'ignore' }).status === 0) ?? 'python3';
}

const pythonVersionOf = (python: string) => spawnSync(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' }).stdout?.trim() ?? '';

/** Creates .venv-contract/ with the pinned schemathesis unless it is already there at that version, on that Python. */
function ensureSchemathesis(): void {
  const wanted = /^schemathesis==(\S+)/m.exec(readFileSync(requirements, 'utf8'))![1];
  const python = pythonForVenv();
  const pythonVersion = pythonVersionOf(python);
  if (existsSync(schemathesisBin)) {
    const version = spawnSync(schemathesisBin, ['--version'], { encoding: 'utf8' }).stdout ?? '';
    if (version.includes(wanted) && pythonVersionOf(path.join(venv, 'bin', 'python')) === pythonVersion) return;
    rmSync(venv, { recursive: true, force: true });
  }
  console.log(`installing schemathesis ${wanted} into .venv-contract/ (Python ${pythonVersion}, first use)`);
  execFileSync(python, ['-m', 'venv', venv], { stdio: 'inherit' });
  execFileSync(path.join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', requirements], {
    stdio: 'inherit',
  });
}

interface Instance {
  url: string;
  adminKey: string;
  stop(): Promise<void>;
}

/** Starts Tessera the way `npm start` does (scripts/start.js) on a fresh database; resolves once it is ready. */
async function startTessera(label: string, databaseUrl: string | undefined): Promise<Instance> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-schemathesis-'));
  const adminKey = `st${randomBytes(5).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const log = createWriteStream(path.join(reportDir, `server-${label}.log`));
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'scripts/start.js')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      BOOTSTRAP_ADMIN_API_KEY: adminKey,
      LOG_LEVEL: 'warn',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: '' }),
      // SECRET-2: PostgreSQL needs a secrets key.
      SECRET_ENCRYPTION_KEY: process.env.SECRET_ENCRYPTION_KEY ?? randomBytes(32).toString('hex'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const ready = await fetch(`${url}/api/health/ready`).then((r) => r.ok, () => false);
    if (ready) return { url, adminKey, stop };
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`Tessera (${label}) did not become ready; see build/schemathesis/server-${label}.log`);
}

/** The second caller: a user with no permission at all, and a key of its own. */
async function createMemberKey(instance: Instance): Promise<string> {
  const call = async (route: string, body: unknown) => {
    const response = await fetch(`${instance.url}${route}`, {
      method: 'POST',
      headers: { ApiKey: instance.adminKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (response.status !== 201) throw new Error(`POST ${route} answered ${response.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const user = await call('/api/users', { username: 'schemathesis-member', password: randomBytes(12).toString('hex') });
  const key = await call('/api/api-keys', { userId: user.userId, name: 'schemathesis' });
  return String(key.apiKey);
}

/** A database of its own on the PostgreSQL server of `baseUrl`, dropped by the returned function. */
async function createPostgresDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tessera_schemathesis_${process.pid}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

interface RunResult {
  label: string;
  passed: number;
  failed: number;
  seconds: number;
  error?: string;
}

/** Per-operation outcome from the JUnit report: a testcase per operation, with <failure> or <error> when it failed. */
function countJunit(file: string): { passed: number; failed: number } {
  const xml = readFileSync(file, 'utf8');
  const cases = xml.split('<testcase ').slice(1);
  const failed = cases.filter((c) => /<(failure|error)\b/.test(c.split('</testcase>')[0])).length;
  return { passed: cases.length - failed, failed };
}

async function runSchemathesis(label: string, url: string, key: string, options: Options): Promise<RunResult> {
  const junit = path.join(reportDir, `${label}.xml`);
  rmSync(junit, { force: true });
  const args = [
    '--config-file',
    configFile,
    'run',
    `${url}/api/openapi.json`,
    '--checks',
    'all',
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--max-examples',
    String(options.maxExamples),
    '--workers',
    String(options.workers),
    '--seed',
    String(options.seed),
    '--header',
    `ApiKey: ${key}`,
    '--report',
    'junit',
    '--report-junit-path',
    junit,
    '--no-color',
    ...options.extra,
  ];
  const started = performance.now();
  // With --parallel the databases' runs overlap: each run's output is kept and printed whole when it ends.
  const runOnce = () =>
    new Promise<{ status: number | null; signal: NodeJS.Signals | null; text: string }>((resolve) => {
      const child = spawn(schemathesisBin, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      const output: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
      child.on('close', (status, signal) => {
        const text = Buffer.concat(output).toString('utf8');
        writeFileSync(path.join(reportDir, `${label}.log`), text);
        console.log(`\n== schemathesis ${label} (seed ${options.seed}, --max-examples ${options.maxExamples}; whole log in build/schemathesis/${label}.log)`);
        console.log(status === 0 ? digest(text) : text);
        resolve({ status, signal, text });
      });
    });
  let result = await runOnce();
  // CPython 3.11's AST recursion-depth bookkeeping (python/cpython#106905) now and then makes hypothesis's lambda
  // description fail inside schemathesis ("Runtime Error: AST constructor recursion depth mismatch"), an error of the
  // tool, not a finding: that run is made again with the same seed, up to two more times (seen once in eight runs,
  // then twice in a row on one run once the document grew).
  for (let retry = 1; retry <= 2 && result.status !== 0 && result.text.includes('AST constructor recursion depth mismatch'); retry++) {
    console.log(`\n== schemathesis ${label}: the run met CPython's AST recursion-depth bug (python/cpython#106905); running it again (${retry} of 2)`);
    result = await runOnce();
  }
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  if (!existsSync(junit)) {
    return { label, passed: 0, failed: 0, seconds, error: `no report (exit ${result.status ?? result.signal})` };
  }
  const counts = countJunit(junit);
  if (result.status !== 0 && counts.failed === 0) {
    return { label, ...counts, seconds, error: `schemathesis exited with ${result.status ?? result.signal}` };
  }
  return { label, ...counts, seconds };
}

/**
 * What a passing run prints: its summary without schemathesis's pytest-style banner lines ("=== 3 warnings in 144s ==="),
 * which a CI reader that knows pytest's closing line takes for a run of zero tests.
 */
function digest(text: string): string {
  const summary = text.slice(Math.max(0, text.lastIndexOf(' SUMMARY ')));
  return summary
    .split('\n')
    .filter((line) => !/^=+( .* =+)?$/.test(line.trim()) && !line.includes(' SUMMARY '))
    .join('\n')
    .trim();
}

async function main(): Promise<void> {
  if (process.argv.includes('--install-only')) {
    ensureSchemathesis();
    return;
  }
  const options = parseOptions(process.argv.slice(2));
  // build/ is the compiled server, replaced whole when src/ changed: compile first, so the reports stay.
  require('../build-server').ensureServerBuilt();
  mkdirSync(reportDir, { recursive: true });
  ensureSchemathesis();
  console.log(`schemathesis seed: ${options.seed} (reproduce with: npm run schemathesis -- --seed ${options.seed})`);

  const databases: { label: string; setup(): Promise<{ url: string | undefined; drop(): Promise<void> }> }[] = [];
  if (options.databases.includes('pglite')) databases.push({ label: 'pglite', setup: async () => ({ url: undefined, drop: async () => {} }) });
  if (options.postgresUrl && options.databases.includes('postgresql')) {
    const baseUrl = options.postgresUrl;
    databases.push({ label: 'postgresql', setup: () => createPostgresDatabase(baseUrl) });
  }

  const results: RunResult[] = [];
  const runDatabase = async (database: (typeof databases)[number]) => {
    const { url: databaseUrl, drop } = await database.setup();
    let instance: Instance | undefined;
    try {
      instance = await startTessera(database.label, databaseUrl);
      const keys: Record<string, string> = { admin: instance.adminKey };
      if (options.callers.includes('member')) keys.member = await createMemberKey(instance);
      // One caller after the other: the admin's run must not delete the member's user or key under it.
      for (const caller of options.callers) {
        if (!keys[caller]) throw new Error(`unknown caller ${caller} (admin, member)`);
        results.push(await runSchemathesis(`${database.label}-${caller}`, instance.url, keys[caller], options));
      }
    } catch (error) {
      results.push({ label: database.label, passed: 0, failed: 0, seconds: 0, error: (error as Error).message });
    } finally {
      await instance?.stop();
      await drop();
    }
  };
  const started = performance.now();
  if (options.parallel) await Promise.all(databases.map(runDatabase));
  else for (const database of databases) await runDatabase(database);
  const wall = Math.round((performance.now() - started) / 1000);

  console.log(`\nschemathesis runs (seed ${options.seed}, ${wall} s in all${options.parallel ? ', databases in parallel' : ''}):`);
  for (const r of results) {
    console.log(`  ${r.label.padEnd(18)} ${r.passed} passed, ${r.failed} failed, ${r.seconds} s${r.error ? `  ERROR: ${r.error}` : ''}`);
  }
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  const errors = results.filter((r) => r.error).length;
  if (failed > 0 || errors > 0) {
    console.log(`reproduce: npm run schemathesis -- --seed ${options.seed}; reports in build/schemathesis/`);
  }
  console.log(`schemathesis: ${passed} passed, ${failed + errors} failed`);
  process.exit(failed > 0 || errors > 0 ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  console.log('schemathesis: 0 passed, 1 failed');
  process.exit(1);
});
