/**
 * The per-caller rate limiter's cost on the GET path (RATE-2): two servers, identical but for the limiter (on, with a
 * quota no run reaches, versus RATE_LIMIT_READS=0), each with the same 20-item board; autocannon GETs of the board on
 * one then the other in alternating short rounds (so the machine's drift falls on both alike), the median of each.
 * PGlite in temporary directories, or PostgreSQL (one fresh schema each) when DATABASE_URL is set.
 *
 *   npx tsx scripts/bench/ratelimit.ts [--rounds 6] [--seconds 3] [--connections 10] [--items 20]
 */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, freshPostgresSchema, startNode, stopProcess, waitFor } from './processes';
import { apiClient, seedBoard } from './seed';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    items: { type: 'string', default: '20' },
  },
});
const apiKey = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;

function cpuSecondsOf(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

async function startServer(label: string, limiter: boolean) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `tessera-bench-rate-${label}-`));
  const postgres = process.env.DATABASE_URL ? await freshPostgresSchema(process.env.DATABASE_URL, `bench_rate_${label}`) : null;
  const child = startNode('src/main.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BOOTSTRAP_ADMIN_API_KEY: apiKey,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_READS: limiter ? '999999999/60' : '0',
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
  });
  await waitFor(`${url}/api/health/ready`);
  const board = await seedBoard(apiClient(url, apiKey), `rate-${label}`, Number(values.items));
  return {
    label,
    url: `${url}/api/boards/${board.id}`,
    pid: child.pid,
    stop: async () => {
      await stopProcess(child);
      await postgres?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function round(target: { url: string; pid: number | undefined }, seconds: number) {
  const cpuBefore = cpuSecondsOf(target.pid);
  const result = await autocannon({ url: target.url, connections: Number(values.connections), duration: seconds, headers: { ApiKey: apiKey } });
  const cpu = cpuSecondsOf(target.pid) - cpuBefore;
  if (result.non2xx + result.errors > 0) throw new Error(`${target.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { reqPerSec: result.requests.average, p50: result.latency.p50, cpuMicros: (1e6 * cpu) / result.requests.total };
}

async function main() {
  const servers = [await startServer('on', true), await startServer('off', false)];
  try {
    for (const server of servers) await round(server, 1); // warm-up (JIT, caches)
    const results: Record<string, { reqPerSec: number[]; p50: number[]; cpuMicros: number[] }> = {
      on: { reqPerSec: [], p50: [], cpuMicros: [] },
      off: { reqPerSec: [], p50: [], cpuMicros: [] },
    };
    for (let i = 0; i < Number(values.rounds); i++) {
      const order = i % 2 === 0 ? servers : [...servers].reverse();
      for (const server of order) {
        const r = await round(server, Number(values.seconds));
        results[server.label].reqPerSec.push(r.reqPerSec);
        results[server.label].p50.push(r.p50);
        results[server.label].cpuMicros.push(r.cpuMicros);
        console.error(`  round ${i + 1} limiter ${server.label}: ${Math.round(r.reqPerSec)} req/s, p50 ${r.p50} ms, ${Math.round(r.cpuMicros)} µs CPU/request`);
      }
    }
    const database = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite';
    console.log(`\nGET /api/boards/{id} (${values.items} items, ${values.connections} connections, ${values.rounds} rounds of ${values.seconds} s each, ${database}): medians`);
    console.log('| limiter | req/s | p50 ms | server CPU µs/request |');
    console.log('|---|---|---|---|');
    for (const label of ['off', 'on']) {
      const r = results[label];
      console.log(`| ${label} | ${Math.round(median(r.reqPerSec))} | ${median(r.p50)} | ${Math.round(median(r.cpuMicros))} |`);
    }
  } finally {
    for (const server of servers) await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
