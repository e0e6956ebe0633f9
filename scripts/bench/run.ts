/**
 * npm run bench: seeds boards of 20, 200 and 2,000 items over 3 layouts and measures the board routes with
 * autocannon on loopback, bounded in time. Uses PGlite in a temporary directory, or PostgreSQL when
 * DATABASE_URL is set. Prints one table; nothing here asserts timings (tests never do).
 *
 *   npm run bench                       # all sizes, 5 s per measurement
 *   npm run bench -- --seconds 3 --sizes 20,200
 *   npm run bench -- --sizes 200 --ops get,put      # only some operations (get, get-compressed, put, put-moved, patch-item, post-item, layouts)
 *   npm run bench -- --rounds 5                     # GET/floor rounds (default 3; the median counts)
 *   npm run bench -- --ops history --sizes 200,2000 # only the cost of history and plans (scripts/bench/history.ts)
 *   npm run bench -- --ops events                   # only the change feed: 1,000 streams on one board (scripts/bench/events.ts)
 *
 * Every measurement is preceded by an untimed warm-up of the same requests (--warmup seconds, default 1), so
 * that JIT compilation does not count.
 */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, freshPostgresSchema, startNode, stopProcess, waitFor } from './processes';
import { benchHistory } from './history';
import { benchEvents } from './events';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    sizes: { type: 'string', default: '20,200,2000' },
    connections: { type: 'string', default: '10' },
    ops: { type: 'string', default: 'get,get-compressed,put,put-moved,patch-item,post-item,layouts,history,events' },
    warmup: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
  },
});
const ops = new Set(values.ops!.split(','));
const warmupSeconds = Number(values.warmup);
const seconds = Number(values.seconds);
const sizes = values.sizes!.split(',').map(Number);
const connections = Number(values.connections);
const rounds = Math.max(1, Number(values.rounds));

const apiKey = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
let base = '';

