/**
 * npm run schemathesis [-- --postgres URL] [--seed N] [--max-examples N] [--workers N] [--parallel] [--callers member,admin]
 *                          [--databases pglite,postgresql] [--stateful-seconds N] [-- <more schemathesis run arguments>]
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
 *
 * The stateful phase's reach (CONTRACT-20): each run's line in the closing table names the links it covered
 * (schemathesis's `API Links: N covered / M selected` figure) and the operations its chains called, recorded by the
 * hooks module scripts/schemathesis/hooks.py into build/schemathesis/<run>-stateful.txt; the operations no chain
 * called are listed by name, and for each caller what its runs reached together. The admin's stateful phase is a run of
 * its own (`<database>-admin-stateful`) with a time budget of --stateful-seconds (180 by default; 0, or a --phases of
 * your own after `--`, keeps it inside the main run, with no budget).
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
const hooksModule = path.join(__dirname, 'hooks.py');

interface Options {
  postgresUrl: string | undefined;
  seed: number;
  maxExamples: number;
  callers: string[];
  databases: string[];
  workers: number;
  parallel: boolean;
  /** The admin's stateful phase as a run of its own with this time budget (0: inside the main run, no budget). */
  statefulSeconds: number;
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
    // A run's own --phases (after `--`) is the caller's choice: no separate stateful run then.
    statefulSeconds: extra.includes('--phases') ? 0 : Number(value('stateful-seconds') ?? process.env.SCHEMATHESIS_STATEFUL_SECONDS ?? 180),
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

/**
 * The Tessera servers and schemathesis processes this run started. An interrupted run (Ctrl-C, SIGTERM) ends them
 * too: left behind, the servers kept running as orphans and took CPU from whatever ran next.
 */
const children = new Set<ChildProcess>();
function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of children) child.kill('SIGTERM');
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

/** Starts Tessera the way `npm start` does (scripts/start.js) on a fresh database; resolves once it is ready. */
async function startTessera(label: string, databaseUrl: string | undefined): Promise<Instance> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-schemathesis-'));
  const adminKey = `st${randomBytes(5).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const log = createWriteStream(path.join(reportDir, `server-${label}.log`));
  const child: ChildProcess = track(
    spawn(process.execPath, [path.join(root, 'scripts/start.js')], {
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
    }),
  );
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

/** A GET with the admin's key: its JSON, or an error naming the status. */
async function readAsAdmin(instance: Instance, route: string): Promise<unknown> {
  const response = await fetch(`${instance.url}${route}`, { headers: { ApiKey: instance.adminKey } });
  if (!response.ok) throw new Error(`GET ${route} answered ${response.status}`);
  return response.json();
}

/**
 * CONTRACT-24: the admin's own user, the group `admins` it holds `admin` through, and its key's id, which the hooks
 * module keeps every call from changing (SCHEMATHESIS_PROTECTED).
 */
async function callerIdentity(instance: Instance): Promise<{ userId: string; groupId: string; keyId: string }> {
  const session = (await readAsAdmin(instance, '/api/auth/session')) as { userId: string };
  const groups = (await readAsAdmin(instance, '/api/groups')) as { id: string; name: string }[];
  const admins = groups.find((group) => group.name === 'admins');
  if (!admins) throw new Error('the bootstrap group admins was not found');
  return { userId: session.userId, groupId: admins.id, keyId: instance.adminKey.slice(0, instance.adminKey.indexOf('.')) };
}

/** CONTRACT-24: after an admin run, whether its key still holds `admin`; a run that lost it says so in its error. */
async function stillAdmin(instance: Instance): Promise<string | undefined> {
  try {
    const session = (await readAsAdmin(instance, '/api/auth/session')) as { permissions: string[] };
    return session.permissions.includes('admin') ? undefined : "after the run the admin's key no longer holds admin (CONTRACT-24)";
  } catch (error) {
    return `after the run the admin's key: ${(error as Error).message}`;
  }
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
  caller?: string;
  passed: number;
  failed: number;
  seconds: number;
  error?: string;
  /** The stateful phase's reach: schemathesis's links figure and the operations its chains called (CONTRACT-20). */
  stateful?: StatefulReach;
}

interface StatefulReach {
  links: string;
  /** The operationIds the chains called, and those of them that answered a 2xx at least once. */
  called: Set<string>;
  answered2xx: Set<string>;
  /** CONTRACT-24: calls the hooks module sent to a fresh id because they would have changed the caller's rights. */
  keptOffCaller: number;
}

