/**
 * npx tsx scripts/bench/startup.ts [--runs 3] [--items 2000]     (also `npm run bench -- --ops startup`)
 *
 * How long `npm start` takes on the embedded database until the service answers (GET /api/health/ready is 200): a
 * first start on an empty DATA_DIR, a restart on the same (still empty) one, and a restart on a DATA_DIR holding a
 * board of `--items` items (seeded over HTTP as scripts/bench/run.ts seeds its boards, then the server stopped with
 * SIGTERM). Runs the command `npm start` runs (package.json `start`, without npm itself) in a temporary DATA_DIR and
 * prints medians; also the time from SIGTERM to exit. Always PGlite: DATABASE_URL is not passed on. build/ is brought
 * up to date with src/ first (untimed), so that no start counts a compilation. Nothing is asserted.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, root } from './processes';
import { apiClient, seedBoard } from './seed';

export interface StartupRow {
  figure: string;
  value: string;
  note: string;
}

/** The words of package.json's start script after `exec` (node and its arguments). */
const startCommand = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
  .scripts.start.replace(/^exec\s+/, '')
  .split(/\s+/) as string[];

interface Started {
  base: string;
  readyMs: number;
  /** SIGTERM, then the time until the process has exited (ms). */
  stop: () => Promise<number>;
}

/** Starts the server on `dataDir` (embedded database) and waits until /api/health/ready answers 200. */
async function startUntilReady(dataDir: string, apiKey: string): Promise<Started> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, BOOTSTRAP_ADMIN_API_KEY: apiKey, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  const started = performance.now();
  const child: ChildProcess = spawn(startCommand[0], startCommand.slice(1), { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/api/health/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || child.signalCode !== null) throw new Error('the server exited during start');
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${base}/api/health/ready did not answer 200 within 120 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const readyMs = performance.now() - started;
  return {
    base,
    readyMs,
    stop: async () => {
      const stopping = performance.now();
      child.kill('SIGTERM');
      await exited;
      return performance.now() - stopping;
    },
  };
}

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

export async function benchStartup(options: { runs: number; items: number; log?: (line: string) => void }): Promise<StartupRow[]> {
  const log = options.log ?? ((line: string) => console.error(line));
  const { ensureServerBuilt } = require('../build-server') as { ensureServerBuilt: () => { files: number; ms: number } | null };
  const built = ensureServerBuilt();
  if (built) log(`  startup: compiled src/ to build/ first (${built.files} modules, ${built.ms} ms, untimed)`);
  const apiKey = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
  const first: number[] = [];
  const restart: number[] = [];
  const populated: number[] = [];
  const stop: number[] = [];
  const stopPopulated: number[] = [];
  for (let run = 0; run < options.runs; run++) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-startup-'));
    let running: Started | null = null;
    try {
      const fresh: Started = (running = await startUntilReady(dataDir, apiKey));
      first.push(fresh.readyMs);
      running = null;
      stop.push(await fresh.stop());
      const again: Started = (running = await startUntilReady(dataDir, apiKey));
      restart.push(again.readyMs);
      await seedBoard(apiClient(again.base, apiKey), `startup-${options.items}`, options.items);
      running = null;
      stop.push(await again.stop());
      const withBoard: Started = (running = await startUntilReady(dataDir, apiKey));
      populated.push(withBoard.readyMs);
      running = null;
      stopPopulated.push(await withBoard.stop());
      log(`  startup run ${run + 1}: first ${Math.round(fresh.readyMs)} ms, restart ${Math.round(again.readyMs)} ms, restart with ${options.items} items ${Math.round(withBoard.readyMs)} ms`);
    } finally {
      if (running) await (running as Started).stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const ms = (samples: number[]) => `${Math.round(median(samples))}`;
  const all = (samples: number[]) => `median of ${samples.length}: ${samples.map(Math.round).join(', ')} ms`;
  const items = options.items.toLocaleString('en-US');
  return [
    { figure: 'first start, empty DATA_DIR, until ready', value: ms(first), note: `${all(first)}; creates the database, migrates, bootstraps the admin` },
    { figure: 'restart, same empty DATA_DIR, until ready', value: ms(restart), note: all(restart) },
    { figure: `restart, DATA_DIR holding a board of ${items} items, until ready`, value: ms(populated), note: `${all(populated)}; the board seeded over HTTP with one PUT, then SIGTERM` },
    { figure: 'SIGTERM until exit', value: ms(stop), note: `${all(stop)} (empty, and after the seeding); with the ${items}-item board after a restart: ${ms(stopPopulated)} ms` },
  ];
}

/** The table both entry points print. */
export function printStartup(rows: StartupRow[]): void {
  console.log(`\nStart-up: \`${startCommand.join(' ')}\` on PGlite (embedded, always: DATABASE_URL is not passed on), ${os.cpus().length} cores, node ${process.version}\n`);
  console.log('| figure | value (ms) | note |\n|---|---:|---|');
  for (const row of rows) console.log(`| ${row.figure} | ${row.value} | ${row.note} |`);
}

if (require.main === module) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, items: { type: 'string', default: '2000' } } });
  benchStartup({ runs: Number(values.runs), items: Number(values.items) })
    .then(printStartup)
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
