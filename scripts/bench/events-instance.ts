/**
 * One Tessera instance for the change feed benchmark (scripts/bench/events.ts), in a process of its own so that its
 * memory is measured apart from the clients' and the other instance's. The parent starts it with IPC: it answers
 * `{url}` once listening, and `{rss, heapUsed, cpu}` (after a full garbage collection when node runs with --expose-gc; cpu: process.cpuUsage())
 * when sent `rss`. PostgreSQL on DATABASE_URL in schema BENCH_SCHEMA, or an in-memory PGlite when DATABASE_URL is unset.
 */
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { createDatabase } from '../../src/db/database';
import { startServer } from '../../src/server';

async function main() {
  const url = process.env.DATABASE_URL;
  const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), port: 0, host: '127.0.0.1', bootstrapAdminApiKey: process.env.BENCH_ADMIN_KEY! };
  const db = createDatabase(url ? { databaseUrl: url, schema: process.env.BENCH_SCHEMA! } : { databaseUrl: null, pgliteDir: null });
  const server = await startServer(config, { db, logger: pino({ level: 'silent' }) });
  process.on('message', async (message: string) => {
    if (message === 'rss') {
      const cpu = process.cpuUsage(); // before the collections below
      global.gc?.();
      await new Promise((resolve) => setTimeout(resolve, 200));
      global.gc?.();
      const usage = process.memoryUsage();
      if (process.env.BENCH_MEMORY_DIR) {
        // For profiling: the memory's parts, and a heap snapshot to compare with the next one.
        console.error(JSON.stringify(usage));
        (await import('node:v8')).writeHeapSnapshot(`${process.env.BENCH_MEMORY_DIR}/${process.pid}-${Date.now()}.heapsnapshot`);
      }
      process.send!({ rss: usage.rss, heapUsed: usage.heapUsed, cpu });
    } else if (message === 'stop') {
      await server.stop();
      process.exit(0);
    }
  });
  process.send!({ url: server.url });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
