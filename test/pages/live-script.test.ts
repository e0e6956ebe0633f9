/**
 * PAGE-13: the live views are a script of their own (/assets/live.js), loaded by the board page only for a board with
 * a live tile, once the board has been drawn; PAGE-7: by its hashed URL, answered immutable. Headless Debian chromium
 * against the real app; the live tiles here are weather widgets without a location (and a clock showing the weather),
 * which the server answers with an error result that the live view draws as text: no service is needed. Asserts what is in the DOM and which scripts were asked for, never how long anything took.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { closeAfterTests, instanceOnlyPage, launchBrowser, type TestBrowser } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any
declare const window: any; // eslint-disable-line @typescript-eslint/no-explicit-any
declare const performance: any; // eslint-disable-line @typescript-eslint/no-explicit-any
declare const requestAnimationFrame: any; // eslint-disable-line @typescript-eslint/no-explicit-any

const immutable = 'public, max-age=31536000, immutable';
/** What the weather view draws for a widget without a valid location (the server's error result, as text). */
const noPlace = /^Error \(no location\): the widget has no valid location/m;

let server: TestServer;
let launched: TestBrowser | undefined;
let browser: BrowserContext | undefined;

beforeAll(async () => {
  launched = await launchBrowser();
  browser = launched.context;
  server = await startTestServer();
}, 120_000);
closeAfterTests(() => ({ launched, server }));

/** A public board with an app-less mix (clock, notebook) and, when `live`, a weather tile and a clock showing the weather. */
async function seedBoard(live: boolean): Promise<{ name: string; ids: { clock: string; note: string; weather: string; weatherClock: string } }> {
  const name = unique(live ? 'live-script-' : 'no-live-script-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: true } }), 201);
  const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const at = (x: number) => [position(doc.layouts[0].id, doc.sections[0].id, x, 0, 2, 2)];
  const ids = { clock: unique('clock'), note: unique('note'), weather: unique('weather'), weatherClock: unique('wclock') };
  const items = [item(ids.clock, at(0)), item(ids.note, at(2), { kind: 'notebook', options: { content: '# Hello' } })];
  if (live) items.push(item(ids.weather, at(4), { kind: 'weather', options: {} }), item(ids.weatherClock, at(6), { options: { showWeather: true } }));
  expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections: doc.sections, items } }));
  return { name, ids };
}

/** Opens the board's page, noting every script asked for and the Cache-Control it was answered with. */
async function open(name: string): Promise<{ page: Page; scripts: Map<string, string | null>; errors: string[]; html: string }> {
  const { page, errors } = await instanceOnlyPage(browser!, server.directUrl, 1280);
  const scripts = new Map<string, string | null>();
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.pathname.endsWith('.js')) scripts.set(url.pathname + url.search, response.headers()['cache-control'] ?? null);
  });
  const answer = await page.goto(`${server.directUrl}/boards/${name}`);
  return { page, scripts, errors, html: (await answer?.text()) ?? '' };
}

/** Resolves in the page once the board is painted and two more frames have passed: a live tile's script is asked for by then. */
const pastFirstPaint = (page: Page) =>
  page.evaluate(async () => {
    const painted = () => performance.getEntriesByName('tessera:board-painted').length > 0;
    while (!painted()) await new Promise((resolve) => requestAnimationFrame(resolve));
    for (let frame = 0; frame < 3; frame++) await new Promise((resolve) => requestAnimationFrame(resolve));
  });

const tileText = (page: Page, id: string) => page.locator(`.tile[data-item-id="${id}"]`).innerText();

