/**
 * The per-caller rate limiter's cost on the GET path (RATE-2): two servers, identical but for the limiter (on, with a
 * quota no run reaches, versus RATE_LIMIT_READS=0), each with the same board, and the floor (scripts/bench/floor-server.ts:
 * a bare node:http server answering the same bytes). autocannon GETs the board on each in turn, in short rounds whose
 * order rotates (so the machine's drift falls on all alike); each round gives each server's share of that round's
 * floor, and the figures are the medians of the rounds. PGlite in temporary directories, or PostgreSQL (one fresh
 * schema each) when DATABASE_URL is set. `--json` prints the result as one JSON line (scripts/bench/goals.ts reads it).
 *
 *   npx tsx scripts/bench/ratelimit.ts [--rounds 6] [--seconds 3] [--connections 10] [--items 20] [--json]
 */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, freshPostgresSchema, startFloor, startNode, stopProcess, waitFor } from './processes';
import { apiClient, seedBoard } from './seed';

export interface RateLimitFigures {
  /** Medians over the rounds. */
  reqPerSec: number;
  p50: number;
  cpuMicros: number;
  /** This server's req/s over the floor's in the same round, median of the rounds (0..1). */
  shareOfFloor: number;
  rounds: { reqPerSec: number; p50: number; cpuMicros: number; shareOfFloor: number }[];
}

export interface RateLimitResult {
  database: string;
  items: number;
  connections: number;
  seconds: number;
  rounds: number;
  on: RateLimitFigures;
  off: RateLimitFigures;
  floor: { reqPerSec: number; cpuMicros: number };
}

const apiKey = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;

function cpuSecondsOf(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

interface Target {
  label: string;
  url: string;
  pid: number | undefined;
  stop: () => Promise<void>;
}

async function startServer(label: string, limiter: boolean, items: number): Promise<Target> {
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
  const board = await seedBoard(apiClient(url, apiKey), `rate-${label}`, items);
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

/** The floor, answering the bytes of `target`'s board. */
async function startBoardFloor(target: Target): Promise<Target> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-rate-floor-'));
  const bodyFile = path.join(dir, 'board.json');
  writeFileSync(bodyFile, await (await fetch(target.url, { headers: { ApiKey: apiKey } })).text());
  const floor = await startFloor(bodyFile);
  return {
    label: 'floor',
    url: `${floor.url}/`,
    pid: floor.child.pid,
    stop: async () => {
      await stopProcess(floor.child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function round(target: Target, seconds: number, connections: number) {
  const cpuBefore = cpuSecondsOf(target.pid);
  const result = await autocannon({ url: target.url, connections, duration: seconds, headers: { ApiKey: apiKey } });
  const cpu = cpuSecondsOf(target.pid) - cpuBefore;
  if (result.non2xx + result.errors > 0) throw new Error(`${target.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { reqPerSec: result.requests.average, p50: result.latency.p50, cpuMicros: (1e6 * cpu) / result.requests.total };
}

export async function benchRateLimit(options: { rounds: number; seconds: number; connections: number; items: number; log?: (line: string) => void }): Promise<RateLimitResult> {
  const log = options.log ?? ((line: string) => console.error(line));
  const targets: Target[] = [];
  try {
    targets.push(await startServer('on', true, options.items), await startServer('off', false, options.items));
    targets.push(await startBoardFloor(targets[0]));
    for (const target of targets) await round(target, 1, options.connections); // warm-up (JIT, caches)
    const samples: Record<string, Awaited<ReturnType<typeof round>>[]> = { on: [], off: [], floor: [] };
    for (let i = 0; i < options.rounds; i++) {
      // The order rotates: on, off, floor; off, floor, on; floor, on, off; …
      const order = targets.map((_, k) => targets[(i + k) % targets.length]);
      for (const target of order) {
        const r = await round(target, options.seconds, options.connections);
        samples[target.label].push(r);
        log(`  round ${i + 1} ${target.label === 'floor' ? 'floor' : `limiter ${target.label}`}: ${Math.round(r.reqPerSec)} req/s, p50 ${r.p50} ms, ${Math.round(r.cpuMicros)} µs CPU/request`);
      }
    }
    const figures = (label: string): RateLimitFigures => {
      const rounds = samples[label].map((r, i) => ({ ...r, shareOfFloor: r.reqPerSec / samples.floor[i].reqPerSec }));
      return {
        reqPerSec: median(rounds.map((r) => r.reqPerSec)),
        p50: median(rounds.map((r) => r.p50)),
        cpuMicros: median(rounds.map((r) => r.cpuMicros)),
        shareOfFloor: median(rounds.map((r) => r.shareOfFloor)),
        rounds,
      };
    };
    return {
      database: process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite',
      items: options.items,
      connections: options.connections,
      seconds: options.seconds,
      rounds: options.rounds,
      on: figures('on'),
      off: figures('off'),
      floor: { reqPerSec: median(samples.floor.map((r) => r.reqPerSec)), cpuMicros: median(samples.floor.map((r) => r.cpuMicros)) },
    };
  } finally {
    for (const target of targets) await target.stop();
  }
}

export function printRateLimit(r: RateLimitResult): void {
  console.log(`\nGET /api/boards/{id} (${r.items} items, ${r.connections} connections, ${r.rounds} rounds of ${r.seconds} s each in rotating order, ${r.database}): medians`);
  console.log('| limiter | req/s | share of the floor | p50 ms | server CPU µs/request |');
  console.log('|---|---|---|---|---|');
  for (const label of ['off', 'on'] as const) {
    const f = r[label];
    console.log(`| ${label} | ${Math.round(f.reqPerSec)} | ${Math.round(100 * f.shareOfFloor)}% | ${f.p50} | ${Math.round(f.cpuMicros)} |`);
  }
  console.log(`| floor (node:http, same bytes) | ${Math.round(r.floor.reqPerSec)} | 100% | – | ${Math.round(r.floor.cpuMicros)} |`);
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '6' },
      seconds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      items: { type: 'string', default: '20' },
      json: { type: 'boolean', default: false },
    },
  });
  benchRateLimit({ rounds: Number(values.rounds), seconds: Number(values.seconds), connections: Number(values.connections), items: Number(values.items) })
    .then((result) => (values.json ? console.log(JSON.stringify(result)) : printRateLimit(result)))
    .catch((error) => {
      console.error(error);
      process.exitCode = 1;
    });
}
