/**
 * A short in-process loop over the board write routes, for profiling (`node --cpu-prof --require tsx/cjs
 * scripts/bench/writes-profile.ts`): one server on PGlite, or PostgreSQL when DATABASE_URL is set (in a schema of its
 * own, dropped afterwards). Prints the wall time per request of each loop; nothing is asserted.
 *
 *   npx tsx scripts/bench/writes-profile.ts [--size 2000] [--count 50] [--ops put,patch-item,layouts]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import knexFactory from 'knex';
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { createDatabase } from '../../src/db/database';
import { startServer } from '../../src/server';
import { apiClient, seedBoard } from './seed';

const { values } = parseArgs({ options: { size: { type: 'string', default: '2000' }, count: { type: 'string', default: '50' }, ops: { type: 'string', default: 'put,patch-item,layouts' } } });
const size = Number(values.size);
const count = Number(values.count);
const ops = new Set(values.ops!.split(','));

async function main(): Promise<void> {
  const key = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_READS: '999999999/60', RATE_LIMIT_WRITES: '999999999/60' }), port: 0, host: '127.0.0.1', bootstrapAdminApiKey: key };
  const url = process.env.DATABASE_URL;
  const schema = `bench_writes_${randomBytes(4).toString('hex')}`;
  const admin = url ? knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } }) : null;
  if (admin) await admin.raw(`CREATE SCHEMA "${schema}"`);
  const db = url ? createDatabase({ databaseUrl: url, schema, poolMax: 5 }) : createDatabase({ databaseUrl: null, pgliteDir: null });
  const server = await startServer(config, { db, logger: pino({ level: 'silent' }) });
  try {
    const api = apiClient(server.url, key);
    const board = await seedBoard(api, `prof-${randomBytes(3).toString('hex')}`, size);
    const id = board.id;
    const unchanged = JSON.stringify({ sections: board.sections, items: board.items });
    const raw = async (method: string, path: string, body: string) => {
      const response = await fetch(server.url + path, { method, headers: { ApiKey: key, 'Content-Type': 'application/json', 'Accept-Encoding': 'identity' }, body });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`${method} ${path} -> ${response.status}`);
    };
    const loop = async (name: string, step: (i: number) => Promise<void>) => {
      for (let i = 0; i < 5; i++) await step(i);
      if (process.env.SHOW_QUERIES) {
        const listener = (query: { sql: string }) => console.log(`  ${query.sql.replace(/\s+/g, ' ').slice(0, 160)}`);
        server.db.on('query', listener);
        await step(5);
        server.db.removeListener('query', listener);
      }
      const started = performance.now();
      for (let i = 0; i < count; i++) await step(i);
      console.log(`${name} ${size}: ${((performance.now() - started) / count).toFixed(2)} ms per request`);
    };
    if (ops.has('put')) await loop('PUT unchanged', () => raw('PUT', `/api/boards/${id}`, unchanged));
    const item = board.items[0];
    if (ops.has('patch-item')) {
      await loop('PATCH item', (i) => raw('PATCH', `/api/boards/${id}/items/${item.id}`, JSON.stringify({ layouts: [{ ...item.layouts[0], yOffset: i % 2 ? 5000 : item.layouts[0].yOffset }] })));
    }
    const layouts = board.layouts.map((l: any) => ({ id: l.id, name: l.name, columnCount: l.columnCount, breakpoint: l.breakpoint }));
    if (ops.has('layouts')) {
      await loop('PATCH layouts (+1, then -1)', (i) =>
        raw('PATCH', `/api/boards/${id}/layouts`, JSON.stringify({ layouts: i % 2 ? layouts : [...layouts, { id: 'wide', name: 'Wide', columnCount: 2, breakpoint: 1920 }] })),
      );
    }
  } finally {
    await server.stop();
    if (admin && process.env.KEEP_SCHEMA) console.log(`kept schema ${schema}`);
    else if (admin) {
      await admin.raw(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.destroy();
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
