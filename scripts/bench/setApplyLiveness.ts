/**
 * npx tsx scripts/bench/setApplyLiveness.ts [--boards 200] [--items 20] [--rounds 3]   (also `npm run bench:set-liveness`)
 *
 * What one large set dry run does to the rest of the service on the embedded database (issue 41 item 5, PERF-1): the
 * latency of GET /api/health/live, probed one request at a time every 10 ms from a process of its own (the prober of
 * scripts/bench/yaml.ts), while a user holding only `board-create` sends `POST /api/boards/apply?dryRun=true` of
 * `--boards` new boards of `--items` clocks each, `--rounds` times one after another, to a server on PGlite in a
 * temporary DATA_DIR (or PostgreSQL when DATABASE_URL is set). Prints the probes' p50, p99 and max and how long the
 * dry runs took (after an untimed warm-up dry run of 10 boards), beside a baseline of 3 s of probes with nothing sent; the goal is a p99 under 250 ms. Nothing is
 * asserted.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, freshPostgresSchema, startNode, stopProcess, waitFor } from './processes';
import { clockBoardFile } from './seed';
import { percentile, startProber } from './yaml';

const { values } = parseArgs({ options: { boards: { type: 'string', default: '200' }, items: { type: 'string', default: '20' }, rounds: { type: 'string', default: '3' } } });
const boards = Number(values.boards);
const items = Number(values.items);
const rounds = Math.max(1, Number(values.rounds));

async function main(): Promise<void> {
  const adminKey = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-setlive-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const postgres = process.env.DATABASE_URL ? await freshPostgresSchema(process.env.DATABASE_URL, 'bench_setlive') : null;
  const server = startNode('src/main.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: path.join(dataDir, 'data'),
    BOOTSTRAP_ADMIN_API_KEY: adminKey,
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    LOG_LEVEL: 'warn',
  });
  try {
    await waitFor(`${base}/api/health/ready`, 120_000);
    const call = async (method: string, route: string, key: string, body?: unknown) => {
      const response = await fetch(`${base}${route}`, { method, headers: { ApiKey: key, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : null;
    };
    // A user with only board-create (the caller), through a group.
    const { userId } = await call('POST', '/api/users', adminKey, { username: 'creator', password: 'password-123' });
    const { groupId } = await call('POST', '/api/groups', adminKey, { name: 'creators' });
    await call('PUT', `/api/groups/${groupId}/permissions`, adminKey, { permissions: ['board-create'] });
    await call('POST', `/api/groups/${groupId}/members`, adminKey, { userId });
    const { apiKey } = await call('POST', '/api/api-keys', adminKey, { userId });
    const set = { managedBy: 'bench-liveness', boards: Array.from({ length: boards }, (_, i) => clockBoardFile(`live-${i}`, 0, items)) };
    // An untimed warm-up, as every measurement here has: the first set compiles its request validator (about 1 s once
    // per process) and warms the JIT.
    await call('POST', '/api/boards/apply?dryRun=true', apiKey, { managedBy: 'bench-warmup', boards: set.boards.slice(0, 10) });

    const { latencies, stop } = await startProber(`${base}/api/health/live`);
    // The baseline: 3 s of probes with nothing else sent (on a loaded machine, what the load alone costs).
    const idleFrom = latencies().length;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const idle = latencies().slice(idleFrom);
    const before = latencies().length;
    const runs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      const plan = await call('POST', '/api/boards/apply?dryRun=true', apiKey, set);
      runs.push(performance.now() - started);
      if (plan.summary.create !== boards) throw new Error(`dry run planned ${JSON.stringify(plan.summary)}`);
    }
    await stop();
    const during = latencies().slice(before);
    const r = (ms: number) => Math.round(ms * 10) / 10;
    console.log(`Liveness during a set dry run: ${boards} boards x ${items} items, ${rounds} runs, ${postgres ? 'PostgreSQL' : 'PGlite'}, caller with board-create only`);
    console.log('| load | dry run ms (median, max) | probes | p50 ms | p99 ms | max ms |');
    console.log('|---|---:|---:|---:|---:|---:|');
    console.log(`| nothing (baseline, 3 s) | – | ${idle.length} | ${r(percentile(idle, 50))} | ${r(percentile(idle, 99))} | ${r(Math.max(...idle))} |`);
    console.log(`| set dry run | ${r(percentile(runs, 50))} (${r(Math.max(...runs))}) | ${during.length} | ${r(percentile(during, 50))} | ${r(percentile(during, 99))} | ${r(Math.max(...during))} |`);
    console.log(`load average (1 min) at the end: ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);
  } finally {
    await stopProcess(server);
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
