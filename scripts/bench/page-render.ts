/**
 * npm run bench:page (npx tsx scripts/bench/page-render.ts [--items 200] [--rounds 7] [--without-live])
 *
 * The board page's first render (VIEW-7) in headless Debian chromium (playwright-core): a board of `--items` tiles
 * of every kind the page draws (apps with icons and ping dots, bookmarks, clocks, notebooks, iframes, weather: a live
 * tile, whose views the page loads after the first paint, PAGE-13; `--without-live` leaves the weather tiles out), on
 * a 12-column layout, served by an in-process server on PGlite in memory. Each round opens a fresh
 * page and reads the marks the page sets: `tessera:board-loaded` (data in, before drawing), `tessera:board-rendered`
 * (tiles in the DOM, before layout and paint) and `tessera:board-painted` (two animation frames later: the drawn
 * board laid out and painted), in milliseconds from the start of navigation, including the HTML, script, style,
 * and the board document and its apps served with it (its history fills in later). The first render is navigation
 * start to painted; Chromium's own paint timing (`first-contentful-paint`) is read too. Prints the median and each
 * round, the gzipped sizes of the page's script and style sheet (together, against the 25 KB goal of issue 43), and
 * of every script and style sheet the page loaded (read from its resource timings, fetched and gzipped here). Requests
 * off the instance are refused (icons then show as letters, frames stay empty), so nothing here depends on a network. Asserts nothing.
 * `--json` prints the figures as one JSON line instead (scripts/bench/goals.ts reads it; `benchPageRender` returns them).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { chromium, type Browser } from 'playwright-core';
import { loadConfig } from '../../src/config/config';
import { createDatabase } from '../../src/db/database';
import { startServer } from '../../src/server';
import { apiClient, type Api } from './seed';

const root = path.resolve(__dirname, '..', '..');

function gzipped(file: string): AssetSize {
  const text = readFileSync(path.join(root, file));
  return { file, raw: text.length, gzip: gzipSync(text, { level: 9 }).length };
}

/** Sizes in bytes of one asset, as served and gzipped (level 9). */
export interface AssetSize {
  file: string;
  raw: number;
  gzip: number;
}

export interface PageRenderResult {
  items: number;
  rounds: number;
  /** Navigation start to the drawn board painted (`tessera:board-painted`), ms, each round after the warm-up. */
  firstRender: number[];
  /** Chromium's paint timing: navigation start to the first contentful paint, ms (the "Loading…" shell or the board). */
  firstContentfulPaint: number[];
  /** Navigation start to the tiles in the DOM, before layout and paint (`tessera:board-rendered`), ms. */
  scripted: number[];
  /** Of which drawing the loaded board (`tessera:board-loaded` to `tessera:board-rendered`), ms. */
  draw: number[];
  /** Navigation start to the notes filled in (markdown.js loaded), ms. */
  notes: number[];
  notebooks: number;
  loadAverage: number[];
  cores: number;
  script: AssetSize;
  markdownScript: AssetSize;
  liveScript: AssetSize;
  style: AssetSize;
  /** Whether the board had live tiles (weather), whose views live.js the page loads after the first paint. */
  liveTiles: boolean;
  /** Every script and style sheet of the instance the page loaded (the last round), by path, as served. */
  loaded: AssetSize[];
}

/** The tile kinds of the page benchmark's board, each with its options for the i-th tile. */
function pageKinds(withoutLive: boolean, apps: string[] = []): [string, (i: number) => Record<string, unknown>][] {
  const allKinds: [string, (i: number) => Record<string, unknown>][] = [
    ['app', (i) => ({ appId: apps[i % apps.length], pingEnabled: i % 2 === 0, descriptionDisplayMode: 'normal' })],
    ['bookmarks', (i) => ({ title: `Links ${i}`, layout: 'column', items: [apps[i % 20], apps[(i + 1) % 20], apps[(i + 2) % 20]] })],
    ['clock', (i) => ({ showSeconds: true, useCustomTimezone: true, timezone: ['Europe/Paris', 'Asia/Tokyo', 'America/New_York'][i % 3] })],
    ['notebook', (i) => ({ content: `# Note ${i}\n\n**Bold**, _italic_ and [a link](https://example.com/${i}).\n\n- one\n- two\n\n\`code\`` })],
    ['iframe', () => ({ embedUrl: 'https://frames.bench.invalid/panel' })],
    ['weather', () => ({})],
  ];
  return allKinds.filter(([kind]) => !(withoutLive && kind === 'weather'));
}

/**
 * The page benchmark's board through the API of the server at `api`: 20 apps (icons and ping URLs off the machine) and
 * a public board of `count` 2x2 tiles of every kind the page draws on a 12-column layout. Returns the board's name.
 */
