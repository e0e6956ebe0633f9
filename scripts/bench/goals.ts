/**
 * npm run bench:goals [-- options]: the figures of issue 33 ("Performance round 3") in ONE markdown table, each with
 * what it is compared with and its goal. It runs the other benchmarks one after another as processes (each on its
 * own, so none measures another's load) and reads what they hand over: scripts/bench/run.ts (--json FILE: GET 200
 * items against its floors, PUT unchanged, PATCH item, PATCH layouts, the server's RSS after all of it),
 * scripts/bench/events.ts, scripts/bench/fleet.ts and scripts/bench/startup.ts (their printed tables), and
 * scripts/bench/ratelimit.ts and scripts/bench/page-render.ts (--json). Nothing asserts timings; it prints.
 *
 *   npm run bench:goals                                   # PGlite and PostgreSQL, every part (about 15 minutes)
 *   npm run bench:goals -- --quick --databases pglite     # small counts, a smoke run of a few minutes
 *   npm run bench:goals -- --skip events,fleet            # parts: boards, ratelimit, events, fleet, startup, page
 *   npm run bench:goals -- --ci-seconds 1150              # .ci/run's wall time, measured elsewhere (or --ci-file F:
 *                                                         # a number of seconds, or `time`'s "real 19m10s")
 *   npm run bench:goals -- --events-args "--instances 2"  # passed on to events.ts as they are (default: --instances 2 on PostgreSQL)
 *   npm run bench:goals -- --json /tmp/goals.json         # the table's rows as JSON too
 *
 * PostgreSQL is `--postgres-url`, else DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test (each part runs
 * in a fresh schema it drops). Start-up and the board page are measured on PGlite only (their goals are PGlite's).
 * Run it under the machine's benchmark lock: `flock /tmp/tessera-bench.lock npm run bench:goals -- …`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { PageRenderResult } from './page-render';
import { root } from './processes';
import type { RateLimitResult } from './ratelimit';

const { values } = parseArgs({
  options: {
    databases: { type: 'string', default: 'pglite,postgresql' },
    'postgres-url': { type: 'string' },
    quick: { type: 'boolean', default: false },
    skip: { type: 'string', default: '' },
    'ci-seconds': { type: 'string' },
    'ci-file': { type: 'string' },
    'events-args': { type: 'string' },
    json: { type: 'string' },
  },
});
const quick = values.quick!;
const skip = new Set(values.skip!.split(',').filter(Boolean));
const databases = values.databases!.split(',').filter(Boolean) as ('pglite' | 'postgresql')[];
const postgresUrl = values['postgres-url'] ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The counts of each part: the issue's, or small ones for a smoke run (--quick). */
const counts = quick
  ? { seconds: 1, rounds: 1, warmup: 0.5, streams: 200, puts: 5, boards: 10, boardItems: 20, fleetRounds: 1, rateRounds: 2, rateSeconds: 1, startupRuns: 1, startupItems: 200, pageRounds: 2 }
  : { seconds: 3, rounds: 3, warmup: 1, streams: 10_000, puts: 20, boards: 100, boardItems: 200, fleetRounds: 1, rateRounds: 6, rateSeconds: 2, startupRuns: 3, startupItems: 2000, pageRounds: 5 };

interface Row {
  figure: string;
  measured: string;
  reference: string;
  goal: string;
  /** true, false, or null when there is no goal or no figure. */
  met: boolean | null;
}
const rows: Row[] = [];
const add = (row: Row) => rows.push(row);
const notMeasured = (figure: string, goal: string, why: string) => add({ figure, measured: `not measured: ${why}`, reference: '–', goal, met: null });

