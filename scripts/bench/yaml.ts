/**
 * npx tsx scripts/bench/yaml.ts     (also `npm run bench -- --ops yaml`)
 *
 * What a costly YAML body does to the rest of the service (issue 27, INPUT-5): the latency of GET /api/health/live,
 * probed one at a time every 10 ms from a process of its own (each on a connection of its own), while the server (its own process, on PGlite in a temporary
 * DATA_DIR, or PostgreSQL when DATABASE_URL is set) is sent, one after another:
 * - nothing (the baseline);
 * - the largest YAML body YAML_BODY_LIMIT allows (2 MiB by default) made of small flow mappings, the costliest YAML
 *   per byte found, from an admin, 3 times in a row (each is parsed until YAML_PARSE_TIMEOUT_MS, then refused);
 * - the worst alias case that size allows: a 1 MiB anchor and 99 aliases of it, 3 times;
 * - eight anonymous 9 MB YAML bodies in parallel (the issue's attack), 3 rounds.
 * Prints the probes' p50, p99 and max, and what the YAML requests were answered and how long they took. Nothing is
 * asserted.
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, freshPostgresSchema, startNode, stopProcess, waitFor } from './processes';

export interface YamlRow {
  load: string;
  answers: string;
  answerMs: string;
  probes: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * The prober's code: one GET at a time on a connection of its own (as an orchestrator's probe), every 10 ms, each
 * latency in ms on a line of stdout, until its stdin closes. A process of its own, so that sending the load does not
 * delay the probes on the client side.
 */
const proberSource = `
const http = require('node:http');
let open = true;
process.stdin.on('end', () => { open = false; }).resume();
const probe = () => new Promise((resolve, reject) => {
  http.get(process.argv[1], { agent: false }, (response) => { response.resume(); response.on('end', resolve); }).on('error', reject);
});
(async () => {
  while (open) {
    const started = performance.now();
    await probe();
    process.stdout.write((performance.now() - started).toFixed(2) + '\\n');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
})();
`;

/**
 * Starts the prober on `url` and waits for its first answers (it runs before any load starts). `latencies()` is every
 * latency so far; `stop()` ends the prober once its last probe is in.
 */
export async function startProber(url: string): Promise<{ latencies: () => number[]; stop: () => Promise<void> }> {
  const prober = spawn(process.execPath, ['-e', proberSource, url], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  prober.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => prober.once('exit', resolve));
  const latencies = () => output.split('\n').filter(Boolean).map(Number);
  while (latencies().length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
  return {
    latencies,
    stop: async () => {
      prober.stdin!.end();
      await exited;
    },
  };
}

export const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;
const round = (ms: number) => Math.round(ms * 10) / 10;

/** Small flow mappings up to `bytes`. */
function flowMappings(bytes: number): string {
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; size + 16 < bytes; i++) {
    const part = `{a: ${i}}`;
    parts.push(part);
    size += part.length + 2;
  }
  return `[${parts.join(', ')}]\n`;
}

function aliasBomb(bytes: number): string {
  const aliases = `[${Array(99).fill('*big').join(', ')}]`;
  const anchor = 'x'.repeat(bytes - aliases.length - 64);
  return `anchor: &big "${anchor}"\ncopies: ${aliases}\n`;
}

export async function benchYaml(options: { log?: (line: string) => void } = {}): Promise<YamlRow[]> {
  const log = options.log ?? ((line: string) => console.error(line));
  const key = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-yaml-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const postgres = process.env.DATABASE_URL ? await freshPostgresSchema(process.env.DATABASE_URL, 'bench_yaml') : null;
  const yamlLimit = 2 * 1024 * 1024;
  const server = startNode('src/main.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BOOTSTRAP_ADMIN_API_KEY: key,
    YAML_BODY_LIMIT: String(yamlLimit),
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    LOG_LEVEL: 'warn',
  });
  const rows: YamlRow[] = [];
  try {
    await waitFor(`${base}/api/health/ready`, 120_000);
    const postYaml = async (body: Buffer, withKey: boolean) => {
      const started = performance.now();
      const headers: Record<string, string> = { 'Content-Type': 'application/yaml' };
      if (withKey) headers.ApiKey = key;
      const status = await fetch(`${base}/api/boards/import`, { method: 'POST', headers, body }).then(
        async (response) => {
          await response.arrayBuffer();
          return String(response.status);
        },
        (error: Error) => `error (${error.message})`,
      );
      return { status, ms: performance.now() - started };
    };
    /** Probes the health check one request at a time, every 10 ms, from a process of its own, until `work` has settled. */
    const probeDuring = async (load: string, work: () => Promise<{ status: string; ms: number }[]>) => {
      const { latencies, stop } = await startProber(`${base}/api/health/live`);
      const answers = await work();
      await stop();
      const statuses = [...new Set(answers.map((answer) => answer.status))].join(', ') || '–';
      const times = answers.map((answer) => answer.ms);
      rows.push({
        load,
        answers: answers.length ? `${answers.length} × ${statuses}` : '–',
        answerMs: times.length ? `${round(percentile(times, 50))} (max ${round(Math.max(...times))})` : '–',
        probes: latencies().length,
        p50: round(percentile(latencies(), 50)),
        p99: round(percentile(latencies(), 99)),
        max: round(Math.max(...latencies())),
      });
      log(`yaml bench: ${load} done`);
    };
    const inSequence = async (count: number, send: () => Promise<{ status: string; ms: number }>) => {
      const answers = [];
      for (let i = 0; i < count; i++) answers.push(await send());
      return answers;
    };
    // As bytes, made once: the probes share this process, which should do nothing else meanwhile.
    const costly = Buffer.from(flowMappings(yamlLimit));
    const bomb = Buffer.from(aliasBomb(yamlLimit));
    const attack = Buffer.from(flowMappings(9_000_000));
    // Untimed: the first YAML body starts the parse worker; the first 401 and probes take their cold paths.
    await postYaml(Buffer.from('name: warm-up'), true);
    await postYaml(Buffer.from('name: warm-up'), false);
    await probeDuring('nothing (baseline)', async () => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      return [];
    });
    await probeDuring(`largest allowed YAML (${(costly.length / 1048576).toFixed(1)} MiB of flow mappings), admin, 3 in a row`, () => inSequence(3, () => postYaml(costly, true)));
    await probeDuring(`worst alias case (${(bomb.length / 1048576).toFixed(1)} MiB: 1 anchor, 99 aliases), admin, 3 in a row`, () => inSequence(3, () => postYaml(bomb, true)));
    await probeDuring(`8 anonymous ${(attack.length / 1e6).toFixed(0)} MB YAML bodies in parallel, 3 rounds`, async () => {
      const answers = [];
      for (let round = 0; round < 3; round++) answers.push(...(await Promise.all(Array.from({ length: 8 }, () => postYaml(attack, false)))));
      return answers;
    });
  } finally {
    await stopProcess(server);
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

export function printYaml(rows: YamlRow[], database: string): void {
  console.log(`\nHealth probe during costly YAML bodies: ${database}, ${os.cpus().length} cores, node ${process.version}\n`);
  console.log('| load | YAML answers | YAML answer ms, p50 (max) | probes | probe p50 ms | probe p99 ms | probe max ms |');
  console.log('|---|---|---|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.load} | ${r.answers} | ${r.answerMs} | ${r.probes} | ${r.p50} | ${r.p99} | ${r.max} |`);
}

if (require.main === module) {
  benchYaml()
    .then((rows) => printYaml(rows, process.env.DATABASE_URL ? 'postgres' : 'pglite'))
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
