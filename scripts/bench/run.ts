/**
 * npm run bench: seeds boards of 20, 200 and 2,000 items over 3 layouts and measures the board routes with
 * autocannon on loopback, bounded in time. Uses PGlite in a temporary directory, or PostgreSQL when
 * DATABASE_URL is set. Prints one table per part; nothing here asserts timings (tests never do).
 *
 *   npm run bench                       # all sizes, 5 s per measurement
 *   npm run bench -- --seconds 3 --sizes 20,200
 *   npm run bench -- --sizes 10000                  # the largest board the item limit allows (seeded with one PUT of ~6 MiB)
 *   npm run bench -- --sizes 200 --ops get,put      # only some operations (get, get-latency, get-compressed, rss, put, put-moved,
 *                                                   # patch-item, post-item, layouts, history, events, startup, suite)
 *   npm run bench -- --rounds 5                     # GET/floor rounds (default 3; the median counts)
 *   npm run bench -- --ops get-latency              # GET with one connection against the floor: p50 and average ms, and the ratio
 *   npm run bench -- --ops get,rss                  # the server's RSS (and peak) after the GETs of each size: table "Memory"
 *                                                   # (its last row: after every operation of every size, the mixed load)
 *   npm run bench -- --ops history --sizes 200,2000 # only the cost of history and plans (scripts/bench/history.ts)
 *   npm run bench -- --ops events                   # only the change feed: 1,000 streams on one board (scripts/bench/events.ts)
 *   npm run bench -- --ops yaml                     # health-probe latency while costly YAML bodies are parsed (scripts/bench/yaml.ts)
 *   npm run bench -- --ops startup                  # first start, restart, restart with a 2,000-item board, always on PGlite
 *                                                   # (scripts/bench/startup.ts; --rounds runs, the median counts)
 *   npm run bench -- --ops suite [--suite-args "test/boards"]  # wall time of `npx jest` (scripts/bench/suite-time.ts):
 *                                                   # minutes on every core, so never in the default operations
 *
 * Every measurement is preceded by an untimed warm-up of the same requests (--warmup seconds, default 1), so
 * that JIT compilation does not count. Operations on the boards (get … layouts, rss) run against one server; history,
 * events, yaml, startup and suite start their own, one after another, once that server has stopped.
 */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { boardLimits } from '../../src/boards/document/limits';
import { freePort, freshPostgresSchema, startFloor, startNode, stopProcess, waitFor } from './processes';
import { benchHistory } from './history';
import { benchEvents } from './events';
import { benchStartup, printStartup } from './startup';
import { formatSuite, timeSuite } from './suite-time';
import { benchYaml, printYaml } from './yaml';
import { Api, apiClient, seedBoard as seedBoardWith } from './seed';
import { cpuSecondsOf, percentile } from './measure';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    sizes: { type: 'string', default: '20,200,2000' },
    connections: { type: 'string', default: '10' },
    ops: { type: 'string', default: 'get,get-latency,get-compressed,rss,put,put-moved,patch-item,post-item,layouts,history,events,yaml,startup' },
    warmup: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
    'suite-args': { type: 'string', default: '' },
    // The rows and memory figures as JSON in this file too (scripts/bench/goals.ts reads them).
    json: { type: 'string' },
  },
});
const ops = new Set(values.ops!.split(','));
const warmupSeconds = Number(values.warmup);
const seconds = Number(values.seconds);
const sizes = values.sizes!.split(',').map(Number);
const connections = Number(values.connections);
const rounds = Math.max(1, Number(values.rounds));

const apiKey = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
/** The operations that run against the one server of the main table (and its Memory table). */
const boardOps = ['get', 'get-latency', 'get-compressed', 'rss', 'put', 'put-moved', 'patch-item', 'post-item', 'layouts'];

let base = '';
let api: Api = () => Promise.reject(new Error('no server yet'));

/** A board of `count` 1x1 clock items packed row by row in its empty section, on 3 layouts (scripts/bench/seed.ts). */
const seedBoard = (name: string, count: number) => seedBoardWith(api, name, count);

interface Row {
  database: string;
  operation: string;
  items: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  note?: string;
}