/** Runs a script of scripts/bench as a process; its stderr goes to ours (progress), its stdout is returned. */
function runScript(script: string, args: string[], database: 'pglite' | 'postgresql'): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (database === 'postgresql') env.DATABASE_URL = postgresUrl;
  else delete env.DATABASE_URL;
  console.error(`\n== ${database}: ${script} ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join('scripts/bench', script), ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve(stdout) : reject(new Error(`${script} exited with ${code ?? signal}`))));
  });
}

/** The last line of `stdout` that parses as a JSON object. */
function lastJson<T>(stdout: string): T {
  const line = stdout.trim().split('\n').reverse().find((each) => each.startsWith('{'));
  if (!line) throw new Error('no JSON line in the output');
  return JSON.parse(line) as T;
}

/** The cells of the markdown table rows in `stdout` (header and separator rows left out). */
function tableRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
}

const label = (database: string) => (database === 'postgresql' ? 'PostgreSQL' : 'PGlite');
const pct = (share: number) => `${Math.round(100 * share)}%`;
const num = (text: string | undefined) => (text === undefined ? NaN : Number(text.replace(/,/g, '')));
const ratio = (value: number) => `${value.toFixed(2)}x`;
const atMost = (value: number, limit: number) => (Number.isFinite(value) ? value <= limit : null);

// ---------------------------------------------------------------------------------------------------------------
// The board routes (scripts/bench/run.ts): GET 200 items against the floors, PUT unchanged, PATCH item, PATCH layouts, RSS.

interface BenchRow {
  operation: string;
  items: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  note?: string;
}
interface BenchJson {
  rows: BenchRow[];
  memory: { figure: string; items: number; rssMiB: number; peakMiB: number }[];
}

async function boards(database: 'pglite' | 'postgresql'): Promise<void> {
  const db = label(database);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-goals-'));
  const file = path.join(dir, 'run.json');
  let result: BenchJson;
  try {
    await runScript('run.ts', ['--sizes', '200,2000', '--ops', 'get,rss,put,patch-item,layouts', '--seconds', String(counts.seconds), '--rounds', String(counts.rounds), '--warmup', String(counts.warmup), '--json', file], database);
    result = JSON.parse(readFileSync(file, 'utf8')) as BenchJson;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const row = (operation: string, items: number) => result.rows.find((r) => r.operation === operation && r.items === items);
  const match = (text: string | undefined, pattern: RegExp) => (text === undefined ? undefined : pattern.exec(text) ?? undefined);
  const cpuOf = (r: BenchRow | undefined) => num(match(r?.note, /server CPU (\d+) µs per request/)?.[1]);

  // GET 200: "26% of floor (median of 3 rounds, 315 µs CPU per request; floor 10359 req/s, 46 µs CPU per request, floor
  // with one PostgreSQL query per request 5535 req/s = 46% of floor, 103 µs CPU per request; 112766 bytes)".
  const get = row('GET board', 200);
  const share = num(match(get?.note, /^(\d+)% of floor/)?.[1]) / 100;
  const ourCpu = num(match(get?.note, /rounds, (\d+) µs CPU per request/)?.[1]);
  const bare = match(get?.note, /; floor (\d+) req\/s, (\d+) µs CPU per request/);
  const query = match(get?.note, /query per request (\d+) req\/s = (\d+)% of floor, (\d+) µs CPU per request/);
  if (get && Number.isFinite(share) && query) {
    const queryShare = num(query[2]) / 100;
    add({
      figure: `GET 200 items, share of the one-query floor (${db})`,
      measured: `${pct(share / queryShare)} (${get.reqPerSec} req/s)`,
      reference: `floor with one ${db} query per request: ${query[1]} req/s = ${query[2]}% of the bare floor (${bare?.[1] ?? '?'} req/s); Tessera ${pct(share)} of the bare floor; medians of ${counts.rounds} alternating rounds, 10 connections`,
      goal: '≥ 80%',
      met: share / queryShare >= 0.8,
    });
    add({
      figure: `GET 200 items, server CPU per request (${db})`,
      measured: `${ourCpu} µs`,
      reference: `one-query floor ${query[3]} µs (${ratio(ourCpu / num(query[3]))}), bare floor ${bare?.[2] ?? '?'} µs`,
      goal: '≤ 1.3x the one-query floor',
      met: ourCpu / num(query[3]) <= 1.3,
    });
  } else {
    notMeasured(`GET 200 items, share of the one-query floor (${db})`, '–', `run.ts's GET note not understood: ${get?.note ?? 'no GET row'}`);
  }

  const put200 = row('PUT unchanged', 200);
  const putCpu = cpuOf(put200);
  add({
    figure: `PUT unchanged 200 items, server CPU per request (${db})`,
    measured: Number.isFinite(putCpu) ? `${putCpu} µs` : 'not measured',
    reference: put200 ? `p50 ${put200.p50} ms, one at a time` : '–',
    goal: '≤ 2,000 µs',
    met: atMost(putCpu, 2000),
  });

  const put2000 = row('PUT unchanged', 2000);
  const putFloor = num(match(put2000?.note, /floor \(.*?\) p50 ([\d.]+) ms/)?.[1]);
  add({
    figure: `PUT unchanged 2,000 items, p50 vs its floor (${db})`,
    measured: put2000 && Number.isFinite(putFloor) ? `${put2000.p50} ms = ${ratio(put2000.p50 / putFloor)}` : 'not measured',
    reference: Number.isFinite(putFloor) ? `floor (read and parse the 1.1 MB body, answer the document) p50 ${putFloor} ms; server CPU ${cpuOf(put2000)} µs per request` : '–',
    goal: '≤ 2x',
    met: put2000 ? atMost(put2000.p50 / putFloor, 2) : null,
  });

  const [patch200, patch2000] = [row('PATCH item', 200), row('PATCH item', 2000)];
  const patchRatio = patch200 && patch2000 ? patch2000.p50 / patch200.p50 : NaN;
  add({
    figure: `PATCH item, 2,000 vs 200 items (${db})`,
    measured: Number.isFinite(patchRatio) ? `${ratio(patchRatio)} (p50 ${patch2000!.p50} / ${patch200!.p50} ms)` : 'not measured',
    reference: `server CPU per request ${cpuOf(patch2000)} / ${cpuOf(patch200)} µs = ${ratio(cpuOf(patch2000) / cpuOf(patch200))} (p50 in whole ms, autocannon's)`,
    goal: '≤ 1.5x',
    met: atMost(patchRatio, 1.5),
  });

  const layouts = row('PATCH layouts (+1 layout)', 2000);
  add({
    figure: `PATCH layouts +1 layout, 2,000 items, p50 (${db})`,
    measured: layouts ? `${layouts.p50} ms` : 'not measured',
    reference: layouts ? `max ${layouts.p99} ms; sequential, 9 runs, answer read as bytes` : '–',
    goal: '≤ 45 ms',
    met: layouts ? atMost(layouts.p50, 45) : null,
  });

  const rss = result.memory.find((m) => m.figure === 'RSS after the mixed load');
  const mb = rss ? (rss.rssMiB * 1024 * 1024) / 1e6 : NaN;
  add({
    figure: `RSS after the mixed load (${db})`,
    measured: rss ? `${Math.round(mb)} MB (${rss.rssMiB} MiB)` : 'not measured',
    reference: rss
      ? `the server process${database === 'pglite' ? ' with its embedded database' : ' (PostgreSQL not in it)'} after GET, PUT, PATCH item and layouts on 200 and 2,000 items; peak ${rss.peakMiB} MiB`
      : '–',
    goal: database === 'pglite' ? '≤ 400 MB' : '–',
    met: database === 'pglite' ? atMost(mb, 400) : null,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The change feed (scripts/bench/events.ts): its printed table.

async function events(database: 'pglite' | 'postgresql'): Promise<void> {
  const db = label(database);
  // The goal is over two instances, which share a PostgreSQL database (PGlite is one process's).
  const extra = values['events-args'] ? values['events-args'].split(/\s+/).filter(Boolean) : database === 'postgresql' ? ['--instances', '2'] : [];
  const stdout = await runScript('events.ts', ['--streams', String(counts.streams), '--puts', String(counts.puts), ...extra], database);
  const table = tableRows(stdout);
  const latency = table.find(([figure]) => /p50 \/ p99/.test(figure));
  const memory = table.find(([figure]) => /per open stream/i.test(figure));
  const streams = num(/last of ([\d,]+) streams/.exec(latency?.[0] ?? '')?.[1] ?? String(counts.streams));
  const instances = num(table.find(([figure]) => figure === 'instances')?.[1] ?? '1');
  const [p50, p99] = (latency?.[1] ?? '').split('/').map((each) => num(each.trim()));
  // One "RSS (heap H)" per instance: the goal holds for the largest.
  const perInstance = (memory?.[1] ?? '').split('/').map((each) => num(/^\s*([\d.]+)/.exec(each)?.[1] ?? 'NaN'));
  const kib = perInstance.length > 0 ? Math.max(...perInstance) : NaN;
  add({
    figure: `Change feed: ${streams.toLocaleString('en-US')} streams on ${instances} instance${instances === 1 ? '' : 's'}, PUT to the last stream's event, p99 (${db})`,
    measured: latency ? `${p99} ms` : 'not measured',
    reference: latency ? `p50 ${p50} ms; ${counts.puts} PUTs one after another` : '–',
    goal: '10,000 streams over 2 instances, p99 ≤ 150 ms',
    met: latency ? streams >= 10_000 && instances >= 2 && p99 <= 150 : null,
  });
  add({
    figure: `Change feed: memory per open stream (${db})`,
    measured: memory ? `${kib} KiB (the larger instance's)` : 'not measured',
    reference: memory ? `per instance, RSS after a full GC (JS heap in use): ${memory[1]} KiB; server processes only, the clients are others` : '–',
    goal: '≤ 10 KiB',
    met: atMost(kib, 10),
  });
}

// ---------------------------------------------------------------------------------------------------------------
// A set of boards (scripts/bench/fleet.ts): its printed table of steps and ms.

async function fleet(database: 'pglite' | 'postgresql'): Promise<void> {
  const db = label(database);
  const stdout = await runScript('fleet.ts', ['--boards', String(counts.boards), '--items', String(counts.boardItems), '--rounds', String(counts.fleetRounds)], database);
  const steps = tableRows(stdout)
    .filter(([, ms]) => /^\d+$/.test(ms ?? ''))
    .map(([step, ms]) => ({ step, ms: Number(ms) }));
  const worst = (kind: RegExp) => steps.filter(({ step }) => kind.test(step)).sort((a, b) => b.ms - a.ms)[0];
  const exported = steps.find(({ step }) => /export/i.test(step));
  const reference = exported ? `${exported.step}: ${exported.ms} ms` : 'no export figure in fleet.ts\'s output';
  const size = `${counts.boards} boards x ${counts.boardItems} items`;
  for (const [name, kind, limit] of [['plan', /^plan/, 2000], ['apply', /^apply/, 5000]] as const) {
    const found = worst(kind);
    add({
      figure: `Set ${name}, ${size}, the slowest of its steps (${db})`,
      measured: found ? `${(found.ms / 1000).toFixed(2)} s (${found.step})` : 'not measured',
      reference: `${reference}; all steps: ${steps.filter(({ step }) => kind.test(step)).map(({ step, ms }) => `${step.replace(/^\w+, /, '')} ${ms}`).join(', ')} ms`,
      goal: `≤ ${limit / 1000} s`,
      met: found ? found.ms <= limit : null,
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The rate limiter (scripts/bench/ratelimit.ts --json).

async function rateLimit(database: 'pglite' | 'postgresql'): Promise<void> {
  const db = label(database);
  const r = lastJson<RateLimitResult>(await runScript('ratelimit.ts', ['--rounds', String(counts.rateRounds), '--seconds', String(counts.rateSeconds), '--items', '200', '--json'], database));
  add({
    figure: `Rate limiter on / off, GET 200 items, share of the floor (${db})`,
    measured: `${pct(r.on.shareOfFloor)} / ${pct(r.off.shareOfFloor)}`,
    reference: `floor ${Math.round(r.floor.reqPerSec)} req/s; server CPU ${Math.round(r.on.cpuMicros)} / ${Math.round(r.off.cpuMicros)} µs per request; medians of ${r.rounds} rotating rounds of ${r.seconds} s`,
    goal: '–',
    met: null,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Start-up (scripts/bench/startup.ts) and the board page (scripts/bench/page-render.ts --json), on PGlite.

async function startup(): Promise<void> {
  const table = tableRows(await runScript('startup.ts', ['--runs', String(counts.startupRuns), '--items', String(counts.startupItems)], 'pglite'));
  for (const [name, pattern, limit] of [['First start', /^first start/, 1000], ['Restart', /^restart, same empty/, 600]] as const) {
    const found = table.find(([figure]) => pattern.test(figure));
    const ms = num(found?.[1]);
    add({
      figure: `${name} until ready (PGlite)`,
      measured: found ? `${(ms / 1000).toFixed(2)} s` : 'not measured',
      reference: found ? `${found[0]}; ${found[2]}` : '–',
      goal: `≤ ${(limit / 1000).toFixed(1)} s`,
      met: atMost(ms, limit),
    });
  }
}

async function page(): Promise<void> {
  const r = lastJson<PageRenderResult>(await runScript('page-render.ts', ['--items', '200', '--rounds', String(counts.pageRounds), '--json'], 'pglite'));
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const first = median(r.firstRender);
  add({
    figure: `Board page first render, ${r.items} items (headless Chromium, PGlite)`,
    measured: `${Math.round(first)} ms`,
    reference: `drawing the loaded board ${Math.round(median(r.draw))} ms; notes filled in at ${Math.round(median(r.notes))} ms; medians of ${r.rounds}; load average ${r.loadAverage[0].toFixed(1)} on ${r.cores} cores`,
    goal: '≤ 300 ms on an unloaded machine',
    met: r.loadAverage[0] < 0.5 * r.cores ? first <= 300 : null,
  });
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  add({
    figure: 'Board page assets, gzipped: board.js / markdown.js / live.js / board.css',
    measured: `${kib(r.script.gzip)} / ${kib(r.markdownScript.gzip)} / ${kib(r.liveScript.gzip)} / ${kib(r.style.gzip)}`,
    reference: `as served: ${kib(r.script.raw)} / ${kib(r.markdownScript.raw)} / ${kib(r.liveScript.raw)} / ${kib(r.style.raw)}; markdown.js only for boards with a notebook, live.js only for boards with a live tile`,
    goal: '–',
    met: null,
  });
}

// ---------------------------------------------------------------------------------------------------------------

/** .ci/run's wall time, which this bench cannot measure: --ci-seconds, or --ci-file holding seconds or `real 19m10.5s`. */
function ciSeconds(): number | null {
  if (values['ci-seconds']) return Number(values['ci-seconds']);
  if (!values['ci-file']) return null;
  const text = readFileSync(values['ci-file'], 'utf8');
  const minutes = /(\d+)m\s*([\d.]+)s/.exec(text);
  if (minutes) return 60 * Number(minutes[1]) + Number(minutes[2]);
  const plain = /([\d.]+)/.exec(text);
  return plain ? Number(plain[1]) : null;
}

async function part(name: string, work: () => Promise<void>, figure: string): Promise<void> {
  if (skip.has(name)) return;
  try {
    await work();
  } catch (error) {
    console.error(error);
    notMeasured(figure, '–', `${name} failed: ${(error as Error).message}`);
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  for (const database of databases) {
    await part('boards', () => boards(database), `Board routes (${label(database)})`);
    await part('ratelimit', () => rateLimit(database), `Rate limiter (${label(database)})`);
    await part('events', () => events(database), `Change feed (${label(database)})`);
    await part('fleet', () => fleet(database), `Set apply (${label(database)})`);
  }
  await part('startup', startup, 'Start-up (PGlite)');
  await part('page', page, 'Board page first render (PGlite)');
  const ci = ciSeconds();
  add({
    figure: '.ci/run wall time',
    measured: ci === null ? 'not given (--ci-seconds or --ci-file)' : `${(ci / 60).toFixed(1)} min (${Math.round(ci)} s)`,
    reference: 'measured by whoever ran CI, not by this bench (`.ci/run` prints its total and each step\'s)',
    goal: '≤ 20 min',
    met: ci === null ? null : ci <= 20 * 60,
  });

  const cpu = os.cpus();
  console.log(
    `\nIssue 33 goals: ${databases.map(label).join(' and ')}${quick ? ', --quick (small counts: a smoke run, not the issue\'s figures)' : ''}; ${cpu.length} cores (${cpu[0]?.model ?? 'unknown cpu'}), ` +
      `node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, ${new Date().toISOString()}, ${Math.round((Date.now() - started) / 1000)} s\n`,
  );
  console.log('| figure | measured | reference | goal | met? |\n|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.figure} | ${r.measured} | ${r.reference} | ${r.goal} | ${r.met === null ? '–' : r.met ? 'yes' : '**no**'} |`);
  if (values.json) writeFileSync(values.json, JSON.stringify({ quick, databases, rows }, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
