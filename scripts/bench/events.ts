/**
 * What the change feed costs (issue 18): N open event streams on one board, the time from a PUT's response to the
 * moment the last of them has the PUT's event (p50, p99 over the PUTs), and the memory an open stream takes. One
 * in-process server on PGlite, or on PostgreSQL when DATABASE_URL is set; the streams are plain HTTP connections
 * from this process. Nothing is asserted.
 *
 *   npx tsx scripts/bench/events.ts [--streams 1000] [--puts 30]
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import knexFactory from 'knex';
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { createDatabase } from '../../src/db/database';
import { startServer } from '../../src/server';

export interface EventsRow {
  figure: string;
  value: string;
  note: string;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];

export async function benchEvents(options: { streams: number; puts: number; log?: (line: string) => void }): Promise<EventsRow[]> {
  const log = options.log ?? ((line: string) => console.error(line));
  const key = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent', EVENT_STREAMS_PER_CALLER: String(options.streams + 10) }),
    port: 0,
    host: '127.0.0.1',
    bootstrapAdminApiKey: key,
  };
  const url = process.env.DATABASE_URL;
  const schema = `bench_events_${randomBytes(4).toString('hex')}`;
  const admin = url ? knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } }) : null;
  await admin?.raw(`CREATE SCHEMA "${schema}"`);
  const db = createDatabase(url ? { databaseUrl: url, schema, poolMax: 10 } : { databaseUrl: null, pgliteDir: null });
  const server = await startServer(config, { db, logger: pino({ level: 'silent' }) });
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(server.url + path, { method, headers: { ApiKey: key, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} -> ${response.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.streams + 10 });
  const requests: http.ClientRequest[] = [];
  try {
    const { boardId } = await api('POST', '/api/boards', { name: `bench-events-${randomBytes(3).toString('hex')}`, columnCount: 12, isPublic: true });
    const doc = await api('GET', `/api/boards/${boardId}`);

    // Every stream records when it saw each revision.
    const seen = new Map<number, number[]>();
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let opened = 0;
    await new Promise<void>((resolve, reject) => {
      for (let i = 0; i < options.streams; i++) {
        const request = http.get(`${server.url}/api/boards/${boardId}/events`, { agent }, (response) => {
          if (response.statusCode !== 200) return reject(new Error(`stream ${i}: ${response.statusCode}`));
          response.setEncoding('utf8');
          let buffer = '';
          response.on('data', (chunk: string) => {
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const match = /^id: (\d+)\nevent: change/m.exec(buffer.slice(0, end));
              buffer = buffer.slice(end + 2);
              if (match) {
                const at = performance.now();
                const revision = Number(match[1]);
                (seen.get(revision) ?? seen.set(revision, []).get(revision)!).push(at);
              }
            }
          });
          if (++opened === options.streams) resolve();
        });
        request.on('error', reject);
        requests.push(request);
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    global.gc?.();
    const perStream = (process.memoryUsage().rss - rssBefore) / options.streams;
    log(`  events: ${options.streams} streams open`);

    const latencies: number[] = [];
    for (let n = 0; n < options.puts; n++) {
      const items = n % 2 === 0 ? [{ id: `bench-${n}`, kind: 'clock', options: {}, integrationIds: [], advancedOptions: {}, layouts: [{ layoutId: doc.layouts[0].id, sectionId: doc.sections[0].id, xOffset: 0, yOffset: 0, width: 1, height: 1 }] }] : [];
      await api('PUT', `/api/boards/${boardId}`, { sections: doc.sections, items });
      const answered = performance.now();
      const { entries } = await api('GET', `/api/boards/${boardId}/history?limit=1`);
      const revision = entries[0].revision;
      const deadline = Date.now() + 10_000;
      while ((seen.get(revision)?.length ?? 0) < options.streams && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
      const times = seen.get(revision) ?? [];
      if (times.length < options.streams) throw new Error(`revision ${revision}: ${times.length} of ${options.streams} streams got the event`);
      latencies.push(Math.max(...times) - answered);
    }
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return [
      {
        figure: `PUT response to the last of ${options.streams} streams' event (p50 / p99 ms)`,
        value: `${round(percentile(latencies, 50))} / ${round(percentile(latencies, 99))}`,
        note: `${options.puts} PUTs one after another; the streams are this process's connections (the client side counts in the time)`,
      },
      {
        figure: 'memory per open stream (KiB)',
        value: `${Math.round(perStream / 102.4) / 10}`,
        note: 'RSS growth of the process (server and client side of each connection) divided by the streams',
      },
    ];
  } finally {
    for (const request of requests) request.destroy();
    agent.destroy();
    await server.stop();
    if (admin) {
      await admin.raw(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.destroy();
    }
  }
}

if (require.main === module) {
  const { values } = parseArgs({ options: { streams: { type: 'string', default: '1000' }, puts: { type: 'string', default: '30' } } });
  benchEvents({ streams: Number(values.streams), puts: Number(values.puts) })
    .then((rows) => {
      console.log(`\nTessera change feed benchmark: ${process.env.DATABASE_URL ? 'postgresql' : 'pglite'}, node ${process.version}\n`);
      console.log('| figure | value | note |\n|---|---|---|');
      for (const row of rows) console.log(`| ${row.figure} | ${row.value} | ${row.note} |`);
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