/** The figures the write goals of issue 33 are stated in, by board size (printed under the table). */
interface WriteFigures {
  putUnchanged?: { cpuMicros: number | null; p50: number; floorP50: number };
  patchItemP50?: number;
  layoutsP50?: number;
}

interface MemoryRow {
  figure: string;
  items: number;
  rssMiB: number;
  peakMiB: number;
  note: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Two decimals, as a number (for the table's ms columns). */
const two = (value: number) => Math.round(value * 100) / 100;

/** The process's resident set now and at its peak (VmRSS, VmHWM in MiB), from /proc; null where there is no /proc. */
function memoryOf(pid: number | undefined): { rssMiB: number; peakMiB: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mib = (field: string) => Math.round(Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) / 102.4) / 10;
    return { rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM') };
  } catch {
    return null;
  }
}

/** Writes are measured one at a time: their figures are latencies, not contention on one board's row lock. */
const sequential = { connections: 1 };

/**
 * Runs the requests; with `pid`, also reports that server's CPU time per answered request (µs). With `latencies`,
 * pushes there the time of every 2xx response of the timed run in ms with its fractions (autocannon's own latency
 * histogram holds whole milliseconds).
 */
async function cannon(
  requests: autocannon.Request[],
  opts: { connections?: number; url?: string; pid?: number; headers?: Record<string, string>; latencies?: number[] } = {},
) {
  const settings = {
    url: opts.url ?? base,
    connections: opts.connections ?? connections,
    // Above autocannon's 10 s, for the writes of a 10,000-item board; a request still in flight at the end is not counted.
    timeout: 60,
    headers: { ApiKey: apiKey, 'Content-Type': 'application/json', ...opts.headers },
    requests,
  };
  if (warmupSeconds > 0) await autocannon({ ...settings, duration: warmupSeconds });
  const cpuBefore = cpuSecondsOf(opts.pid);
  const running = autocannon({
    ...settings,
    duration: seconds,
  });
  const samples = opts.latencies;
  if (samples) {
    (running as unknown as autocannon.Instance).on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) samples.push(responseTime);
    });
  }
  const result = await running;
  const cpuAfter = cpuSecondsOf(opts.pid);
  return {
    cpuMicrosPerRequest: cpuBefore !== null && cpuAfter !== null ? Math.round((1e6 * (cpuAfter - cpuBefore)) / result.requests.total) : null,
    reqPerSec: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

/**
 * A JSON call whose answer is read as bytes, not parsed: a timed request measures the server, as autocannon's do (the
 * client's JSON.parse of a 2,000-item answer is about 14 ms on the development machine).
 */
async function send(method: string, urlPath: string, body: unknown): Promise<void> {
  const response = await fetch(base + urlPath, { method, headers: { ApiKey: apiKey, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${method} ${urlPath} -> ${response.status}`);
}

/**
 * Sequential wall-clock timings for operations that change the board's shape: `measured` is timed,
 * `reset` (untimed) puts the board back for the next round.
 */
async function timeSteps(count: number, measured: () => Promise<void>, reset: () => Promise<void>): Promise<{ p50: number; max: number }> {
  const samples: number[] = [];
  await measured();
  await reset();
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await measured();
    samples.push(performance.now() - started);
    await reset();
  }
  samples.sort((a, b) => a - b);
  return { p50: Math.round(samples[Math.floor(samples.length / 2)] * 10) / 10, max: Math.round(samples[samples.length - 1] * 10) / 10 };
}

/** One GET at a time (one connection): p50, p99 and average of every response's own time, in ms with fractions. */
async function latencyRound(url: string, urlPath: string, pid: number | undefined) {
  const samples: number[] = [];
  const result = await cannon([{ method: 'GET', path: urlPath }], { url, pid, connections: 1, latencies: samples });
  return {
    ...result,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    average: samples.reduce((sum, each) => sum + each, 0) / samples.length,
  };
}

/** The board routes against one server: the main table's rows, and the server's memory after the GETs of each size. */
async function benchBoards(database: string): Promise<{ rows: Row[]; memory: MemoryRow[]; figures: Map<number, WriteFigures> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  api = apiClient(base, apiKey);
  const postgres = process.env.DATABASE_URL ? await freshPostgresSchema(process.env.DATABASE_URL, 'bench') : null;
  const server = startNode('src/main.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BOOTSTRAP_ADMIN_API_KEY: apiKey,
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // RATE-2: the limiter stays on (its cost is part of every figure) with quotas no run reaches; its own cost is
    // measured by scripts/bench/ratelimit.ts.
    RATE_LIMIT_READS: process.env.RATE_LIMIT_READS ?? '999999999/60',
    RATE_LIMIT_WRITES: process.env.RATE_LIMIT_WRITES ?? '999999999/60',
  });
  const rows: Row[] = [];
  const memory: MemoryRow[] = [];
  const figures = new Map<number, WriteFigures>();
  let floor: ReturnType<typeof startNode> | null = null;
  let queryFloor: ReturnType<typeof startNode> | null = null;
  try {
    await waitFor(`${base}/api/health/ready`);
    const atReady = ops.has('rss') ? memoryOf(server.pid) : null;
    if (atReady) memory.push({ figure: 'RSS at ready', items: 0, ...atReady, note: 'nothing seeded yet' });
    const runId = randomBytes(3).toString('hex');
    // Writes one at a time, with the server's CPU time per request (less disturbed than latency by the machine's drift).
    const writes = { ...sequential, pid: server.pid };
    for (const size of sizes) {
      const board = await seedBoard(`bench-${runId}-${size}`, size);
      const figure: WriteFigures = {};
      figures.set(size, figure);
      const id = board.id;
      const add = (operation: string, r: Omit<Row, 'database' | 'operation' | 'items'>) => {
        const cpu = (r as { cpuMicrosPerRequest?: number | null }).cpuMicrosPerRequest;
        const note = typeof cpu === 'number' && !r.note?.includes('CPU') ? [r.note, `server CPU ${cpu} µs per request`].filter(Boolean).join('; ') : r.note;
        rows.push({ database, operation, items: size, ...r, note });
        console.error(`  ${database} ${operation} ${size}: ${JSON.stringify(r)}`);
      };

      if (ops.has('get') || ops.has('get-latency')) {
        // The floor: a bare node:http server answering with the same bytes (scripts/bench/floor-server.ts).
        const bodyFile = path.join(dataDir, `board-${size}.json`);
        const bytes = await (await fetch(`${base}/api/boards/${id}`, { headers: { ApiKey: apiKey } })).text();
        writeFileSync(bodyFile, bytes);
        const bare = await startFloor(bodyFile);
        floor = bare.child;
        // The same floor making one database round trip per request (the least the per-request cache check costs).
        const withQuery = await startFloor(bodyFile, postgres ? { FLOOR_QUERY: 'postgres', DATABASE_URL: postgres.url } : { FLOOR_QUERY: 'pglite' });
        queryFloor = withQuery.child;
        const floorUrl = bare.url;
        const queryFloorUrl = withQuery.url;
        const cpu = (results: { cpuMicrosPerRequest: number | null }[]) =>
          results[0].cpuMicrosPerRequest === null ? '' : `, ${median(results.map((r) => r.cpuMicrosPerRequest!))} µs CPU per request`;

        if (ops.has('get')) {
          // GET, and the floor serving the same bytes, measured in alternating rounds so that a slow spell of the
          // machine weighs on both; the figures are the medians of the rounds.
          const ours: Awaited<ReturnType<typeof cannon>>[] = [];
          const floors: Awaited<ReturnType<typeof cannon>>[] = [];
          const queryFloors: Awaited<ReturnType<typeof cannon>>[] = [];
          const shares: number[] = [];
          const queryFloorShares: number[] = [];
          const ofQueryFloor: number[] = [];
          for (let round = 0; round < rounds; round++) {
            ours.push(await cannon([{ method: 'GET', path: `/api/boards/${id}` }], { pid: server.pid }));
            floors.push(await cannon([{ method: 'GET', path: '/' }], { url: floorUrl, pid: floor.pid }));
            queryFloors.push(await cannon([{ method: 'GET', path: '/' }], { url: queryFloorUrl, pid: queryFloor.pid }));
            shares.push(ours[round].reqPerSec / floors[round].reqPerSec);
            queryFloorShares.push(queryFloors[round].reqPerSec / floors[round].reqPerSec);
            ofQueryFloor.push(ours[round].reqPerSec / queryFloors[round].reqPerSec);
          }
          const middle = median(ours.map((result) => result.reqPerSec));
          const result = ours.find((r) => r.reqPerSec === middle)!;
          const share = Math.round(100 * median(shares));
          add('GET board', {
            ...result,
            errors: ours.reduce((sum, r) => sum + r.errors, 0),
            note:
              `${share}% of floor (median of ${rounds} rounds${cpu(ours)}; floor ${median(floors.map((r) => r.reqPerSec))} req/s${cpu(floors)}, ` +
              `floor with one ${postgres ? 'PostgreSQL' : 'PGlite'} query per request ${median(queryFloors.map((r) => r.reqPerSec))} req/s = ` +
              `${Math.round(100 * median(queryFloorShares))}% of floor${cpu(queryFloors)}; ours ${Math.round(100 * median(ofQueryFloor))}% of the one-query floor; ` +
              `${bytes.length} bytes)`,
          });
        }

        if (ops.has('get-latency')) {
          // The same GET one at a time (one connection): what a single client waits, against the floor's wait for the
          // same bytes, in alternating rounds; p50 of the rounds' p50s, and the median of the rounds' ratios.
          const ours: Awaited<ReturnType<typeof latencyRound>>[] = [];
          const floors: Awaited<ReturnType<typeof latencyRound>>[] = [];
          const ratios: number[] = [];
          for (let round = 0; round < rounds; round++) {
            ours.push(await latencyRound(base, `/api/boards/${id}`, server.pid));
            floors.push(await latencyRound(floorUrl, '/', floor.pid));
            ratios.push(ours[round].p50 / floors[round].p50);
          }
          const middle = ours.find((r) => r.p50 === median(ours.map((each) => each.p50)))!;
          const floorP50 = median(floors.map((r) => r.p50));
          const ms = (value: number) => value.toFixed(2);
          const cpuNote = ours[0].cpuMicrosPerRequest === null || floors[0].cpuMicrosPerRequest === null ? '' :
            `; CPU per request ${median(ours.map((r) => r.cpuMicrosPerRequest!))} µs vs floor ${median(floors.map((r) => r.cpuMicrosPerRequest!))} µs`;
          add('GET board, 1 connection', {
            reqPerSec: middle.reqPerSec,
            p50: two(middle.p50),
            p99: two(middle.p99),
            errors: ours.reduce((sum, r) => sum + r.errors, 0),
            note:
              `p50 ${ms(middle.p50)} ms vs floor ${ms(floorP50)} ms: ${median(ratios).toFixed(1)}x the floor's (median of ${rounds} rounds; ` +
              `average ${ms(median(ours.map((r) => r.average)))} ms vs floor ${ms(median(floors.map((r) => r.average)))} ms${cpuNote}; ${bytes.length} bytes)`,
          });
        }
        await stopProcess(floor);
        floor = null;
        await stopProcess(queryFloor);
        queryFloor = null;
      }

      if (ops.has('get-compressed')) {
        // HTTP-7: the same GET asking for brotli or gzip (the cached document keeps its compressed bytes, so only the
        // first request after a write compresses), next to one that asks for neither.
        for (const encoding of ['identity', 'br', 'gzip']) {
          const headers: Record<string, string> = { 'Accept-Encoding': encoding };
          const sent = await fetch(`${base}/api/boards/${id}`, { headers: { ApiKey: apiKey, ...headers } });
          const sentBytes = Number(sent.headers.get('content-length'));
          await sent.arrayBuffer();
          const results: Awaited<ReturnType<typeof cannon>>[] = [];
          for (let round = 0; round < rounds; round++) results.push(await cannon([{ method: 'GET', path: `/api/boards/${id}` }], { pid: server.pid, headers }));
          const result = results.find((r) => r.reqPerSec === median(results.map((each) => each.reqPerSec)))!;
          const cpu = result.cpuMicrosPerRequest === null ? '' : `, ${median(results.map((r) => r.cpuMicrosPerRequest!))} µs CPU per request`;
          add(`GET board, Accept-Encoding: ${encoding}`, { ...result, note: `${sentBytes} bytes per response (median of ${rounds} rounds${cpu})` });
        }
        // The one compression a new revision costs: the first brotli GET after a write, against a cached one.
        const firstAfterWrite: number[] = [];
        const cached: number[] = [];
        const document = await api('GET', `/api/boards/${id}`);
        for (let i = 0; i < 5; i++) {
          await api('PUT', `/api/boards/${id}`, { sections: document.sections, items: document.items });
          for (const samples of [firstAfterWrite, cached]) {
            const started = performance.now();
            await (await fetch(`${base}/api/boards/${id}`, { headers: { ApiKey: apiKey, 'Accept-Encoding': 'br' } })).arrayBuffer();
            samples.push(performance.now() - started);
          }
        }
        const p50 = (samples: number[]) => Math.round(median(samples) * 10) / 10;
        add('GET board br, first after a write', { reqPerSec: 0, p50: p50(firstAfterWrite), p99: Math.round(Math.max(...firstAfterWrite) * 10) / 10, errors: 0, note: `sequential, 5 writes; the next GET takes ${p50(cached)} ms (p99 column is the max)` });
      }

      if (ops.has('rss')) {
        // The server process's memory once this board has been seeded and read (with a cached document).
        const gets = ['get', 'get-latency', 'get-compressed'].filter((op) => ops.has(op));
        const now = memoryOf(server.pid);
        if (now) memory.push({ figure: 'RSS after GETs', items: size, ...now, note: gets.length ? `after seeding and ${gets.join(', ')}` : 'after seeding only (no GET operation in --ops)' });
      }

      // PUT unchanged (no expectedVersion: concurrent writers all win).
      const current = await api('GET', `/api/boards/${id}`);
      const unchanged = JSON.stringify({ sections: current.sections, items: current.items });
      if (ops.has('put')) {
        // Against the floor of a save of this size (floor-server.ts: read the body, JSON.parse, answer the document),
        // in alternating rounds; p50 of the rounds' p50s.
        const bodyFile = path.join(dataDir, `board-${size}.json`);
        writeFileSync(bodyFile, JSON.stringify(current));
        const started = await startFloor(bodyFile);
        floor = started.child;
        const floorUrl = started.url;
        const ours: Awaited<ReturnType<typeof cannon>>[] = [];
        const oursP50: number[] = [];
        const floorsP50: number[] = [];
        for (let round = 0; round < rounds; round++) {
          const samples: number[] = [];
          ours.push(await cannon([{ method: 'PUT', path: `/api/boards/${id}`, body: unchanged }], { ...writes, latencies: samples }));
          oursP50.push(percentile(samples, 50));
          const floorSamples: number[] = [];
          await cannon([{ method: 'PUT', path: '/', body: unchanged }], { ...sequential, url: floorUrl, latencies: floorSamples });
          floorsP50.push(percentile(floorSamples, 50));
        }
        await stopProcess(floor);
        floor = null;
        const p50 = median(oursP50);
        const middle = ours[oursP50.indexOf(p50)];
        const cpus = ours.map((r) => r.cpuMicrosPerRequest);
        figure.putUnchanged = { cpuMicros: cpus.includes(null) ? null : median(cpus as number[]), p50, floorP50: median(floorsP50) };
        add('PUT unchanged', {
          ...middle,
          p50: two(p50),
          errors: ours.reduce((sum, r) => sum + r.errors, 0),
          note: `median of ${rounds} rounds; floor (read and parse the body, answer the document) p50 ${median(floorsP50).toFixed(2)} ms`,
        });
      }

      // PUT with 10% of the items moved (alternating between two placements).
      const moved = current.items.map((item: any, i: number) =>
        i % 10 === 0 ? { ...item, layouts: item.layouts.map((l: any) => ({ ...l, yOffset: l.yOffset + 1000 })) } : item,
      );
      const movedBody = JSON.stringify({ sections: current.sections, items: moved });
      if (ops.has('put-moved')) add('PUT 10% moved', await cannon([
        { method: 'PUT', path: `/api/boards/${id}`, body: movedBody },
        { method: 'PUT', path: `/api/boards/${id}`, body: unchanged },
      ], writes));

      // PATCH one item's position.
      const item = current.items[0];
      const patchBody = (y: number) => JSON.stringify({ layouts: [{ ...item.layouts[0], yOffset: y }] });
      if (ops.has('patch-item')) {
        const samples: number[] = [];
        const result = await cannon([
          { method: 'PATCH', path: `/api/boards/${id}/items/${item.id}`, body: patchBody(5000) },
          { method: 'PATCH', path: `/api/boards/${id}/items/${item.id}`, body: patchBody(item.layouts[0].yOffset) },
        ], { ...writes, latencies: samples });
        // p50 of every response's own time, with fractions (autocannon's histogram holds whole milliseconds).
        figure.patchItemP50 = two(percentile(samples, 50));
        add('PATCH item', { ...result, p50: figure.patchItemP50 });
      }

      // POST items on a board of the same size (it grows during the run). Near the item limit (10,000) the board
      // starts smaller, so that the run ends below the limit: 5 untimed POSTs tell how many the run will add.
      if (ops.has('post-item')) {
        const postBoard = await seedBoard(`bench-${runId}-${size}-post`, Math.min(size, boardLimits.items - 5));
        const postBody = { boardId: postBoard.id, kind: 'clock' };
        const probeStarted = performance.now();
        for (let i = 0; i < 5; i++) await api('POST', '/api/boards/items', postBody);
        const expected = Math.ceil((1.5 * 1000 * (warmupSeconds + seconds)) / ((performance.now() - probeStarted) / 5)) + 10;
        const atStart = Math.max(0, Math.min(postBoard.items.length + 5, boardLimits.items - expected));
        if (atStart < postBoard.items.length + 5) await api('PUT', `/api/boards/${postBoard.id}`, { sections: postBoard.sections, items: postBoard.items.slice(0, atStart) });
        const result = await cannon([{ method: 'POST', path: '/api/boards/items', body: JSON.stringify(postBody) }], writes);
        add('POST item', atStart < size ? { ...result, note: `the board had ${atStart} items at start, not ${size}: the run adds about ${expected - 10} and a board holds at most ${boardLimits.items}` } : result);
      }

      // PATCH layouts adding a fourth layout (then removing it again, untimed).
      const layouts = current.layouts.map((l: any) => ({ id: l.id, name: l.name, columnCount: l.columnCount, breakpoint: l.breakpoint }));
      if (ops.has('layouts')) {
      const timing = await timeSteps(
        9,
        () => send('PATCH', `/api/boards/${id}/layouts`, { layouts: [...layouts, { id: 'wide', name: 'Wide', columnCount: 2, breakpoint: 1920 }] }),
        () => send('PATCH', `/api/boards/${id}/layouts`, { layouts }),
      );
      figure.layoutsP50 = timing.p50;
      add('PATCH layouts (+1 layout)', { reqPerSec: 0, p50: timing.p50, p99: timing.max, errors: 0, note: 'sequential, 9 runs after 1 untimed, answer read as bytes; p99 column is the max' });
      }
    }
    if (ops.has('rss')) {
      // The server process's memory once every size has been seeded, read and written in it (the mixed load).
      const done = boardOps.filter((op) => op !== 'rss' && ops.has(op));
      const now = memoryOf(server.pid);
      if (now) memory.push({ figure: 'RSS after the mixed load', items: Math.max(...sizes), ...now, note: `every size (${sizes.join(', ')}) seeded and run in this one server: ${done.join(', ') || 'seeding only'}` });
    }
  } finally {
    if (floor) await stopProcess(floor);
    if (queryFloor) await stopProcess(queryFloor);
    await stopProcess(server);
    rmSync(dataDir, { recursive: true, force: true });
    await postgres?.drop();
  }
  return { rows, memory, figures };
}

