/**
 * npx tsx scripts/bench/logins.ts [--logins 40] [--concurrency 4]
 *
 * How much password checks hold up the server's event loop (SEC-6): an in-process server on an in-memory PGlite,
 * `--logins` successful logins sent `--concurrency` at a time, while a cheap GET runs in a loop beside them. Prints the
 * event-loop delay (perf_hooks.monitorEventLoopDelay) during the logins against the same server idle, the login
 * latency, and the latency of the GETs that ran meanwhile. Figures only: nothing here is asserted.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { createDatabase } from '../../src/db/database';
import { startServer } from '../../src/server';

const { values } = parseArgs({ options: { logins: { type: 'string', default: '40' }, concurrency: { type: 'string', default: '4' } } });
const logins = Number(values.logins);
const concurrency = Number(values.concurrency);
const password = 'bench-password-123';

const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e5) / 10;
const percentile = (samples: number[], p: number) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * p))];

async function main(): Promise<void> {
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', BOOTSTRAP_ADMIN_PASSWORD: password }), port: 0, host: '127.0.0.1' };
  const server = await startServer(config, { db: createDatabase({ databaseUrl: null, pgliteDir: null }), logger: pino({ level: 'silent' }) });
  const login = async () => {
    const started = performance.now();
    const response = await fetch(`${server.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
    if (response.status !== 200) throw new Error(`login answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
    return performance.now() - started;
  };
  try {
    await login(); // warm-up (JIT, the hashing worker)

    const idle = monitorEventLoopDelay({ resolution: 1 });
    idle.enable();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    idle.disable();

    const busy = monitorEventLoopDelay({ resolution: 1 });
    const loginTimes: number[] = [];
    const probeTimes: number[] = [];
    let done = false;
    const probe = (async () => {
      while (!done) {
        const started = performance.now();
        await (await fetch(`${server.url}/api/health/live`)).arrayBuffer();
        probeTimes.push(performance.now() - started);
      }
    })();
    busy.enable();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < logins) {
          next += 1;
          loginTimes.push(await login());
        }
      }),
    );
    busy.disable();
    done = true;
    await probe;

    const round = (value: number) => Math.round(value * 10) / 10;
    console.log(`\nPassword checks and the event loop: ${logins} logins, ${concurrency} at a time, node ${process.version}\n`);
    console.log('| figure | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|');
    console.log(`| event-loop delay, idle | ${ms(idle.percentile(50))} | ${ms(idle.percentile(99))} | ${ms(idle.max)} |`);
    console.log(`| event-loop delay during the logins | ${ms(busy.percentile(50))} | ${ms(busy.percentile(99))} | ${ms(busy.max)} |`);
    console.log(`| login latency | ${round(percentile(loginTimes, 0.5))} | ${round(percentile(loginTimes, 0.99))} | ${round(Math.max(...loginTimes))} |`);
    console.log(`| GET /api/health/live meanwhile (${probeTimes.length} requests) | ${round(percentile(probeTimes, 0.5))} | ${round(percentile(probeTimes, 0.99))} | ${round(Math.max(...probeTimes))} |`);
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