export async function seedPageBoard(api: Api, count: number, withoutLive = false): Promise<string> {
  const apps: string[] = [];
  for (let i = 0; i < 20; i++) {
    const created = await api('POST', '/api/apps', { name: `Bench app ${i}`, iconUrl: `https://icons.bench.invalid/${i}.svg`, href: `https://app${i}.bench.invalid`, pingUrl: 'http://127.0.0.1:9/' });
    apps.push(created.appId);
  }
  const { boardId } = await api('POST', '/api/boards', { name: `page-bench-${Date.now()}`, columnCount: 12, isPublic: true });
  const doc = await api('GET', `/api/boards/${boardId}`);
  const [layout, section] = [doc.layouts[0].id, doc.sections[0].id];
  const kinds = pageKinds(withoutLive, apps);
  const items = Array.from({ length: count }, (_, i) => {
    const [kind, options] = kinds[i % kinds.length];
    return {
      id: `bench-item-${i}`,
      kind,
      options: options(i),
      integrationIds: [],
      advancedOptions: { title: null, customCssClasses: [], borderColor: '' },
      layouts: [{ layoutId: layout, sectionId: section, xOffset: (i * 2) % 12, yOffset: Math.floor((i * 2) / 12) * 2, width: 2, height: 2 }],
    };
  });
  await api('PUT', `/api/boards/${boardId}`, { sections: doc.sections, items });
  return doc.name;
}

/** Headless Debian chromium as the page benchmarks run it. */
export function launchBenchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * One first render measured the same way on any revision of the page (bench:compare): an init script watches the DOM
 * until it holds `count` `.tile` elements and marks two animation frames later (laid out and painted), as the page's
 * own `tessera:board-painted` does where a revision has it. Milliseconds from the start of navigation.
 */
export async function firstRenderOnce(browser: Browser, serverUrl: string, boardName: string, count: number): Promise<number> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  try {
    const origin = new URL(serverUrl).origin;
    await page.route('**/*', (route) => (route.request().url().startsWith(origin) ? route.continue() : route.abort()));
    await page.addInitScript((wanted: number) => {
      const window = globalThis as any; // the browser's, not this process's
      const observer = new window.MutationObserver(() => {
        if (window.document.getElementsByClassName('tile').length < wanted) return;
        observer.disconnect();
        window.requestAnimationFrame(() => window.requestAnimationFrame(() => performance.mark('bench:tiles-painted')));
      });
      observer.observe(window.document, { childList: true, subtree: true });
    }, count);
    await page.goto(`${serverUrl}/boards/${encodeURIComponent(boardName)}`);
    await page.waitForFunction(() => performance.getEntriesByName('bench:tiles-painted').length > 0, undefined, { polling: 20, timeout: 60_000 });
    return await page.evaluate(() => performance.getEntriesByName('bench:tiles-painted')[0].startTime);
  } finally {
    await page.close();
  }
}

export const medianOf = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

export async function benchPageRender({ items: count, rounds, withoutLive = false }: { items: number; rounds: number; withoutLive?: boolean }): Promise<PageRenderResult> {
  const adminKey = `bench0001.${'b'.repeat(32)}`;
  const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), port: 0, host: '127.0.0.1', bootstrapAdminApiKey: adminKey };
  // PGlite in memory, or the PostgreSQL of DATABASE_URL (give it a database of its own: the bench leaves its rows).
  const db = createDatabase({ databaseUrl: process.env.DATABASE_URL ?? null, pgliteDir: null });
  const server = await startServer(config, { db, logger: pino({ level: 'silent' }) });
  const api = apiClient(server.url, adminKey);
  try {
    const boardName = await seedPageBoard(api, count, withoutLive);
    const kinds = pageKinds(withoutLive);

    const browser = await launchBenchBrowser();
    const origin = new URL(server.url).origin;
    const times: number[] = [];
    const contentful: number[] = [];
    const scripted: number[] = [];
    const draws: number[] = [];
    const notes: number[] = [];
    let loaded: AssetSize[] = [];
    try {
      for (let round = 0; round <= rounds; round++) {
        const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
        await page.route('**/*', (route) => (route.request().url().startsWith(origin) ? route.continue() : route.abort()));
        await page.goto(`${server.url}/boards/${encodeURIComponent(boardName)}`);
        await page.waitForFunction(() => performance.getEntriesByName('tessera:board-painted').length > 0, undefined, { polling: 20, timeout: 60_000 });
        const ms = await page.evaluate(() => performance.getEntriesByName('tessera:board-painted')[0].startTime);
        const scriptedMs = await page.evaluate(() => performance.getEntriesByName('tessera:board-rendered')[0].startTime);
        const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN);
        // Notes are drawn with the board when markdown.js loaded first, else when it arrives (mark `tessera:notes-rendered`).
        await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.notebook-content[data-pending]').length === 0, undefined, { polling: 20, timeout: 60_000 });
        notes.push(await page.evaluate(() => (performance.getEntriesByName('tessera:notes-rendered')[0] ?? performance.getEntriesByName('tessera:board-rendered')[0]).startTime));
        const drawMs = await page.evaluate(() => performance.getEntriesByName('tessera:board-rendered')[0].startTime - performance.getEntriesByName('tessera:board-loaded')[0].startTime);
        const tiles = await page.locator('.tile').count();
        if (tiles !== count) throw new Error(`expected ${count} tiles, drew ${tiles}`);
        if (round > 0) times.push(ms), contentful.push(fcp), scripted.push(scriptedMs), draws.push(drawMs); // round 0 warms the server and the browser up
        if (round === rounds) {
          // PAGE-13: live.js comes after the first paint, for a board with live tiles only; then every asset is in.
          if (!withoutLive) await page.waitForFunction(() => (globalThis as any).tesseraLive !== undefined, undefined, { polling: 20, timeout: 60_000 });
          const paths = await page.evaluate(() => performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname + new URL(entry.name).search));
          loaded = await Promise.all(
            [...new Set(paths.filter((p) => /^\/assets\/[^/]+\.(js|css)(\?|$)/.test(p)))].sort().map(async (file) => {
              const body = Buffer.from(await (await fetch(`${origin}${file}`)).arrayBuffer());
              return { file, raw: body.length, gzip: gzipSync(body, { level: 9 }).length };
            }),
          );
        }
        await page.close();
      }
    } finally {
      await browser.close();
    }
    return {
      items: count,
      rounds,
      firstRender: times,
      firstContentfulPaint: contentful,
      scripted,
      draw: draws,
      notes,
      notebooks: Math.ceil(count / kinds.length),
      liveTiles: !withoutLive,
      loaded,
      loadAverage: os.loadavg(),
      cores: os.cpus().length,
      script: gzipped('generated/pages/board.js'),
      markdownScript: gzipped('generated/pages/markdown.js'),
      liveScript: gzipped('generated/pages/live.js'),
      style: gzipped('src/pages/client/board.css'),
    };
  } finally {
    await server.stop();
  }
}