/**
 * The write goals of issue 33, each as its figure against its reference (the goal, and the figure when the issue was
 * opened on the development machine): lines for the sizes and operations this run measured.
 */
function writeGoalLines(figures: Map<number, WriteFigures>): string[] {
  const lines: string[] = [];
  const small = figures.get(200);
  const large = figures.get(2000);
  if (small?.putUnchanged?.cpuMicros != null) {
    lines.push(`PUT unchanged, 200 items: server CPU ${small.putUnchanged.cpuMicros} µs per request (goal ≤ 2000 µs; 5000 µs when issue 33 was opened)`);
  }
  if (large?.putUnchanged) {
    const { p50, floorP50 } = large.putUnchanged;
    lines.push(`PUT unchanged, 2000 items: p50 ${p50.toFixed(2)} ms vs its floor's ${floorP50.toFixed(2)} ms = ${(p50 / floorP50).toFixed(2)}x (goal ≤ 2x; 3.3x when issue 33 was opened)`);
  }
  if (small?.patchItemP50 !== undefined && large?.patchItemP50 !== undefined) {
    lines.push(
      `PATCH item: p50 ${large.patchItemP50.toFixed(2)} ms at 2000 items / ${small.patchItemP50.toFixed(2)} ms at 200 items = ${(large.patchItemP50 / small.patchItemP50).toFixed(2)}x (goal ≤ 1.5x; 2.25x when issue 33 was opened)`,
    );
  }
  if (large?.layoutsP50 !== undefined) lines.push(`PATCH layouts (+1 layout), 2000 items: p50 ${large.layoutsP50} ms (goal ≤ 45 ms; 89.7 ms when issue 33 was opened)`);
  return lines;
}

