/**
 * npx tsx scripts/bench/startup.ts [--runs 3]
 *
 * How long `npm start` takes on the embedded database until the service answers (GET /api/health/ready is 200): a
 * first start on an empty DATA_DIR, and a restart on the same one. Runs the command `npm start` runs (package.json
 * `start`, without npm itself) in a temporary DATA_DIR and prints medians; also the time from SIGTERM to exit.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, root } from './processes';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);

/** The words of package.json's start script after `exec` (node and its arguments). */
const startCommand = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
  .scripts.start.replace(/^exec\s+/, '')
  .split(/\s+/) as string[];

async function timeToReady(dataDir: string): Promise<{ readyMs: number; stopMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(startCommand[0], startCommand.slice(1), {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, BOOTSTRAP_ADMIN_API_KEY: 'startup.0123456789abcdefghij', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error('the server exited during start');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const readyMs = performance.now() - started;
  const stopping = performance.now();
  child.kill('SIGTERM');
  await exited;
  return { readyMs, stopMs: performance.now() - stopping };
}

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];
const seconds = (ms: number) => (ms / 1000).toFixed(2);

async function main(): Promise<void> {
  const first: number[] = [];
  const restart: number[] = [];
  const stop: number[] = [];
  for (let run = 0; run < runs; run++) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-startup-'));
    try {
      const fresh = await timeToReady(dataDir);
      const again = await timeToReady(dataDir);
      first.push(fresh.readyMs);
      restart.push(again.readyMs);
      stop.push(fresh.stopMs, again.stopMs);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  console.log(`\nStart on the embedded database: \`${startCommand.join(' ')}\`, ${os.cpus().length} cores, node ${process.version}, median of ${runs}\n`);
  console.log('| figure | median s | all runs s |\n|---|---:|---|');
  console.log(`| first start (empty DATA_DIR) until ready | ${seconds(median(first))} | ${first.map(seconds).join(', ')} |`);
  console.log(`| restart (same DATA_DIR) until ready | ${seconds(median(restart))} | ${restart.map(seconds).join(', ')} |`);
  console.log(`| SIGTERM until exit | ${seconds(median(stop))} | ${stop.map(seconds).join(', ')} |`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