describe('the live views as a script of their own (PAGE-13)', () => {
  it('PAGE-13: a board without a live tile never loads live.js; its other tiles are drawn as before', async () => {
    const { name, ids } = await seedBoard(false);
    const { page, scripts, errors, html } = await open(name);
    await page.waitForSelector(`.tile[data-item-id="${ids.clock}"] .clock-time`);
    await page.waitForSelector(`.tile[data-item-id="${ids.note}"] .notebook-content h1`);
    await pastFirstPaint(page);
    expect(html).not.toContain('live.js');
    expect([...scripts.keys()].some((url) => url.startsWith('/assets/board.js?v='))).toBe(true);
    expect([...scripts.keys()].filter((url) => url.includes('live.js'))).toEqual([]);
    const inPage = await page.evaluate(() => ({
      script: document.querySelector('script[src*="live.js"]') !== null,
      loaded: window.tesseraLive !== undefined,
      liveBodies: document.querySelectorAll('.live').length,
    }));
    expect(inPage).toEqual({ script: false, loaded: false, liveBodies: 0 });
    expect(errors).toEqual([]);
  });

  it('PAGE-13, PAGE-7: a board with live tiles loads live.js by its hashed URL (immutable) once drawn, and the live views draw the tiles', async () => {
    const { name, ids } = await seedBoard(true);
    const { page, scripts, errors, html } = await open(name);
    expect(html).not.toContain('live.js');
    // The live view's line for a weather widget without a location, in the weather tile and under the clock.
    await page.waitForFunction(() => document.querySelector('.widget-weather .live .live-error') !== null, undefined, { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('.widget-clock .live .live-error') !== null, undefined, { timeout: 30_000 });
    expect(await tileText(page, ids.weather)).toMatch(noPlace);
    expect(await page.locator(`.tile[data-item-id="${ids.weather}"] .live`).getAttribute('aria-busy')).toBe('false');
    expect(await page.locator(`.tile[data-item-id="${ids.weatherClock}"] .clock-time`).count()).toBe(1);
    expect(await page.locator(`.tile[data-item-id="${ids.weatherClock}"] .live`).innerText()).toMatch(noPlace);
    // The clock without weather has no live body.
    expect(await page.locator(`.tile[data-item-id="${ids.clock}"] .live`).count()).toBe(0);
    const live = [...scripts].filter(([url]) => url.includes('live.js'));
    expect(live).toHaveLength(1);
    expect(live[0][0]).toMatch(/^\/assets\/live\.js\?v=[0-9a-f]{16}$/);
    expect(live[0][1]).toBe(immutable);
    // Asked for once the tiles were in the page (their shells drawn by board.js), not with the page's own script.
    const order = await page.evaluate(() => {
      const entry = performance.getEntriesByType('resource').find((e: { name: string }) => e.name.includes('/assets/live.js'));
      return { afterDrawing: entry.startTime >= performance.getEntriesByName('tessera:board-rendered')[0].startTime, tags: document.querySelectorAll('script[src*="live.js"]').length };
    });
    expect(order).toEqual({ afterDrawing: true, tags: 1 });
    expect(errors).toEqual([]);
  });

  it('PAGE-13: a live tile added while the page is open is drawn by the live views too (live.js loaded then)', async () => {
    const { name, ids } = await seedBoard(false);
    const { page, scripts } = await open(name);
    await page.waitForSelector(`.tile[data-item-id="${ids.clock}"] .clock-time`);
    await pastFirstPaint(page);
    const board = expectOk(await server.call('GET', `/api/boards/by-name/${name}`));
    const added = unique('weather');
    const items = [...board.items, item(added, [position(board.layouts[0].id, board.sections[0].id, 8, 0, 2, 2)], { kind: 'weather', options: {} })];
    expectOk(await server.call('PUT', `/api/boards/${board.id}`, { body: { sections: board.sections, items } }));
    await page.waitForFunction((id) => document.querySelector(`.tile[data-item-id="${id}"] .live .live-error`) !== null, added, { timeout: 30_000 });
    expect(await page.locator(`.tile[data-item-id="${added}"] .live`).innerText()).toMatch(noPlace);
    expect([...scripts.keys()].filter((url) => url.includes('live.js'))).toHaveLength(1);
  });
});