async function main(): Promise<void> {
  const database = process.env.DATABASE_URL ? 'postgresql' : 'pglite';
  if (boardOps.some((op) => ops.has(op))) {
    const { rows, memory, figures } = await benchBoards(database);
    console.log(`\nTessera benchmark: ${database}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown cpu'}), node ${process.version}, ${seconds} s per measurement; GET with ${connections} connections (and with 1 for "GET board, 1 connection"), writes one at a time\n`);
    console.log('| database | operation | items | req/s | p50 ms | p99 ms | errors | note |');
    console.log('|---|---|---:|---:|---:|---:|---:|---|');
    for (const r of rows) {
      console.log(`| ${r.database} | ${r.operation} | ${r.items} | ${r.reqPerSec || '–'} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.note ?? ''} |`);
    }
    if (memory.length > 0) {
      console.log(`\nMemory: the server process (${database === 'pglite' ? 'with the embedded PGlite database in it' : 'the database runs elsewhere'}), from /proc/<pid>/status; each size's boards stay on the server\n`);
      console.log('| figure | items | RSS MiB | peak RSS MiB | note |\n|---|---:|---:|---:|---|');
      for (const m of memory) console.log(`| ${m.figure} | ${m.items} | ${m.rssMiB} | ${m.peakMiB} | ${m.note} |`);
    }
    const goals = writeGoalLines(figures);
    if (goals.length > 0) console.log(`\nWrite goals (issue 33): ${database}\n\n${goals.map((line) => `- ${line}`).join('\n')}`);
    if (values.json) writeFileSync(values.json, JSON.stringify({ database, seconds, rounds, rows, memory }));
  }
  if (ops.has('history') && sizes.some((size) => size >= 200)) {
    // The cost of history and plans, side by side in one run (issue 15): two in-process servers, with and without.
    const historyRows = await benchHistory({ sizes: sizes.filter((size) => size >= 200), seconds, rounds });
    console.log(`\nHistory and plans: ${database}\n`);
    console.log('| figure | items | value | note |\n|---|---:|---|---|');
    for (const row of historyRows) console.log(`| ${row.figure} | ${row.items} | ${row.value} | ${row.note} |`);
  }
  if (ops.has('events')) {
    const eventRows = await benchEvents({ streams: 1000, puts: 30 });
    console.log(`\nChange feed: ${database}\n`);
    console.log('| figure | value | note |\n|---|---|---|');
    for (const row of eventRows) console.log(`| ${row.figure} | ${row.value} | ${row.note} |`);
  }
  if (ops.has('yaml')) printYaml(await benchYaml(), database);
  if (ops.has('startup')) {
    // `npm start` on the embedded database, even when DATABASE_URL is set: --rounds runs, medians.
    printStartup(await benchStartup({ runs: rounds, items: 2000 }));
  }
  if (ops.has('suite')) {
    const result = await timeSuite(values['suite-args']!.split(/\s+/).filter(Boolean));
    console.log(`\nTest suite\n\n${formatSuite(result)}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
