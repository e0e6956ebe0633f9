/**
 * Peak memory of concurrent reads of one large board (a measurement, not a test).
 *
 * Builds a board of --items clocks in 24 breakpoint layouts (PUT of the items with one position each, then
 * PATCH layouts, which clones every position into the new layouts), restarts the server so the build leaves no
 * trace in its memory, then sends --readers concurrent GETs of that board and prints the server's resident
 * memory before and its peak (VmHWM, Linux) after. Needs PostgreSQL (DATABASE_URL); a fresh schema is used.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx scripts/board-memory.ts --items 2000 --readers 12
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { freePort, freshPostgresSchema, startNode, stopProcess, waitFor } from './bench/processes';

const { values } = parseArgs({ options: { items: { type: 'string', default: '2000' }, readers: { type: 'string', default: '12' } } });
const itemCount = Number(values.items);
const readers = Number(values.readers);
const apiKey = `memory${randomBytes(4).toString('hex')}.${randomBytes(24).toString('hex')}`;

function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL (PostgreSQL) is required');
  const { url, drop } = await freshPostgresSchema(process.env.DATABASE_URL, 'memory');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'), DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', BOOTSTRAP_ADMIN_API_KEY: apiKey, LOG_LEVEL: 'silent', BODY_LIMIT: '64mb' };
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(base + path, { method, headers: { ApiKey: apiKey, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  };
  try {
    let server = startNode('src/main.ts', env);
    await waitFor(`${base}/api/health/ready`);
    const { boardId } = await api('POST', '/api/boards', { name: `memory-${randomBytes(3).toString('hex')}`, columnCount: 12, isPublic: false });
    let board = await api('GET', `/api/boards/${boardId}`);
    const [section] = board.sections;
    const [base0] = board.layouts;
    const items = Array.from({ length: itemCount }, (_, i) => ({
      id: `item${i.toString().padStart(20, '0')}`,
      kind: 'clock',
      options: {},
      integrationIds: [],
      advancedOptions: {},
      layouts: [{ layoutId: base0.id, sectionId: section.id, xOffset: i % 12, yOffset: Math.floor(i / 12), width: 1, height: 1 }],
    }));
    await api('PUT', `/api/boards/${boardId}`, { sections: board.sections, items });
    const layouts = [base0, ...Array.from({ length: 23 }, (_, i) => ({ id: `new${i}`, name: `L${i}`, columnCount: 12, breakpoint: 100 + i }))];
    board = await api('PATCH', `/api/boards/${boardId}/layouts`, { layouts });
    console.log(`board: ${board.items.length} items x ${board.layouts.length} layouts, ${(JSON.stringify(board).length / 1048576).toFixed(1)} MiB as JSON`);
    await stopProcess(server);

    server = startNode('src/main.ts', env);
    await waitFor(`${base}/api/health/ready`);
    await api('GET', '/api/boards');
    const before = memoryOf(server.pid!);
    const started = Date.now();
    const sizes = await Promise.all(
      Array.from({ length: readers }, async () => {
        const response = await fetch(`${base}/api/boards/${boardId}`, { headers: { ApiKey: apiKey } });
        return (await response.arrayBuffer()).byteLength;
      }),
    );
    const after = memoryOf(server.pid!);
    console.log(`${readers} concurrent GETs (${(sizes[0] / 1048576).toFixed(1)} MiB each) in ${Date.now() - started} ms`);
    console.log(`server RSS before: ${before.rssMb} MB, peak during the reads: ${after.peakMb} MB, after: ${after.rssMb} MB`);
    await stopProcess(server);
  } finally {
    await drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
