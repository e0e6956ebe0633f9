/**
 * THEMEVIEW-4: the board page's HTML carries the board's colour scheme, so the first paint, before the page's script
 * runs, already has the board's colours: checked on the HTML the server sends, and in headless Debian chromium with
 * the page's script held back (its request refused: what the page shows is what it paints before that script).
 * THEMEVIEW-5: the viewer's remembered choice (THEMEVIEW-2) is applied by a script in <head>: in force with the
 * page's own script held back, and kept once that script runs.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { closeAfterTests, launchBrowser, type TestBrowser } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk } from '../boards-document/helpers';
import { schemeMarkup } from '../../src/pages/html';

declare const document: any;
declare const getComputedStyle: any;
declare const localStorage: any;

/** The schemes' page backgrounds (board.css). */
const darkBackground = 'rgb(13, 17, 23)';
const lightBackground = 'rgb(246, 248, 250)';

let server: TestServer;
let launched: TestBrowser | undefined;
let browser: BrowserContext | undefined;
const boards: Record<'light' | 'dark' | 'auto', string> = { light: '', dark: '', auto: '' };

beforeAll(async () => {
  launched = await launchBrowser();
  browser = launched.context;
  server = await startTestServer();
  const origin = new URL(server.directUrl).origin;
  await browser.route('**/*', (route) => (route.request().url().startsWith(origin) ? route.continue() : route.abort()));
  for (const scheme of ['light', 'dark', 'auto'] as const) {
    const name = unique(`first-paint-${scheme}-`);
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 4, isPublic: true } }), 201);
    expectOk(await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { colorScheme: scheme } }), 204);
    boards[scheme] = name;
  }
}, 120_000);
closeAfterTests(() => ({ launched, server }));

/** The page of `board` on a system preferring `system`, the requests of the scripts `held` refused. */
async function open(board: string, system: 'light' | 'dark', held: string[] = []): Promise<Page> {
  const page = await browser!.newPage();
  await page.emulateMedia({ colorScheme: system });
  for (const script of held) await page.route(`**/assets/${script}*`, (route) => route.abort());
  await page.goto(`${server.directUrl}/boards/${board}`);
  return page;
}

const shown = (page: Page) =>
  page.evaluate(() => ({
    scheme: document.documentElement.dataset.scheme ?? null,
    background: getComputedStyle(document.documentElement).backgroundColor,
    colorScheme: getComputedStyle(document.documentElement).colorScheme,
    loading: document.querySelector('#app > p')?.textContent?.startsWith('Loading') ?? false,
  }));

describe('the board\'s colour scheme in the HTML (THEMEVIEW-4)', () => {
  it('THEMEVIEW-4: a dark or light board\'s page is <html data-scheme> with its color-scheme meta; an auto board\'s and a missing board\'s follow the system', async () => {
    expect(schemeMarkup('dark')).toEqual({ attribute: ' data-scheme="dark"', meta: '<meta name="color-scheme" content="dark">' });
    expect(schemeMarkup('light')).toEqual({ attribute: ' data-scheme="light"', meta: '<meta name="color-scheme" content="light">' });
    expect(schemeMarkup('auto')).toEqual({ attribute: '', meta: '<meta name="color-scheme" content="light dark">' });
    const html = async (name: string) => (await fetch(`${server.directUrl}/boards/${name}`)).text();
    for (const scheme of ['light', 'dark'] as const) {
      const text = await html(boards[scheme]);
      expect(text).toContain(`<html lang="en" data-scheme="${scheme}">`);
      expect(text).toContain(`<meta name="color-scheme" content="${scheme}">`);
    }
    for (const text of [await html(boards.auto), await html(unique('no-such-board-'))]) {
      expect(text).toContain('<html lang="en">');
      expect(text).toContain('<meta name="color-scheme" content="light dark">');
    }
  });

  it('THEMEVIEW-4: before any script runs, a dark board is dark on a light system, a light board light on a dark one, an auto board the system\'s', async () => {
    const cases = [
      { board: boards.dark, system: 'light', want: { scheme: 'dark', background: darkBackground, colorScheme: 'dark' } },
      { board: boards.light, system: 'dark', want: { scheme: 'light', background: lightBackground, colorScheme: 'light' } },
      { board: boards.auto, system: 'dark', want: { scheme: null, background: darkBackground, colorScheme: 'dark' } },
      { board: boards.auto, system: 'light', want: { scheme: null, background: lightBackground, colorScheme: 'light' } },
    ] as const;
    for (const { board, system, want } of cases) {
      const page = await open(board, system, ['scheme.js', 'board.js']);
      // No script ran: the shell still says Loading, and what it shows is its first paint.
      expect({ board, system, ...(await shown(page)) }).toEqual({ board, system, ...want, loading: true });
      await page.close();
    }
  });

  it('THEMEVIEW-5: the viewer\'s remembered choice is in force before the page\'s script runs (the head script), and stays once it has', async () => {
    const setup = await open(boards.dark, 'dark');
    await setup.waitForSelector('main.board');
    const cases = [
      { choice: 'light', board: boards.dark, want: 'light', background: lightBackground },
      { choice: 'dark', board: boards.light, want: 'dark', background: darkBackground },
      { choice: 'auto', board: boards.light, want: null, background: darkBackground },
    ];
    for (const { choice, board, want, background } of cases) {
      await setup.evaluate((value) => localStorage.setItem('tessera.colorScheme', value), choice);
      const held = await open(board, 'dark', ['board.js']);
      expect({ choice, ...(await shown(held)) }).toMatchObject({ choice, scheme: want, background, loading: true });
      await held.close();
      const page = await open(board, 'dark');
      await page.waitForSelector('main.board');
      // The page's script resolves the choice (auto on a dark system: dark).
      await page.waitForFunction((scheme) => document.documentElement.dataset.scheme === scheme, want ?? 'dark', { timeout: 10_000 });
      expect({ choice, ...(await shown(page)) }).toMatchObject({ choice, background, loading: false });
      await page.close();
    }
    await setup.evaluate(() => localStorage.removeItem('tessera.colorScheme'));
  });

  it('THEMEVIEW-4, THEMEVIEW-5: without a remembered choice the head script leaves the HTML\'s scheme; with its request refused too the board\'s scheme holds', async () => {
    const page = await browser!.newPage();
    await page.emulateMedia({ colorScheme: 'light' });
    await page.route('**/assets/scheme.js*', (route) => route.abort());
    await page.goto(`${server.directUrl}/boards/${boards.dark}`);
    await page.waitForSelector('main.board');
    expect(await shown(page)).toMatchObject({ scheme: 'dark', background: darkBackground, loading: false });
  });
});
