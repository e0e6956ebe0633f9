/**
 * What history and plans cost (issue 15), measured side by side in one run, on PGlite or on PostgreSQL when
 * DATABASE_URL is set. Two servers run in this process: one with history, one with BOARD_HISTORY_LIMIT=0 (history
 * off); both answer over HTTP on loopback, one request at a time, so the figures are latencies.
 *
 *   npx tsx scripts/bench/history.ts [--sizes 200,2000] [--seconds 5]
 *
 * Prints: PUT with 10% of items moved with and without history; the plan of that PUT next to the PUT; the bytes
 * 100 single-item edits of the largest board add to history; a GET of a revision 500 entries back next to a GET of
 * the board. Nothing is asserted.
 */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import knexFactory from 'knex';
import pino from 'pino';
import { historyBytes } from '../../src/boards/history/store';
import { loadConfig } from '../../src/config/config';
import { createDatabase } from '../../src/db/database';
import { RunningServer, startServer } from '../../src/server';

export interface HistoryRow {
  figure: string;
  items: number;
  value: string;
  note: string;
}

interface Instance {
  server: RunningServer;
  key: string;
  drop: () => Promise<void>;
}

async function startInstance(historyLimit: number): Promise<Instance> {
  const key = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent', BOARD_HISTORY_LIMIT: String(historyLimit) }),
    port: 0,
    host: '127.0.0.1',
    bootstrapAdminApiKey: key,
  };
  const url = process.env.DATABASE_URL;
  if (!url) {
    const server = await startServer(config, { db: createDatabase({ databaseUrl: null, pgliteDir: null }), logger: pino({ level: 'silent' }) });
    return { server, key, drop: async () => {} };
  }
  const schema = `bench_history_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE SCHEMA "${schema}"`);
  const server = await startServer(config, { db: createDatabase({ databaseUrl: url, schema, poolMax: 5 }), logger: pino({ level: 'silent' }) });
  return {
    server,
    key,
    drop: async () => {
      await admin.raw(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.destroy();
    },
  };
}

