/**
 * npx tsx scripts/bench/model-load.ts [--items 2000] [--runs 30]: the board document's load two ways on one seeded
 * board (MODEL-5): the store's seven queries through the models' knex (loadBoardContent), and objection relation
 * fetches (Board.query().withGraphFetched(...)) of the same rows. Prints the median ms of each; PGlite in memory,
 * or PostgreSQL when DATABASE_URL is set (in a fresh schema it drops afterwards). Nothing asserts timings.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { createDatabase } from '../../src/db/database';
import { Board } from '../../src/db/models';
import { loadBoardContent } from '../../src/boards/document/store';
import { startServer } from '../../src/server';
import { apiClient, seedBoard } from './seed';

const { values } = parseArgs({ options: { items: { type: 'string', default: '2000' }, runs: { type: 'string', default: '30' } } });
const runs = Number(values.runs);

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL ?? null;
  const schema = `bench_models_${randomBytes(4).toString('hex')}`;
  if (url) {
    const admin = createDatabase({ databaseUrl: url });
    await admin.raw(`CREATE SCHEMA ${schema}`);
    await admin.destroy();
  }
  const db = createDatabase({ databaseUrl: url, pgliteDir: null, schema: url ? schema : undefined });
  const apiKey = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', BOOTSTRAP_ADMIN_API_KEY: apiKey }), port: 0, host: '127.0.0.1' };
  const server = await startServer(config, { db, logger: pino({ level: 'silent' }) });
  try {
    const board = await seedBoard(apiClient(server.url, apiKey), `models-${values.items}`, Number(values.items));
    const ways: Record<string, () => Promise<unknown>> = {
      "models' knex (loadBoardContent, 7 queries)": () => loadBoardContent(db, board.id),
      'relation fetches (withGraphFetched)': async () =>
        await Board.query(db).findById(board.id).withGraphFetched('[creator, layouts, sections.positions, items.[positions, bindings]]'),
    };
    for (const [name, load] of Object.entries(ways)) {
      for (let i = 0; i < 3; i++) await load();
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const start = process.hrtime.bigint();
        await load();
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      times.sort((a, b) => a - b);
      console.log(`| ${url ? 'postgresql' : 'pglite'} | ${values.items} | ${name} | ${times[Math.floor(runs / 2)].toFixed(1)} |`);
    }
  } finally {
    await server.stop();
    if (url) {
      const admin = createDatabase({ databaseUrl: url });
      await admin.raw(`DROP SCHEMA ${schema} CASCADE`);
      await admin.destroy();
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