async function api(method: string, urlPath: string, body?: unknown): Promise<any> {
  const response = await fetch(base + urlPath, {
    method,
    headers: { ApiKey: apiKey, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${urlPath} -> ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

const layoutsSpec = [
  { name: 'Base', columnCount: 12, breakpoint: 0 },
  { name: 'Tablet', columnCount: 6, breakpoint: 768 },
  { name: 'Phone', columnCount: 3, breakpoint: 1400 },
];

/** A board of `count` 1x1 clock items packed row by row in its empty section, on 3 layouts. */
async function seedBoard(name: string, count: number): Promise<any> {
  const { boardId } = await api('POST', '/api/boards', { name, columnCount: 12, isPublic: false });
  let board = await api('GET', `/api/boards/${boardId}`);
  board = await api('PATCH', `/api/boards/${boardId}/layouts`, {
    layouts: layoutsSpec.map((spec, i) => ({ id: i === 0 ? board.layouts[0].id : `new-${i}`, ...spec })),
  });
  const section = board.sections.find((s: any) => s.kind === 'empty');
  const items = Array.from({ length: count }, (_, i) => ({
    id: `item-${name}-${i}`,
    kind: 'clock',
    options: { showSeconds: i % 2 === 0 },
    integrationIds: [],
    advancedOptions: { title: null, customCssClasses: [], borderColor: '' },
    layouts: board.layouts.map((layout: any) => ({
      layoutId: layout.id,
      sectionId: section.id,
      xOffset: i % layout.columnCount,
      yOffset: Math.floor(i / layout.columnCount),
      width: 1,
      height: 1,
    })),
  }));
  return api('PUT', `/api/boards/${boardId}`, { sections: board.sections, items });
}

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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Writes are measured one at a time: their figures are latencies, not contention on one board's row lock. */
const sequential = { connections: 1 };

/** CPU seconds (user + system) a process has used so far, from /proc; null where there is no /proc. */
function cpuSecondsOf(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

/** Runs the requests; with `pid`, also reports that server's CPU time per answered request (µs). */
async function cannon(requests: autocannon.Request[], opts: { connections?: number; url?: string; pid?: number; headers?: Record<string, string> } = {}) {
  const settings = {
    url: opts.url ?? base,
    connections: opts.connections ?? connections,
    headers: { ApiKey: apiKey, 'Content-Type': 'application/json', ...opts.headers },
    requests,
  };
  if (warmupSeconds > 0) await autocannon({ ...settings, duration: warmupSeconds });
  const cpuBefore = cpuSecondsOf(opts.pid);
  const result = await autocannon({
    ...settings,
    duration: seconds,
  });
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

async function main(): Promise<void> {
  const database = process.env.DATABASE_URL ? 'postgresql' : 'pglite';
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const postgres = process.env.DATABASE_URL ? await freshPostgresSchema(process.env.DATABASE_URL, 'bench') : null;
  const server = startNode('src/main.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BOOTSTRAP_ADMIN_API_KEY: apiKey,
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  });
  const rows: Row[] = [];
  let floor: ReturnType<typeof startNode> | null = null;
  try {
    await waitFor(`${base}/api/health/ready`);
    const runId = randomBytes(3).toString('hex');
    for (const size of sizes) {
      const board = await seedBoard(`bench-${runId}-${size}`, size);
      const id = board.id;
      const add = (operation: string, r: Omit<Row, 'database' | 'operation' | 'items'>) => {
        rows.push({ database, operation, items: size, ...r });
        console.error(`  ${database} ${operation} ${size}: ${JSON.stringify(r)}`);
      };

      if (ops.has('get')) {
        // GET, and the floor serving the same bytes, measured in alternating rounds so that a slow spell of the
        // machine weighs on both; the figures are the medians of the rounds.
        const bodyFile = path.join(dataDir, `board-${size}.json`);
        const bytes = await (await fetch(`${base}/api/boards/${id}`, { headers: { ApiKey: apiKey } })).text();
        writeFileSync(bodyFile, bytes);
        const floorPort = await freePort();
        floor = startNode('scripts/bench/floor-server.ts', { PORT: String(floorPort), FLOOR_BODY_FILE: bodyFile });
        await waitFor(`http://127.0.0.1:${floorPort}/`);
        const ours: Awaited<ReturnType<typeof cannon>>[] = [];
        const floors: Awaited<ReturnType<typeof cannon>>[] = [];
        const shares: number[] = [];
        for (let round = 0; round < rounds; round++) {
          ours.push(await cannon([{ method: 'GET', path: `/api/boards/${id}` }], { pid: server.pid }));
          floors.push(await cannon([{ method: 'GET', path: '/' }], { url: `http://127.0.0.1:${floorPort}`, pid: floor.pid }));
          shares.push(ours[round].reqPerSec / floors[round].reqPerSec);
        }
        await stopProcess(floor);
        floor = null;
        const middle = median(ours.map((result) => result.reqPerSec));
        const result = ours.find((r) => r.reqPerSec === middle)!;
        const share = Math.round(100 * median(shares));
        const cpu = (results: typeof ours) => (results[0].cpuMicrosPerRequest === null ? '' : `, ${median(results.map((r) => r.cpuMicrosPerRequest!))} µs CPU per request`);
        add('GET board', {
          ...result,
          errors: ours.reduce((sum, r) => sum + r.errors, 0),
          note: `${share}% of floor (median of ${rounds} rounds${cpu(ours)}; floor ${median(floors.map((r) => r.reqPerSec))} req/s${cpu(floors)}, ${bytes.length} bytes)`,
        });
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

      // PUT unchanged (no expectedVersion: concurrent writers all win).
      const current = await api('GET', `/api/boards/${id}`);
      const unchanged = JSON.stringify({ sections: current.sections, items: current.items });
      if (ops.has('put')) add('PUT unchanged', await cannon([{ method: 'PUT', path: `/api/boards/${id}`, body: unchanged }], sequential));

      // PUT with 10% of the items moved (alternating between two placements).
      const moved = current.items.map((item: any, i: number) =>
        i % 10 === 0 ? { ...item, layouts: item.layouts.map((l: any) => ({ ...l, yOffset: l.yOffset + 1000 })) } : item,
      );
      const movedBody = JSON.stringify({ sections: current.sections, items: moved });
      if (ops.has('put-moved')) add('PUT 10% moved', await cannon([
        { method: 'PUT', path: `/api/boards/${id}`, body: movedBody },
        { method: 'PUT', path: `/api/boards/${id}`, body: unchanged },
      ], sequential));

      // PATCH one item's position.
      const item = current.items[0];
      const patchBody = (y: number) => JSON.stringify({ layouts: [{ ...item.layouts[0], yOffset: y }] });
      if (ops.has('patch-item')) add('PATCH item', await cannon([
        { method: 'PATCH', path: `/api/boards/${id}/items/${item.id}`, body: patchBody(5000) },
        { method: 'PATCH', path: `/api/boards/${id}/items/${item.id}`, body: patchBody(item.layouts[0].yOffset) },
      ], sequential));

      // POST items on a board of the same size (it grows during the run).
      if (ops.has('post-item')) {
        const postBoard = await seedBoard(`bench-${runId}-${size}-post`, size);
        add('POST item', await cannon([{ method: 'POST', path: '/api/boards/items', body: JSON.stringify({ boardId: postBoard.id, kind: 'clock' }) }], sequential));
      }

      // PATCH layouts adding a fourth layout (then removing it again, untimed).
      const layouts = current.layouts.map((l: any) => ({ id: l.id, name: l.name, columnCount: l.columnCount, breakpoint: l.breakpoint }));
      if (ops.has('layouts')) {
      const timing = await timeSteps(
        5,
        () => api('PATCH', `/api/boards/${id}/layouts`, { layouts: [...layouts, { id: 'wide', name: 'Wide', columnCount: 2, breakpoint: 1920 }] }),
        () => api('PATCH', `/api/boards/${id}/layouts`, { layouts }),
      );
      add('PATCH layouts (+1 layout)', { reqPerSec: 0, p50: timing.p50, p99: timing.max, errors: 0, note: 'sequential, 5 runs after 1 untimed; p99 column is the max' });
      }
    }
  } finally {
    if (floor) await stopProcess(floor);
    await stopProcess(server);
    rmSync(dataDir, { recursive: true, force: true });
    await postgres?.drop();
  }

  console.log(`\nTessera benchmark: ${database}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown cpu'}), node ${process.version}, ${seconds} s per measurement; GET with ${connections} connections, writes one at a time\n`);
  console.log('| database | operation | items | req/s | p50 ms | p99 ms | errors | note |');
  console.log('|---|---|---:|---:|---:|---:|---:|---|');
  for (const r of rows) {
    console.log(`| ${r.database} | ${r.operation} | ${r.items} | ${r.reqPerSec || '–'} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.note ?? ''} |`);
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
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