async function api(instance: Instance, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(instance.server.url + path, {
    method,
    headers: { ApiKey: instance.key, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} -> ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** A board of `count` clock items on 3 layouts, as scripts/bench/run.ts seeds it. */
async function seed(instance: Instance, count: number): Promise<any> {
  const { boardId } = await api(instance, 'POST', '/api/boards', { name: `hist-${randomBytes(3).toString('hex')}`, columnCount: 12, isPublic: false });
  let board = await api(instance, 'GET', `/api/boards/${boardId}`);
  board = await api(instance, 'PATCH', `/api/boards/${boardId}/layouts`, {
    layouts: [
      { id: board.layouts[0].id, name: 'Base', columnCount: 12, breakpoint: 0 },
      { id: 'tablet', name: 'Tablet', columnCount: 6, breakpoint: 768 },
      { id: 'phone', name: 'Phone', columnCount: 3, breakpoint: 1400 },
    ],
  });
  const section = board.sections[0];
  const items = Array.from({ length: count }, (_, i) => ({
    id: `h${randomBytes(4).toString('hex')}${i}`,
    kind: 'clock',
    options: { showSeconds: i % 2 === 0 },
    integrationIds: [],
    advancedOptions: { title: null, customCssClasses: [], borderColor: '' },
    layouts: board.layouts.map((layout: any) => ({ layoutId: layout.id, sectionId: section.id, xOffset: i % layout.columnCount, yOffset: Math.floor(i / layout.columnCount), width: 1, height: 1 })),
  }));
  return api(instance, 'PUT', `/api/boards/${boardId}`, { sections: board.sections, items });
}

/** Bodies that alternate a board between its state and 10% of its items moved. */
function movedBodies(board: any): [string, string] {
  const unchanged = JSON.stringify({ sections: board.sections, items: board.items });
  const moved = board.items.map((item: any, i: number) => (i % 10 === 0 ? { ...item, layouts: item.layouts.map((l: any) => ({ ...l, yOffset: l.yOffset + 1000 })) } : item));
  return [JSON.stringify({ sections: board.sections, items: moved }), unchanged];
}

async function p50(instance: Instance, requests: autocannon.Request[], seconds: number): Promise<number> {
  const settings = { url: instance.server.url, connections: 1, headers: { ApiKey: instance.key, 'Content-Type': 'application/json' }, requests };
  await autocannon({ ...settings, duration: 1 });
  const result = await autocannon({ ...settings, duration: seconds });
  if (result.non2xx + result.errors > 0) throw new Error(`${result.non2xx + result.errors} failed requests`);
  return result.latency.p50;
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

export async function benchHistory(options: { sizes: number[]; seconds: number; rounds?: number; log?: (line: string) => void }): Promise<HistoryRow[]> {
  const log = options.log ?? ((line: string) => console.error(line));
  const rows: HistoryRow[] = [];
  const withHistory = await startInstance(500);
  const without = await startInstance(0);
  try {
    for (const size of options.sizes) {
      const [a, b] = [await seed(withHistory, size), await seed(without, size)];
      const [movedA, backA] = movedBodies(a);
      const [movedB, backB] = movedBodies(b);
      const put = (body: string, id: string) => ({ method: 'PUT' as const, path: `/api/boards/${id}`, body });
      const on: number[] = [];
      const off: number[] = [];
      for (let round = 0; round < (options.rounds ?? 3); round++) {
        on.push(await p50(withHistory, [put(movedA, a.id), put(backA, a.id)], options.seconds));
        off.push(await p50(without, [put(movedB, b.id), put(backB, b.id)], options.seconds));
      }
      const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
      rows.push({
        figure: 'PUT 10% moved, with / without history (p50 ms)',
        items: size,
        value: `${median(on)} / ${median(off)}`,
        note: `${ratio(median(on), median(off))} (medians of ${on.length} alternating rounds; goal <= 1.10x)`,
      });
      const planMs = await p50(withHistory, [{ method: 'POST', path: `/api/boards/${a.id}/plan`, body: movedA }], options.seconds);
      const putMs = median(on);
      rows.push({ figure: 'plan of PUT 10% moved / the PUT (p50 ms)', items: size, value: `${planMs} / ${putMs}`, note: `${ratio(planMs, putMs)} (goal <= 1x)` });
      log(`  history ${size}: ${JSON.stringify(rows.slice(-2))}`);
    }

    const largest = Math.max(...options.sizes);
    const board = await seed(withHistory, largest);
    const before = await historyBytes(withHistory.server.db, board.id);
    const item = board.items[0];
    for (let n = 0; n < 100; n++) {
      await api(withHistory, 'PATCH', `/api/boards/${board.id}/items/${item.id}`, { layouts: [{ ...item.layouts[0], yOffset: 2000 + (n % 2) }] });
    }
    const added = (await historyBytes(withHistory.server.db, board.id)) - before;
    rows.push({ figure: 'history bytes added by 100 single-item edits', items: largest, value: `${added}`, note: `${(added / 1024 / 1024).toFixed(2)} MiB as stored (pg_column_size); goal <= 2 MiB` });

    for (let n = 0; n < 420; n++) await api(withHistory, 'PATCH', `/api/boards/${board.id}/settings`, { pageTitle: `t${n}` });
    const { entries } = await api(withHistory, 'GET', `/api/boards/${board.id}/history?limit=1`);
    const old = entries[0].revision - 499;
    const started = performance.now();
    await api(withHistory, 'GET', `/api/boards/${board.id}/history/${old}`);
    const firstReadMs = Math.round(performance.now() - started);
    const getMs = await p50(withHistory, [{ method: 'GET', path: `/api/boards/${board.id}` }], options.seconds);
    const revisionMs = await p50(withHistory, [{ method: 'GET', path: `/api/boards/${board.id}/history/${old}` }], options.seconds);
    rows.push({
      figure: 'GET of the revision 500 entries back / GET of the board (p50 ms)',
      items: largest,
      value: `${revisionMs} / ${getMs}`,
      note: `${ratio(revisionMs, getMs)} (100 item edits and 420 settings edits back; goal <= 3x); the first read, which rebuilds and caches it: ${firstReadMs} ms`,
    });
    log(`  history ${largest}: ${JSON.stringify(rows.slice(-2))}`);
  } finally {
    for (const instance of [withHistory, without]) {
      await instance.server.stop();
      await instance.drop();
    }
  }
  return rows;
}

if (require.main === module) {
  const { values } = parseArgs({ options: { sizes: { type: 'string', default: '200,2000' }, seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' } } });
  benchHistory({ sizes: values.sizes!.split(',').map(Number), seconds: Number(values.seconds), rounds: Number(values.rounds) })
    .then((rows) => {
      console.log(`\nTessera history benchmark: ${process.env.DATABASE_URL ? 'postgresql' : 'pglite'}, node ${process.version}\n`);
      console.log('| figure | items | value | note |\n|---|---:|---|---|');
      for (const row of rows) console.log(`| ${row.figure} | ${row.items} | ${row.value} | ${row.note} |`);
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
