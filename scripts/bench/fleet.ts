/**
 * npx tsx scripts/bench/fleet.ts [--boards 100] [--items 200] [--rounds 3]
 *
 * A fleet of boards as code (FLEET-2): the plan (dry run) and the apply of a directory of `--boards` board files of
 * `--items` clocks each, as one `POST /api/boards/apply`, against a server started for the run (PGlite in a temporary
 * directory, or PostgreSQL when DATABASE_URL is set). Measures: the plan and the apply that create every board, the
 * plan and apply of the same files again (nothing to change), and of the files with one item changed on 10 boards;
 * then `tessera plan -f <dir>` as a user runs it (a process, files read from disk). The reference is the export of
 * the same boards (`GET /api/boards/{id}/export` of each, one after the other, as the files were written): every
 * step is also printed as a ratio of it. Prints medians of `--rounds` rounds (each round on fresh board names);
 * asserts nothing.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, freshPostgresSchema, root, startNode, stopProcess, waitFor } from './processes';
import { clockBoardFile } from './seed';

const { values } = parseArgs({ options: { boards: { type: 'string', default: '100' }, items: { type: 'string', default: '200' }, rounds: { type: 'string', default: '3' } } });
const boards = Number(values.boards);
const items = Number(values.items);
const rounds = Math.max(1, Number(values.rounds));
const apiKey = `bench${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-fleet-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const postgres = process.env.DATABASE_URL ? await freshPostgresSchema(process.env.DATABASE_URL, 'benchfleet') : null;
  const server = startNode('src/main.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: path.join(dataDir, 'data'),
    BOOTSTRAP_ADMIN_API_KEY: apiKey,
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    LOG_LEVEL: 'warn',
  });
  server.on('exit', (code, signal) => console.error(`server exited: ${code} ${signal}`));
  const timings = new Map<string, number[]>();
  const time = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await work();
    timings.set(label, [...(timings.get(label) ?? []), performance.now() - started]);
    return result;
  };
  let bodyBytes = 0;
  const exportLabel = `export, ${boards} boards (GET /export each)`;
  // Each round its own label, so that a round's prune does not delete the boards of the rounds before it.
  let currentRound = 0;
  try {
    await waitFor(`${base}/api/health/ready`);
    const send = async (set: object[], dryRun: boolean): Promise<{ boards: { boardId: string }[] }> => {
      const body = JSON.stringify({ managedBy: `bench-${currentRound}`, boards: set });
      bodyBytes = Buffer.byteLength(body);
      const response = await fetch(`${base}/api/boards/apply?dryRun=${dryRun}&prune=true`, { method: 'POST', headers: { ApiKey: apiKey, 'Content-Type': 'application/json' }, body });
      if (!response.ok) throw new Error(`apply: ${response.status} ${await response.text()}`);
      return (await response.json()) as { boards: { boardId: string }[] };
    };
    for (let round = 0; round < rounds; round++) {
      currentRound = round;
      const names = Array.from({ length: boards }, (_, i) => `fleet-${round}-${i}`);
      const files = names.map((name) => clockBoardFile(name, round, items));
      await time(`plan, ${boards} new boards`, () => send(files, true));
      const created = await time(`apply, ${boards} new boards`, () => send(files, false));
      await time(exportLabel, async () => {
        for (const { boardId } of created.boards) {
          const response = await fetch(`${base}/api/boards/${boardId}/export`, { headers: { ApiKey: apiKey } });
          if (!response.ok) throw new Error(`export: ${response.status} ${await response.text()}`);
          await response.arrayBuffer();
        }
      });
      await time('plan, nothing to change', () => send(files, true));
      await time('apply, nothing to change', () => send(files, false));
      const edited = names.map((name, i) => clockBoardFile(name, round, items, i < 10));
      await time('plan, 10 boards changed', () => send(edited, true));
      await time('apply, 10 boards changed', () => send(edited, false));
      const dir = path.join(dataDir, `files-${round}`);
      mkdirSync(dir);
      for (const file of edited) writeFileSync(path.join(dir, `${file.name}.json`), JSON.stringify(file));
      await time('tessera plan -f <dir> (process)', async () => {
        try {
          execFileSync(process.execPath, [path.join(root, 'bin/tessera.js'), 'plan', '-f', dir, '--managed-by', `bench-${round}`], {
            env: { ...process.env, TESSERA_URL: base, TESSERA_API_KEY: apiKey, TESSERA_CONFIG: path.join(dataDir, 'none.yaml') },
            stdio: 'ignore',
          });
        } catch (error) {
          if ((error as { status?: number }).status !== 0 && (error as { status?: number }).status !== 2) throw error;
        }
      });
    }
  } finally {
    await stopProcess(server);
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`Set apply: ${boards} boards x ${items} items, one request of ${(bodyBytes / 1024 / 1024).toFixed(1)} MiB, ${postgres ? 'PostgreSQL' : 'PGlite'}, median of ${rounds}`);
  const exportMs = median(timings.get(exportLabel) ?? [NaN]);
  console.log('| step | ms | x export |');
  console.log('|---|---:|---:|');
  for (const [label, values] of timings) console.log(`| ${label} | ${Math.round(median(values))} | ${(median(values) / exportMs).toFixed(2)} |`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