export function printPageRender(r: PageRenderResult): void {
  const median = medianOf;
  const kib = (size: AssetSize) => `${(size.raw / 1024).toFixed(1)} KiB, ${(size.gzip / 1024).toFixed(1)} KiB gzipped`;
  console.log(`First render of a ${r.items}-item board ${r.liveTiles ? 'with' : 'without'} live tiles (navigation start to the drawn board painted, ${r.rounds} rounds after a warm-up):`);
  console.log(`  median ${median(r.firstRender).toFixed(0)} ms; rounds: ${r.firstRender.map((t) => t.toFixed(0)).join(', ')} ms`);
  console.log(`  Chromium's first contentful paint: median ${median(r.firstContentfulPaint).toFixed(0)} ms; rounds: ${r.firstContentfulPaint.map((t) => t.toFixed(0)).join(', ')} ms`);
  console.log(`  of which up to the tiles in the DOM, before layout and paint: median ${median(r.scripted).toFixed(0)} ms; rounds: ${r.scripted.map((t) => t.toFixed(0)).join(', ')} ms`);
  console.log(`  of which drawing the loaded board (data in, tiles drawn): median ${median(r.draw).toFixed(0)} ms; rounds: ${r.draw.map((t) => t.toFixed(0)).join(', ')} ms`);
  console.log(`  notebooks filled in (markdown.js loaded, ${r.notebooks} notes rendered): median ${median(r.notes).toFixed(0)} ms from navigation start`);
  console.log(`  load average while measuring: ${r.loadAverage.map((l) => l.toFixed(1)).join(' ')} on ${r.cores} cores`);
  console.log(`Page script generated/pages/board.js: ${kib(r.script)}`);
  console.log(`Markdown script generated/pages/markdown.js (loaded only for boards with a notebook): ${kib(r.markdownScript)}`);
  console.log(`Live views generated/pages/live.js (loaded only for boards with a live tile, after the first paint): ${kib(r.liveScript)}`);
  console.log(`Page style src/pages/client/board.css: ${kib(r.style)}`);
  const together = r.script.gzip + r.style.gzip;
  console.log(`Page script and style together, gzipped: ${(together / 1024).toFixed(1)} KiB (${together} bytes; goal under 25 KB: ${together < 25_000 ? 'met' : 'not met'})`);
  const all = r.loaded.reduce((sum, size) => sum + size.gzip, 0);
  console.log(`Every script and style sheet the page loaded (${r.liveTiles ? 'with' : 'without'} live tiles), gzipped: ${(all / 1024).toFixed(1)} KiB (${all} bytes)`);
  for (const size of r.loaded) console.log(`  ${size.file.replace(/\?v=.*/, '')}: ${kib(size)}`);
}

if (require.main === module) {
  const { values } = parseArgs({
    options: { items: { type: 'string', default: '200' }, rounds: { type: 'string', default: '7' }, json: { type: 'boolean', default: false }, 'without-live': { type: 'boolean', default: false } },
  });
  benchPageRender({ items: Number(values.items), rounds: Number(values.rounds), withoutLive: values['without-live'] })
    .then((result) => (values.json ? console.log(JSON.stringify(result)) : printPageRender(result)))
    .catch((error) => {
      console.error(error);
      process.exitCode = 1;
    });
}
