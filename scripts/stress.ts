/**
 * npm run stress: concurrent writers against one board, bounded in time, loopback only.
 *
 * Phase 1 — N writers each loop: GET the board, add one item with a fresh id, PUT with expectedVersion;
 * on 409 re-read, reapply and retry. At the end every successful save's item must be on the board, the
 * versions returned by successful saves must be consecutive with no gaps or duplicates, and no answer may
 * be a 5xx.
 * Phase 2 — mixed writers: POST /api/boards/items, item PATCH/DELETE and section POST/PATCH/DELETE at
 * once; no 5xx, every answer a declared 2xx/4xx, and the final board readable and consistent.
 *
 *   npm run stress -- --writers 8 --seconds 10      (DATABASE_URL=postgres://... for PostgreSQL)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, freshPostgresSchema, startNode, stopProcess, waitFor } from './bench/processes';

const { values } = parseArgs({
  options: { writers: { type: 'string', default: '8' }, seconds: { type: 'string', default: '10' } },
});
const writers = Number(values.writers);
const seconds = Number(values.seconds);
const apiKey = `stress${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;
let base = '';
const statusCounts = new Map<number, number>();

async function api(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(base + urlPath, {
    method,
    headers: { ApiKey: apiKey, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  statusCounts.set(response.status, (statusCounts.get(response.status) ?? 0) + 1);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function newItem(board: any, id: string) {
  const section = board.sections.find((s: any) => s.kind === 'empty');
  return {
    id,
    kind: 'clock',
    options: {},
    integrationIds: [],
    advancedOptions: { title: null, customCssClasses: [], borderColor: '' },
    layouts: board.layouts.map((l: any) => ({ layoutId: l.id, sectionId: section.id, xOffset: 0, yOffset: 0, width: 1, height: 1 })),
  };
}

async function guardedWriters(boardId: string): Promise<{ saves: number; conflicts: number; problems: string[] }> {
  const deadline = Date.now() + seconds * 1000;
  const savedVersions: number[] = [];
  const savedItems: string[] = [];
  let conflicts = 0;
  const problems: string[] = [];
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      let n = 0;
      while (Date.now() < deadline) {
        const itemId = `w${writer}-${n++}`;
        for (;;) {
          const read = await api('GET', `/api/boards/${boardId}`);
          const board = read.body;
          const put = await api('PUT', `/api/boards/${boardId}`, {
            sections: board.sections,
            items: [...board.items, newItem(board, itemId)],
            expectedVersion: board.version,
          });
          if (put.status === 200) {
            savedVersions.push(put.body.version);
            savedItems.push(itemId);
            break;
          }
          if (put.status === 409) {
            conflicts++;
            if (Date.now() > deadline + 30_000) {
              problems.push(`writer ${writer} starved`);
              return;
            }
            continue;
          }
          problems.push(`PUT answered ${put.status}: ${JSON.stringify(put.body).slice(0, 200)}`);
          break;
        }
      }
    }),
  );
  const final = (await api('GET', `/api/boards/${boardId}`)).body;
  const present = new Set(final.items.map((i: any) => i.id));
  const missing = savedItems.filter((id) => !present.has(id));
  if (missing.length > 0) problems.push(`${missing.length} saved items missing: ${missing.slice(0, 5).join(', ')}`);
  const sorted = [...savedVersions].sort((a, b) => a - b);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] !== sorted[i - 1] + 1) problems.push(`versions not consecutive at ${sorted[i - 1]} -> ${sorted[i]}`);
  }
  if (sorted.length > 0 && sorted[sorted.length - 1] !== final.version) {
    problems.push(`last saved version ${sorted[sorted.length - 1]} differs from the board's ${final.version}`);
  }
  return { saves: savedVersions.length, conflicts, problems };
}

async function mixedWriters(boardId: string): Promise<{ requests: number; problems: string[] }> {
  const deadline = Date.now() + seconds * 1000;
  const problems: string[] = [];
  let requests = 0;
  const check = (what: string, result: { status: number; body: any }) => {
    requests++;
    if (result.status >= 500) problems.push(`${what} answered ${result.status}: ${JSON.stringify(result.body).slice(0, 200)}`);
  };
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      let n = 0;
      while (Date.now() < deadline) {
        n++;
        const board = (await api('GET', `/api/boards/${boardId}`)).body;
        const item = board.items[(writer + n) % Math.max(1, board.items.length)];
        switch ((writer + n) % 6) {
          case 0:
            check('POST item', await api('POST', '/api/boards/items', { boardId, kind: 'clock' }));
            break;
          case 1:
            if (item) check('PATCH item', await api('PATCH', `/api/boards/${boardId}/items/${item.id}`, { options: { n } }));
            break;
          case 2:
            if (item) check('DELETE item', await api('DELETE', `/api/boards/${boardId}/items/${item.id}`));
            break;
          case 3:
            check('POST section', await api('POST', `/api/boards/${boardId}/sections`, { id: `s${writer}-${n}`, kind: 'category', name: `S${n}`, yOffset: n, xOffset: 0, collapsed: false }));
            break;
          case 4: {
            const section = board.sections.find((s: any) => s.kind === 'category');
            if (section) check('PATCH section', await api('PATCH', `/api/boards/${boardId}/sections/${section.id}`, { ...section, name: `renamed${n}` }));
            break;
          }
          default: {
            const section = board.sections.find((s: any) => s.kind === 'category');
            if (section) check('DELETE section', await api('DELETE', `/api/boards/${boardId}/sections/${section.id}`));
          }
        }
      }
    }),
  );
  const final = await api('GET', `/api/boards/${boardId}`);
  if (final.status !== 200) problems.push(`final GET answered ${final.status}`);
  const sectionIds = new Set(final.body.sections.map((s: any) => s.id));
  const layoutIds = new Set(final.body.layouts.map((l: any) => l.id));
  for (const item of final.body.items) {
    for (const position of item.layouts) {
      if (!sectionIds.has(position.sectionId) || !layoutIds.has(position.layoutId)) problems.push(`item ${item.id} has a dangling position`);
    }
  }
  return { requests, problems };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-stress-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const postgres = process.env.DATABASE_URL ? await freshPostgresSchema(process.env.DATABASE_URL, 'stress') : null;
  const server = startNode('src/main.ts', { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, BOOTSTRAP_ADMIN_API_KEY: apiKey,
    ...(postgres ? { DATABASE_URL: postgres.url } : {}), LOG_LEVEL: 'warn',
    // One key writes as fast as the writers go: the per-caller limits (RATE-2) stay on with quotas it never reaches.
    RATE_LIMIT_READS: '999999999/60', RATE_LIMIT_WRITES: '999999999/60' });
  let failed = false;
  try {
    await waitFor(`${base}/api/health/ready`);
    const created = await api('POST', '/api/boards', { name: `stress-${randomBytes(3).toString('hex')}`, columnCount: 12, isPublic: false });
    const boardId = created.body.boardId;
    const guarded = await guardedWriters(boardId);
    console.log(`guarded read-modify-PUT: ${writers} writers, ${seconds} s: ${guarded.saves} saves, ${guarded.conflicts} conflicts (409, retried)`);
    const mixed = await mixedWriters(boardId);
    console.log(`mixed granular writers: ${writers} writers, ${seconds} s: ${mixed.requests} writes`);
    const fiveHundreds = [...statusCounts].filter(([status]) => status >= 500).reduce((sum, [, count]) => sum + count, 0);
    console.log(`statuses: ${[...statusCounts].sort().map(([s, c]) => `${s}×${c}`).join(', ')}`);
    const problems = [...guarded.problems, ...mixed.problems];
    if (fiveHundreds > 0) problems.push(`${fiveHundreds} answers were 5xx`);
    if (problems.length > 0) {
      failed = true;
      console.log(`FAILED:\n  ${problems.slice(0, 20).join('\n  ')}`);
    } else {
      console.log('OK: every successful save present, versions consecutive, no 5xx');
    }
  } finally {
    await stopProcess(server);
    rmSync(dataDir, { recursive: true, force: true });
    await postgres?.drop();
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
