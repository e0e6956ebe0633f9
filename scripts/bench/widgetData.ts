/**
 * npm run bench:widget-data (WDATA-6): 100 concurrent viewers of one public board with 5 live widgets
 * (systemResources), each bound to its own integration served by a local Glances stand-in (one node:http server
 * answering Glances' v3 plugins after a short delay, counting requests per integration; `--glances` adds a real
 * `glances -w` as one of the five). Prints:
 *   - upstream fetches per integration over the run, and the most fetches any integration had within one TTL (goal 1);
 *   - the data operation's latency on a cache hit (autocannon, one connection, then 100 connections): p50 and p99.
 * PGlite in a temporary directory, or PostgreSQL (a fresh schema) when DATABASE_URL is set. Nothing asserts timings.
 *
 *   npm run bench:widget-data [-- --seconds 25 --viewers 100 --hit-seconds 5 --glances]
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, freshPostgresSchema, startNode, stopProcess, waitFor } from './processes';
import { startGlancesStandIn } from './glancesStandIn';
import { apiClient, seedLiveBoard } from './seed';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '25' },
    viewers: { type: 'string', default: '100' },
    'hit-seconds': { type: 'string', default: '5' },
    glances: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const viewers = Number(values.viewers);
const hitSeconds = Number(values['hit-seconds']);
const apiKey = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
const ttlMs = 10_000;

/** Fetch start times per integration (a fetch = its `/api/3/cpu` request). */
const fetchesAt = new Map<string, number[]>();

/** A real Glances behind a counting proxy, so its fetches are counted like the stand-in's. */
async function startRealGlances(): Promise<{ url: string; close: () => Promise<void> }> {
  const port = await freePort();
  const home = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-glances-'));
  const child = spawn('glances', ['-w', '--disable-webui', '-B', '127.0.0.1', '-p', String(port)], { env: { ...process.env, HOME: home }, stdio: 'ignore' });
  await waitFor(`http://127.0.0.1:${port}/api/3/cpu`, 120_000);
  const proxy = http.createServer(async (req, res) => {
    const [, , ...rest] = (req.url ?? '').split('/');
    if (rest[2] === 'cpu') fetchesAt.set('glances', [...(fetchesAt.get('glances') ?? []), Date.now()]);
    const upstream = await fetch(`http://127.0.0.1:${port}/${rest.join('/')}`);
    res.writeHead(upstream.status, { 'Content-Type': 'application/json' }).end(await upstream.text());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise((resolve) => proxy.close(resolve));
      await stopProcess(child);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The most fetches of one integration inside any window of one TTL. */
function mostPerTtl(times: number[]): number {
  let most = 0;
  for (let i = 0; i < times.length; i++) {
    let n = 0;
    for (let j = i; j < times.length && times[j] - times[i] < ttlMs; j++) n++;
    most = Math.max(most, n);
  }
  return most;
}

async function main(): Promise<void> {
  const standIn = await startGlancesStandIn({ onFetch: (integration) => fetchesAt.set(integration, [...(fetchesAt.get(integration) ?? []), Date.now()]) });
  const real = values.glances ? await startRealGlances() : null;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-live-'));
  const postgres = process.env.DATABASE_URL ? await freshPostgresSchema(process.env.DATABASE_URL, 'bench_live') : null;
  const child = startNode('src/main.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BOOTSTRAP_ADMIN_API_KEY: apiKey,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_READS: '0',
    SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
  });
  try {
    await waitFor(`${url}/api/health/ready`, 120_000);
    const api = apiClient(url, apiKey);
    const names = ['i1', 'i2', 'i3', 'i4', real ? 'glances' : 'i5'];
    const integrationIds: string[] = [];
    for (const name of names) {
      const base = name === 'glances' ? `${real!.url}/glances` : `${standIn.url}/${name}`;
      integrationIds.push((await api('POST', '/api/integrations', { name: `bench ${name}`, kind: 'glances', url: base })).integrationId);
    }
    const { boardId, itemIds } = await seedLiveBoard(api, `live-${randomBytes(3).toString('hex')}`, integrationIds);
    const dataUrl = (itemId: string) => `${url}/api/boards/${boardId}/items/${itemId}/data`;

    // Viewers: each polls the board's five widgets (anonymously, as the public page would) until the time is up.
    const started = Date.now();
    let reads = 0;
    let errors = 0;
    let sample: unknown = null;
    await Promise.all(
      Array.from({ length: viewers }, async () => {
        while (Date.now() - started < seconds * 1000) {
          const answers = await Promise.all(itemIds.map((id) => fetch(dataUrl(id)).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))));
          for (const a of answers) {
            reads++;
            if (a.status !== 200 || a.body.results[0]?.status !== 'ok') {
              errors++;
              sample ??= a.body;
            }
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }),
    );
    const elapsed = (Date.now() - started) / 1000;
    console.log(`\nWidget data: ${viewers} viewers polling a board of ${itemIds.length} live widgets for ${elapsed.toFixed(1)} s (TTL ${ttlMs / 1000} s), ${postgres ? 'PostgreSQL' : 'PGlite'}`);
    console.log(`  data reads: ${reads} (non-ok: ${errors})`);
    if (sample) console.log(`  a non-ok answer: ${JSON.stringify(sample).slice(0, 400)}`);
    console.log('  integration | upstream fetches | most fetches within one TTL (goal 1)');
    for (const name of names) {
      const times = fetchesAt.get(name) ?? [];
      console.log(`  ${name.padEnd(11)} | ${String(times.length).padStart(16)} | ${mostPerTtl(times)}`);
    }

    // Reference on the same machine at the same time: the board's own document (GET /api/boards/{id}), one connection.
    const reference = await autocannon({ url: `${url}/api/boards/${boardId}`, connections: 1, duration: hitSeconds });
    console.log(`  reference GET /api/boards/{id}, 1 connection: p50 ${reference.latency.p50} ms, p99 ${reference.latency.p99} ms`);
    // Cache hits: one item's data, one connection, then 100, while its answer is fresh (refreshed once per TTL).
    for (const connections of [1, 100]) {
      const result = await autocannon({ url: dataUrl(itemIds[0]), connections, duration: hitSeconds });
      console.log(`  cache hit, ${String(connections).padStart(3)} connection(s): p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${Math.round(result.requests.average)} req/s, non-2xx ${result.non2xx}`);
    }
  } finally {
    await stopProcess(child);
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    await standIn.close();
    await real?.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
