/**
 * THEME-1, THEME-2, CONV-16, CONV-18 end to end: the homepage fixture converted, imported over the API (its
 * `theme: dark` and search widget as the board settings, no document rewritten in the browser), shown dark on a light
 * system, and its search offering the web search it was converted with. Headless Debian chromium; requests off the
 * instance are refused.
 */
import type { BrowserContext } from 'playwright-core';
import { closeAfterTests, launchBrowser, type TestBrowser } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk } from '../boards-document/helpers';
import { converters } from '../../src/convert';
import { fixtureInput } from '../convert/support';

declare const document: any;

let server: TestServer;
let launched: TestBrowser | undefined;
let browser: BrowserContext | undefined;
beforeAll(async () => {
  launched = await launchBrowser();
  browser = launched.context;
  server = await startTestServer();
  const origin = new URL(server.directUrl).origin;
  await browser.route('**/*', (route) => (route.request().url().startsWith(origin) || route.request().url().startsWith('data:') ? route.continue() : route.abort()));
}, 120_000);
closeAfterTests(() => ({ launched, server }));

describe('a converted board\'s theme and web search on its page (THEME-1, THEME-2, CONV-16, CONV-18)', () => {
  it('THEME-1, CONV-16: the homepage fixture (theme: dark) is dark on a light system; THEME-2, CONV-18: its search offers the web search', async () => {
    const [file] = converters.homepage(fixtureInput('homepage')).boards;
    const name = unique('converted-dark-');
    const { boardId } = expectOk(await server.call('POST', '/api/boards/import', { body: { ...file, name, isPublic: true } }), 201);
    expect(expectOk(await server.call('GET', `/api/boards/${boardId}`))).toMatchObject({ colorScheme: 'dark', webSearchUrl: 'https://duckduckgo.com/?q={query}' });

    const page = await browser!.newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${server.directUrl}/boards/${name}`);
    await page.waitForSelector('main.board .app-link');
    await page.waitForFunction(() => document.documentElement.dataset.scheme === 'dark', undefined, { timeout: 10_000 });

    await page.keyboard.press('/');
    await page.keyboard.type('zzqx nothing matches');
    const web = page.getByRole('option', { name: /search the web/i });
    await web.waitFor({ timeout: 10_000 });
    expect(await web.count()).toBe(1);
  });
});
