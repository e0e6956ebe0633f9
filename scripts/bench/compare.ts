/**
 * npm run bench:compare -- --base <rev> [--rounds 6] [--seconds 3] [--quick]
 * npm run bench:compare -- --base-dir <checkout> [--head-dir <checkout>]
 *
 * One harness, two builds: builds the base revision in a temporary git worktree under the system's temp folder
 * (node_modules holds links to this checkout's packages when the two package-lock.json files are identical, and the
 * base's own embedded-database template; `npm ci` there otherwise; then that revision's own
 * `node scripts/build-server.js --force --strict`), brings this checkout's build/
 * up to date, and runs THIS revision's measurements against a server started from each build (`build/main.js` of
 * that checkout, on a fresh embedded database, or a fresh PostgreSQL schema when DATABASE_URL is set), alternating
 * base, head, base, head … for --rounds rounds. Each round starts the server, seeds boards of 200 and 2,000 items
 * through the API (scripts/bench/seed.ts) and measures their reads and writes, a set plan and apply of 100 new boards,
 * a widget's data on a cache hit (a local Glances stand-in, scripts/bench/glancesStandIn.ts) and the board page's first
 * render in Chromium (scripts/bench/page-render.ts); a figure a revision cannot serve (an older base without the
 * feature) is left out for that side and named under the table. The table gives each side's median and range and the ratio
 * head/base of the pairs, and says "no difference" when the ranges overlap (scripts/bench/compare-stats.ts).
 * --base-dir / --head-dir compare checkouts whose build/ is already there (nothing is built for them). --quick: 2
 * rounds, 1 s measurements, fewer sequential writes, sets of 20 boards (a smoke run). --keep leaves the worktree in place.
 */
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { comparisonRow, Better, minRoundsToCall } from './compare-stats';
import { cpuSecondsOf, percentile } from './measure';
import { freePort, freshPostgresSchema, root, stopProcess } from './processes';
import { firstRenderOnce, launchBenchBrowser, seedPageBoard } from './page-render';
import { apiClient, clockBoardFile, seedBoard, seedLiveBoard } from './seed';
import { startGlancesStandIn } from './glancesStandIn';
import type { Browser } from 'playwright-core';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    'base-dir': { type: 'string' },
    'head-dir': { type: 'string' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    quick: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const quick = values.quick!;
const rounds = Math.max(1, Number(values.rounds ?? (quick ? 2 : 6)));
const seconds = Number(values.seconds ?? (quick ? 1 : 3));
const warmupSeconds = Number(values.warmup ?? (quick ? 0.5 : 1));
const sequentialSteps = quick ? 3 : 9;
const apiKey = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
const log = (line: string) => console.error(line);

/** What the table says is not measured here (issue 48's list), with the bench that measures it alone. */
const notMeasured = ['memory (npm run bench -- --ops get,rss)', 'the change feed (npm run bench -- --ops events)'];
const fleetBoards = quick ? 20 : 100;
const fleetItems = 200;
const pageItems = 200;
const pageLoadsPerRound = quick ? 2 : 3;

interface Figure {
  name: string;
  unit: string;
  better: Better;
}
const figures: Figure[] = [
  { name: 'start-up, first start to ready', unit: 'ms', better: 'lower' },
  { name: 'GET board, 200 items, 10 connections', unit: 'req/s', better: 'higher' },
  { name: 'GET board, 200 items, server CPU', unit: 'µs/req', better: 'lower' },
  { name: 'GET board, 2,000 items, 10 connections', unit: 'req/s', better: 'higher' },
  { name: 'GET board, 2,000 items, server CPU', unit: 'µs/req', better: 'lower' },
  { name: 'PUT unchanged, 2,000 items, p50', unit: 'ms', better: 'lower' },
  { name: 'PUT unchanged, 2,000 items, server CPU', unit: 'µs/req', better: 'lower' },
  { name: 'PATCH item, 200 items, p50', unit: 'ms', better: 'lower' },
  { name: 'PATCH item, 2,000 items, p50', unit: 'ms', better: 'lower' },
  { name: 'PATCH layouts (+1 layout), 2,000 items, p50', unit: 'ms', better: 'lower' },
  { name: `set plan, ${fleetBoards} new boards x ${fleetItems} items`, unit: 'ms', better: 'lower' },
  { name: `set apply, ${fleetBoards} new boards x ${fleetItems} items`, unit: 'ms', better: 'lower' },
  { name: 'widget data, cache hit, 10 connections', unit: 'req/s', better: 'higher' },
  { name: 'widget data, cache hit, server CPU', unit: 'µs/req', better: 'lower' },
  { name: `board page, ${pageItems} tiles, first render (tiles painted)`, unit: 'ms', better: 'lower' },
];
type Samples = Record<string, number[]>;

function git(args: string[], cwd = root): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function run(command: string, args: string[], cwd: string): void {
  execFileSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The base revision checked out in a temporary worktree and built; returns its folder and how to remove it. */
function prepareBase(rev: string): { dir: string; label: string; remove: () => void } {
  const commit = git(['rev-parse', '--verify', `${rev}^{commit}`]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-compare-'));
  rmSync(dir, { recursive: true, force: true });
  const started = Date.now();
  git(['worktree', 'add', '--detach', dir, commit]);
  const remove = () => {
    if (values.keep) return log(`kept the base worktree at ${dir}`);
    git(['worktree', 'remove', '--force', dir]);
  };
  try {
    const sameLock = readFileSync(path.join(root, 'package-lock.json'), 'utf8') === readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
    if (sameLock) {
      // Every entry of this checkout's node_modules linked, except .cache: the embedded database's template lives
      // there (src/db/embedded.ts) and must hold the base's migrations, not this revision's, or the base's first start
      // would run initdb instead of copying a template.
      mkdirSync(path.join(dir, 'node_modules'));
      for (const entry of readdirSync(path.join(root, 'node_modules'))) {
        if (entry !== '.cache') symlinkSync(path.join(root, 'node_modules', entry), path.join(dir, 'node_modules', entry));
      }
      log(`base ${commit.slice(0, 7)}: worktree at ${dir}, node_modules linked (package-lock.json identical)`);
      if (existsSync(path.join(dir, 'scripts', 'db-template.ts'))) run(process.execPath, ['--require', 'tsx/cjs', 'scripts/db-template.ts'], dir);
    } else {
      log(`base ${commit.slice(0, 7)}: worktree at ${dir}, package-lock.json differs: npm ci there (minutes)`);
      run('npm', ['ci', '--no-audit', '--no-fund'], dir);
    }
    run(process.execPath, ['scripts/build-server.js', '--force', '--strict'], dir);
    log(`base ${commit.slice(0, 7)}: built in ${Math.round((Date.now() - started) / 1000)} s`);
  } catch (error) {
    remove();
    throw error;
  }
  return { dir, label: commit.slice(0, 7), remove };
}

function headLabel(dir: string): string {
  try {
    const commit = git(['rev-parse', '--short=7', 'HEAD'], dir);
    return git(['status', '--porcelain', '--untracked-files=no'], dir) ? `${commit}+changes` : commit;
  } catch {
    return dir;
  }
}

/** Starts `<checkout>/build/main.js` on a fresh database and waits for /api/health/ready; times the start. */
async function startServer(checkout: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-compare-data-'));
  const postgres = process.env.DATABASE_URL ? await freshPostgresSchema(process.env.DATABASE_URL, 'compare') : null;
  const env: NodeJS.ProcessEnv = {
    SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BOOTSTRAP_ADMIN_API_KEY: apiKey,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    RATE_LIMIT_READS: '999999999/60',
    RATE_LIMIT_WRITES: '999999999/60',
  };
  if (postgres) env.DATABASE_URL = postgres.url;
  // What scripts/start.js does once build/ is current: the compile cache, then the built server.
  const main = path.join(checkout, 'build', 'main.js');
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', `require('node:module').enableCompileCache?.(); require(${JSON.stringify(main)})`], {
    cwd: checkout,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const cleanup = async () => {
    await stopProcess(child);
    rmSync(dataDir, { recursive: true, force: true });
    await postgres?.drop();
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/api/health/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await cleanup();
      throw new Error(`the server of ${checkout} did not become ready`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { url, pid: child.pid, readyMs: performance.now() - started, stop: cleanup };
}

/** autocannon against `url` after an untimed warm-up: req/s, the server's CPU µs per request, p50 of 2xx responses (ms). */
async function cannon(url: string, pid: number | undefined, requests: autocannon.Request[], connections: number) {
  const settings = { url, connections, timeout: 60, headers: { ApiKey: apiKey, 'Content-Type': 'application/json' }, requests };
  if (warmupSeconds > 0) await autocannon({ ...settings, duration: warmupSeconds });
  const samples: number[] = [];
  const cpuBefore = cpuSecondsOf(pid);
  const running = autocannon({ ...settings, duration: seconds });
  (running as unknown as autocannon.Instance).on('response', (_client, status, _bytes, time) => {
    if (status >= 200 && status < 300) samples.push(time);
  });
  const result = await running;
  const cpuAfter = cpuSecondsOf(pid);
  if (result.errors + result.non2xx + result.timeouts > 0) throw new Error(`${requests[0].method} ${requests[0].path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    reqPerSec: result.requests.average,
    cpuMicros: cpuBefore === null || cpuAfter === null ? NaN : (1e6 * (cpuAfter - cpuBefore)) / result.requests.total,
    p50: percentile(samples, 50),
  };
}

/** One round against one build: start, seed, measure, stop. */
async function measureRound(side: 'base' | 'head', checkout: string, into: Samples): Promise<void> {
  const server = await startServer(checkout);
  const put = (name: string, value: number) => (into[name] ??= []).push(value);
  try {
    put('start-up, first start to ready', server.readyMs);
    const api = apiClient(server.url, apiKey);
    const tag = randomBytes(3).toString('hex');
    for (const [size, label] of [[200, '200'], [2000, '2,000']] as const) {
      const board = await seedBoard(api, `compare-${tag}-${size}`, size);
      const id = board.id;
      const get = await cannon(server.url, server.pid, [{ method: 'GET', path: `/api/boards/${id}` }], 10);
      put(`GET board, ${label} items, 10 connections`, get.reqPerSec);
      put(`GET board, ${label} items, server CPU`, get.cpuMicros);
      const current = await api('GET', `/api/boards/${id}`);
      if (size === 2000) {
        const unchanged = JSON.stringify({ sections: current.sections, items: current.items });
        const result = await cannon(server.url, server.pid, [{ method: 'PUT', path: `/api/boards/${id}`, body: unchanged }], 1);
        put('PUT unchanged, 2,000 items, p50', result.p50);
        put('PUT unchanged, 2,000 items, server CPU', result.cpuMicros);
      }
      const item = current.items[0];
      const patch = (y: number) => JSON.stringify({ layouts: [{ ...item.layouts[0], yOffset: y }] });
      const patched = await cannon(server.url, server.pid, [
        { method: 'PATCH', path: `/api/boards/${id}/items/${item.id}`, body: patch(5000) },
        { method: 'PATCH', path: `/api/boards/${id}/items/${item.id}`, body: patch(item.layouts[0].yOffset) },
      ], 1);
      put(`PATCH item, ${label} items, p50`, patched.p50);
      if (size === 2000) {
        const layouts = current.layouts.map((l: any) => ({ id: l.id, name: l.name, columnCount: l.columnCount, breakpoint: l.breakpoint }));
        const send = async (body: unknown) => {
          const response = await fetch(`${server.url}/api/boards/${id}/layouts`, { method: 'PATCH', headers: { ApiKey: apiKey, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
          await response.arrayBuffer();
          if (!response.ok) throw new Error(`PATCH layouts -> ${response.status}`);
        };
        const wider = { layouts: [...layouts, { id: 'wide', name: 'Wide', columnCount: 2, breakpoint: 1920 }] };
        const samples: number[] = [];
        for (let i = 0; i <= sequentialSteps; i++) {
          const started = performance.now();
          await send(wider);
          if (i > 0) samples.push(performance.now() - started); // the first is untimed
          await send({ layouts });
        }
        put('PATCH layouts (+1 layout), 2,000 items, p50', percentile(samples, 50));
      }
    }
    // What a revision may not have (an older base): a figure it cannot serve is left out for it and named.
    const optional = async (what: string, measure: () => Promise<void>) => {
      try {
        await measure();
      } catch (error) {
        // Once per figure and side: the message of its first failure (later rounds name other ids).
        if (!unavailable.has(`${what} on ${side}`)) unavailable.set(`${what} on ${side}`, (error as Error).message.slice(0, 160));
      }
    };
    await optional('set plan/apply', () => measureFleet(server.url, tag, put));
    await optional('widget data', () => measureWidgetData(server, api, tag, put));
    await optional('board page', () => measurePage(server.url, api, put));
  } finally {
    await server.stop();
  }
}

/** Why figures are missing for a side (a revision without the feature), printed under the table. */
const unavailable = new Map<string, string>();
type Put = (name: string, value: number) => void;

/** FLEET: one set of new boards planned (dry run), then applied, as `POST /api/boards/apply` (scripts/bench/fleet.ts alone). */
async function measureFleet(url: string, tag: string, put: Put): Promise<void> {
  const files = Array.from({ length: fleetBoards }, (_, i) => clockBoardFile(`fleet-${tag}-${i}`, 0, fleetItems));
  const body = JSON.stringify({ managedBy: `compare-${tag}`, boards: files });
  for (const dryRun of [true, false]) {
    const started = performance.now();
    const response = await fetch(`${url}/api/boards/apply?dryRun=${dryRun}`, { method: 'POST', headers: { ApiKey: apiKey, 'Content-Type': 'application/json' }, body });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`POST /api/boards/apply -> ${response.status}`);
    put(`set ${dryRun ? 'plan' : 'apply'}, ${fleetBoards} new boards x ${fleetItems} items`, performance.now() - started);
  }
}

/** WDATA: one systemResources widget on the Glances stand-in, its data read while the cached answer is fresh. */
async function measureWidgetData(server: { url: string; pid: number | undefined }, api: ReturnType<typeof apiClient>, tag: string, put: Put): Promise<void> {
  const { integrationId } = await api('POST', '/api/integrations', { name: `compare ${tag}`, kind: 'glances', url: `${glances!.url}/${tag}` });
  const { boardId, itemIds: [itemId] } = await seedLiveBoard(api, `live-${tag}`, [integrationId]);
  const dataPath = `/api/boards/${boardId}/items/${itemId}/data`;
  const first = await api('GET', dataPath);
  if (first.results?.[0]?.status !== 'ok') throw new Error(`the widget's data is not ok: ${JSON.stringify(first).slice(0, 120)}`);
  const hit = await cannon(server.url, server.pid, [{ method: 'GET', path: dataPath }], 10);
  put('widget data, cache hit, 10 connections', hit.reqPerSec);
  put('widget data, cache hit, server CPU', hit.cpuMicros);
}

/** VIEW-7: the page of a board of every tile kind, opened in Chromium `pageLoadsPerRound` times after one warm-up; the median. */
async function measurePage(url: string, api: ReturnType<typeof apiClient>, put: Put): Promise<void> {
  const name = await seedPageBoard(api, pageItems);
  browser ??= await launchBenchBrowser();
  await firstRenderOnce(browser, url, name, pageItems);
  const loads: number[] = [];
  for (let i = 0; i < pageLoadsPerRound; i++) loads.push(await firstRenderOnce(browser, url, name, pageItems));
  put(`board page, ${pageItems} tiles, first render (tiles painted)`, percentile(loads, 50));
}

let browser: Browser | undefined;
let glances: Awaited<ReturnType<typeof startGlancesStandIn>> | undefined;

async function main(): Promise<void> {
  if (!values.base && !values['base-dir']) throw new Error('usage: npm run bench:compare -- --base <rev> (or --base-dir <checkout>) [--head-dir <checkout>] [--rounds 6] [--quick]');
  const { ensureServerBuilt } = require('../build-server') as { ensureServerBuilt: () => unknown };
  const headDir = path.resolve(values['head-dir'] ?? root);
  if (!values['head-dir']) ensureServerBuilt();
  const base = values['base-dir'] ? { dir: path.resolve(values['base-dir']), label: headLabel(path.resolve(values['base-dir'])), remove: () => {} } : prepareBase(values.base!);
  // An interrupted run removes the worktree too (the servers, its children, get the same SIGINT from the terminal).
  process.once('SIGINT', () => {
    base.remove();
    process.exit(130);
  });
  try {
    for (const dir of [base.dir, headDir]) if (!existsSync(path.join(dir, 'build', 'main.js'))) throw new Error(`${dir}/build/main.js is missing`);
    const baseSamples: Samples = {};
    const headSamples: Samples = {};
    glances = await startGlancesStandIn();
    const loadBefore = os.loadavg();
    for (let round = 1; round <= rounds; round++) {
      for (const [side, dir, into] of [['base', base.dir, baseSamples], ['head', headDir, headSamples]] as const) {
        const started = Date.now();
        await measureRound(side, dir, into);
        log(`round ${round}/${rounds} ${side}: ${Math.round((Date.now() - started) / 1000)} s`);
      }
    }
    const loadAfter = os.loadavg();
    const database = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite';
    const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' ');
    console.log(
      `\nbench:compare: base ${base.label} vs head ${headLabel(headDir)}; ${database}; ${rounds} alternating rounds; ${seconds} s per measurement ` +
        `(${warmupSeconds} s warm-up), ${sequentialSteps} PATCH layouts per round; ${os.cpus().length} cores, node ${process.version}; ` +
        `load average ${load(loadBefore)} before, ${load(loadAfter)} after\n`,
    );
    console.log('| figure | unit | base: median (range) | head: median (range) | head/base: median (range) | verdict |');
    console.log('|---|---|---:|---:|---:|---|');
    for (const figure of figures) console.log(comparisonRow(figure.name, figure.unit, baseSamples[figure.name] ?? [], headSamples[figure.name] ?? [], figure.better, minRoundsToCall));
    if (rounds < minRoundsToCall) console.log(`\nWith fewer than ${minRoundsToCall} rounds no difference is called (a smoke run).`);
    if (unavailable.size) console.log(`\nLeft out where a revision could not serve them:\n${[...unavailable].map(([what, why]) => `- ${what}: ${why}`).join('\n')}`);
    console.log(`\nNot measured by compare: ${notMeasured.join('; ')}.`);
  } finally {
    await browser?.close();
    await glances?.close();
    base.remove();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