/** Every operationId the document declares (the served document is generated/openapi.json), read once. */
let operationIds: string[] | undefined;
function documentOperationIds(): string[] {
  return (operationIds ??= readOperationIds());
}
function readOperationIds(): string[] {
  const document = JSON.parse(readFileSync(path.join(root, 'generated/openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);
  return Object.values(document.paths).flatMap((item) =>
    Object.entries(item)
      .filter(([method, operation]) => methods.has(method) && operation.operationId)
      .map(([, operation]) => operation.operationId!),
  );
}

/**
 * CONTRACT-20: what the stateful phase reached in one run: `API Links: N covered / M selected / T total` from its
 * output, and the operations the hooks module recorded (one `<operationId> <status>` line per stateful call).
 */
function statefulReach(text: string, reachFile: string): StatefulReach {
  const links = /API Links:\s*(.+)/.exec(text)?.[1].trim() ?? 'no stateful phase in the output';
  const lines = existsSync(reachFile)
    ? readFileSync(reachFile, 'utf8')
        .split('\n')
        .filter(Boolean)
    : [];
  const calls = lines.filter((line) => !line.startsWith('#')).map((line) => line.split(' '));
  const keptOffCaller = lines.filter((line) => line.startsWith('# kept off the caller')).length;
  return {
    links,
    called: new Set(calls.map(([operationId]) => operationId)),
    answered2xx: new Set(calls.filter(([, status]) => status.startsWith('2')).map(([operationId]) => operationId)),
    keptOffCaller,
  };
}

/** What several runs' chains reached together (the closing table's line for the runs of one caller). */
const combineReach = (reaches: StatefulReach[]): StatefulReach => ({
  links: 'see each run',
  called: new Set(reaches.flatMap((reach) => [...reach.called])),
  answered2xx: new Set(reaches.flatMap((reach) => [...reach.answered2xx])),
  keptOffCaller: reaches.reduce((sum, reach) => sum + reach.keptOffCaller, 0),
});

function describeReach(reach: StatefulReach, withLinks = true): string {
  const all = documentOperationIds();
  const missing = all.filter((id) => !reach.called.has(id));
  const answered = all.filter((id) => reach.answered2xx.has(id)).length;
  return (
    `stateful: ${withLinks ? `links ${reach.links}; ` : ''}operations reached ${all.length - missing.length} of ${all.length} (${answered} with a 2xx)` +
    (reach.keptOffCaller ? `; ${reach.keptOffCaller} calls kept off the caller's rights` : '') +
    (missing.length ? `; not reached: ${missing.join(', ')}` : '')
  );
}

/** Per-operation outcome from the JUnit report: a testcase per operation, with <failure> or <error> when it failed. */
function countJunit(file: string): { passed: number; failed: number } {
  const xml = readFileSync(file, 'utf8');
  const cases = xml.split('<testcase ').slice(1);
  const failed = cases.filter((c) => /<(failure|error)\b/.test(c.split('</testcase>')[0])).length;
  return { passed: cases.length - failed, failed };
}

/**
 * CONTRACT-22: the member creates nothing (every create is its 403), so its chains cannot go past their first call
 * and the admin's 1,500 chains of up to 60 calls only repeat refusals (33,000 calls in 12 minutes, stopped): its run
 * takes the configuration with 100 chains of at most 10 calls, written next to its reports.
 */
function configFileFor(label: string, caller: string): string {
  if (caller !== 'member') return configFile;
  const member = readFileSync(configFile, 'utf8').replace(/^max-steps = \d+$/m, 'max-steps = 10').replace(/(\[phases\.stateful\.generation\]\s*\nmax-examples = )\d+/, '$1100');
  if (!/^max-steps = 10$/m.test(member) || !/\[phases\.stateful\.generation\]\s*\nmax-examples = 100\b/.test(member)) {
    throw new Error('schemathesis.toml: the stateful max-steps and max-examples lines were not found for the member run');
  }
  const file = path.join(reportDir, `${label}-schemathesis.toml`);
  writeFileSync(file, member);
  return file;
}

/**
 * The document the instance serves, saved to build/schemathesis/<database>-openapi.json for schemathesis to load: given
 * the document's URL, schemathesis leaves the operation behind that URL (getOpenApiDocument) out of every phase, so
 * its tests and the stateful chains to it would be missing; from the saved copy with --url it is tested like the rest.
 */
async function servedDocument(label: string, url: string): Promise<string> {
  const response = await fetch(`${url}/api/openapi.json`);
  if (!response.ok) throw new Error(`GET ${url}/api/openapi.json answered ${response.status}`);
  const file = path.join(reportDir, `${label}-openapi.json`);
  writeFileSync(file, await response.text());
  return file;
}

/** Which phases one run has: all of them, or (the admin's separate stateful run) the rest and the stateful one. */
type RunPhases = 'all' | 'without-stateful' | 'stateful-budgeted';

/** The instance a run tests: its address, and the copy of the document it served (servedDocument). */
interface Target {
  url: string;
  document: string;
  /** CONTRACT-24: the admin's user, group and key, which no call of a run may change (callerIdentity). */
  protectedIds: { userId: string; groupId: string; keyId: string };
}

async function runSchemathesis(
  label: string,
  caller: string,
  target: Target,
  key: string,
  options: Options,
  phases: RunPhases = 'all',
): Promise<RunResult> {
  const junit = path.join(reportDir, `${label}.xml`);
  rmSync(junit, { force: true });
  const reachFile = path.join(reportDir, `${label}-stateful.txt`);
  const args = [
    '--config-file',
    configFileFor(label, caller),
    'run',
    target.document,
    '--url',
    target.url,
    '--checks',
    'all',
    '--phases',
    { all: 'examples,coverage,fuzzing,stateful', 'without-stateful': 'examples,coverage,fuzzing', 'stateful-budgeted': 'stateful' }[phases],
    ...(phases === 'stateful-budgeted' ? ['--max-time', String(options.statefulSeconds)] : []),
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
      rmSync(reachFile, { force: true });
      const child = track(
        spawn(schemathesisBin, args, {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...process.env,
            SCHEMATHESIS_HOOKS: hooksModule,
            SCHEMATHESIS_REACH_FILE: reachFile,
            SCHEMATHESIS_PROTECTED: JSON.stringify(target.protectedIds),
          },
        }),
      );
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
  const stateful = phases === 'without-stateful' ? undefined : statefulReach(result.text, reachFile);
  if (stateful) console.log(`== schemathesis ${label} ${describeReach(stateful)}`);
  if (!existsSync(junit)) {
    return { label, caller, passed: 0, failed: 0, seconds, stateful, error: `no report (exit ${result.status ?? result.signal})` };
  }
  const counts = countJunit(junit);
  if (result.status !== 0 && counts.failed === 0) {
    return { label, caller, ...counts, seconds, stateful, error: `schemathesis exited with ${result.status ?? result.signal}` };
  }
  return { label, caller, ...counts, seconds, stateful };
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
      const target: Target = {
        url: instance.url,
        document: await servedDocument(database.label, instance.url),
        protectedIds: await callerIdentity(instance),
      };
      const keys: Record<string, string> = { admin: instance.adminKey };
      if (options.callers.includes('member')) keys.member = await createMemberKey(instance);
      // One caller after the other: the admin's run must not delete the member's user or key under it.
      for (const caller of options.callers) {
        if (!keys[caller]) throw new Error(`unknown caller ${caller} (admin, member)`);
        const label = `${database.label}-${caller}`;
        if (caller === 'admin' && options.statefulSeconds > 0) {
          // One pass of the stateful phase ends after a few dozen chains whatever its example count (1,500 gave 46,
          // 3,000 gave 32, 5,000 gave 81), so it reaches a random part of the operations; under a time budget
          // schemathesis starts pass after pass until the budget is spent (CONTRACT-22). Same instance, after the
          // other phases, so the chains start from what they made.
          results.push(await runSchemathesis(label, caller, target, keys[caller], options, 'without-stateful'));
          results.push(await runSchemathesis(`${label}-stateful`, caller, target, keys[caller], options, 'stateful-budgeted'));
        } else {
          results.push(await runSchemathesis(label, caller, target, keys[caller], options));
        }
        if (caller === 'admin') {
          const lost = await stillAdmin(instance);
          if (lost) results.at(-1)!.error = lost;
        }
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
    if (r.stateful) console.log(`  ${''.padEnd(18)} ${describeReach(r.stateful)}`);
  }
  for (const caller of options.callers) {
    const runs = results.filter((r) => r.stateful && r.caller === caller);
    if (runs.length > 1) console.log(`  ${`${caller}, together`.padEnd(18)} ${describeReach(combineReach(runs.map((r) => r.stateful!)), false)}`);
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
