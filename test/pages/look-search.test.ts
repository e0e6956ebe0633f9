/**
 * Colour schemes, search and quick launch, and the accessibility audit of the board page (THEMEVIEW-*, SEARCH-*,
 * A11Y-*) in headless Debian chromium. The board settings `colorScheme` and `webSearchUrl` are read from the board
 * document the page is served with; until the API takes them (board settings, another branch), these tests put
 * them into the served document (`served`), which is what the page reads either way. Requests off the instance are
 * answered here (the apps' and the web search's addresses) or refused: nothing leaves the machine.
 */
import { axeAudit } from '../support/axe';
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { closeAfterTests, launchBrowser, TestBrowser } from '../support/browser';
import { startTestServer, TestServer } from '../support/server';
import { unique } from '../support/unique';
import { categorySection, expectOk, item, position } from '../boards-document/helpers';
import { converters } from '../../src/convert';
import { defaultIconBases } from '../../src/convert/icons';
import { fixtureInput } from '../convert/support';

// The callbacks given to page.evaluate run in the page; the tests' TypeScript has no DOM library.
declare const document: any;
declare const getComputedStyle: (element: unknown) => any;


let server: TestServer;
let launched: TestBrowser | undefined;
let browser: BrowserContext | undefined;
beforeAll(async () => {
  launched = await launchBrowser();
  browser = launched.context;
  server = await startTestServer();
  const origin = new URL(server.directUrl).origin;
  // For every page, the new tabs too: the instance, the sample's addresses and the web search answered here, the rest refused.
  await browser.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:')) return route.continue();
    if (/^https:\/\/[a-z.0-9]+\.example\//.test(url) || url.startsWith('https://duckduckgo.com/')) return route.fulfill({ status: 200, contentType: 'text/html', body: '<title>away</title>away' });
    return route.abort();
  });
}, 120_000);
closeAfterTests(() => ({ launched, server }));

const icon = (letter: string) =>
  `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#1e88e5"/><text x="32" y="43" font-size="30" text-anchor="middle" fill="#fff">${letter}</text></svg>`)}`;

interface Sample {
  name: string;
  apps: { name: string; href: string }[];
}

/**
 * The sample start page: a clock, a notebook, a bookmarks list and a placeholder in the top section, app tiles in
 * two categories (one opening in this tab), with descriptions; the board's own colours set.
 */
async function sampleBoard(): Promise<Sample> {
  const tag = unique('s').replace(/[^a-z0-9]/gi, '');
  const specs = [
    { name: `Jellyfin ${tag}`, href: `https://media.${tag}.example/`, description: 'Films and series' },
    { name: `Nextcloud ${tag}`, href: `https://cloud.${tag}.example/`, description: 'Files and calendars' },
    { name: `Grafana ${tag}`, href: `https://grafana.${tag}.example/`, description: 'Dashboards of the home lab' },
    { name: `Paperless ${tag}`, href: `https://docs.${tag}.example/`, description: 'Scanned letters' },
  ];
  const ids: string[] = [];
  for (const spec of specs) ids.push(expectOk(await server.call('POST', '/api/apps', { body: { ...spec, iconUrl: icon(spec.name[0]) } }), 201).appId);
  const name = unique('look-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: true } }), 201);
  expectOk(await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { pageTitle: 'Home lab', primaryColor: '#2f6feb', secondaryColor: '#8250df', opacity: 90, customCss: '.widget-title { letter-spacing: 1px; }' } }), 204);
  const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const layout = doc.layouts[0].id;
  const top = doc.sections[0].id;
  const [media, admin] = [categorySection(unique('media'), 'Media', 1), categorySection(unique('admin'), 'Administration', 2)];
  expectOk(
    await server.call('PUT', `/api/boards/${boardId}`, {
      body: {
        sections: [doc.sections[0], media, admin],
        items: [
          item(unique('clock'), [position(layout, top, 0, 0, 3, 2)], { kind: 'clock', options: { showDate: true } }),
          item(unique('notes'), [position(layout, top, 3, 0, 4, 2)], { kind: 'notebook', options: { content: '# Today\n\n- renew the certificate\n- **backup** check' } }),
          item(unique('marks'), [position(layout, top, 7, 0, 3, 2)], { kind: 'bookmarks', options: { title: 'Daily', items: [ids[1], ids[3]] } }),
          item(unique('weather'), [position(layout, top, 10, 0, 2, 2)], { kind: 'weather', options: {} }),
          item(unique('app'), [position(layout, media.id, 0, 0, 3, 1)], { kind: 'app', options: { appId: ids[0], openInNewTab: false, descriptionDisplayMode: 'normal' } }),
          item(unique('app'), [position(layout, media.id, 3, 0, 3, 1)], { kind: 'app', options: { appId: ids[1], descriptionDisplayMode: 'normal' } }),
          item(unique('app'), [position(layout, admin.id, 0, 0, 3, 1)], { kind: 'app', options: { appId: ids[2], pingEnabled: true } }),
        ],
      },
    }),
  );
  return { name, apps: specs };
}

/** A page that answers the sample's addresses with a small page of their own and refuses every other one off the instance. */
async function openPage(width: number, settings: { colorScheme?: string; webSearchUrl?: string } = {}): Promise<{ page: Page; errors: string[] }> {
  const page = await browser!.newPage();
  await page.setViewportSize({ width, height: 900 });
  const origin = new URL(server.directUrl).origin;
  await page.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/boards/`) && route.request().resourceType() === 'document' && Object.keys(settings).length) return route.fulfill({ response: await route.fetch(), body: await served(route, settings) });
    return route.fallback();
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors };
}

/** The board page with `settings` in the board document it is served with (the page's data block, VIEW-7). */
async function served(route: import('playwright-core').Route, settings: Record<string, string>): Promise<string> {
  const html = await (await route.fetch()).text();
  return html.replace(/(<script type="application\/json" id="board-data">)(.*?)(<\/script>)/s, (_all, open: string, json: string, close: string) => {
    const data = JSON.parse(json);
    Object.assign(data.board, settings);
    return open + JSON.stringify(data).replace(/</g, '\\u003c') + close;
  });
}

async function openBoard(sample: Sample, width = 1280, settings: { colorScheme?: string; webSearchUrl?: string } = {}) {
  const opened = await openPage(width, settings);
  await opened.page.goto(`${server.directUrl}/boards/${sample.name}`);
  await opened.page.waitForSelector('main.board .app-link');
  await opened.page.waitForSelector('.page-tools select.scheme');
  return opened;
}

/**
 * Whether the page's computed background colour becomes dark (relative luminance, WCAG 2, under 0.05) or light (over
 * 0.8). A change of the system's preference reaches the page as an event: this waits for the condition (10 s at most).
 */
const becomes = (page: Page, scheme: 'dark' | 'light') =>
  page
    .waitForFunction(
      (want) => {
        const [r, g, b] = getComputedStyle(document.documentElement).backgroundColor.match(/\d+(\.\d+)?/g)!.slice(0, 3).map(Number);
        const lin = (c: number) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
        const luminance = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
        return want === 'dark' ? luminance < 0.05 : luminance > 0.8;
      },
      scheme,
      { timeout: 10_000 },
    )
    .then(
      () => true,
      () => false,
    );
const isDark = (page: Page) => becomes(page, 'dark');
const isLight = (page: Page) => becomes(page, 'light');

describe('colour schemes (THEMEVIEW-1, THEMEVIEW-2)', () => {
  it('THEMEVIEW-1: a board without a scheme follows prefers-color-scheme, also when it changes on an open page', async () => {
    const sample = await sampleBoard();
    const { page, errors } = await openBoard(sample);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await isLight(page)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.dataset.scheme)).toBe('light');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await isDark(page)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.dataset.scheme)).toBe('dark');
    // The tiles and the text go dark and light with it.
    const tile = await page.locator('.tile.widget-app').first().evaluate((e) => getComputedStyle(e).backgroundColor);
    expect(tile).toMatch(/^rgba\(22, 27, 34, 0\.9\)$/); // the board's opacity (90) on the dark tile colour
    // The board's custom CSS still applies, and its primary colour as text is lightened to stay readable on dark.
    expect(await page.locator('.widget-title').first().evaluate((e) => getComputedStyle(e).letterSpacing)).toBe('1px');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--primary-text').trim())).not.toBe('#2f6feb');
    expect(errors).toEqual([]);
    await page.close();
  });

  it("THEMEVIEW-1: the board's colorScheme is the default: dark on a light system, light on a dark one", async () => {
    const sample = await sampleBoard();
    const dark = await openPage(1280, { colorScheme: 'dark' });
    await dark.page.emulateMedia({ colorScheme: 'light' });
    await dark.page.goto(`${server.directUrl}/boards/${sample.name}`);
    await dark.page.waitForSelector('main.board .app-link');
    expect(await isDark(dark.page)).toBe(true);
    await dark.page.close();
    const light = await openPage(1280, { colorScheme: 'light' });
    await light.page.emulateMedia({ colorScheme: 'dark' });
    await light.page.goto(`${server.directUrl}/boards/${sample.name}`);
    await light.page.waitForSelector('main.board .app-link');
    expect(await isLight(light.page)).toBe(true);
    await light.page.close();
  });

  it("THEMEVIEW-2: the viewer's choice overrides the system and the board, survives a reload, and 'Board default' gives it back", async () => {
    const sample = await sampleBoard();
    const { page, errors } = await openBoard(sample);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await isDark(page)).toBe(true);
    // Another board open in the same browser, dark by its own setting, takes the choice too (it is the browser's).
    const other = await openBoard(await sampleBoard(), 1280, { colorScheme: 'dark' });
    expect(await isDark(other.page)).toBe(true);
    await page.selectOption('select.scheme', 'light');
    expect(await isLight(page)).toBe(true);
    expect(await isLight(other.page)).toBe(true);
    expect(await other.page.inputValue('select.scheme')).toBe('light');
    await other.page.close();
    await page.reload();
    await page.waitForSelector('main.board .app-link');
    expect(await isLight(page)).toBe(true);
    expect(await page.inputValue('select.scheme')).toBe('light');
    await page.selectOption('select.scheme', '');
    expect(await isDark(page)).toBe(true);
    await page.reload();
    await page.waitForSelector('main.board .app-link');
    expect(await isDark(page)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});

const dialogOpen = (page: Page) => page.evaluate(() => document.querySelector('dialog.search')?.open === true);
const optionNames = (page: Page) => page.locator('#search-results [role=option] .search-name').allInnerTexts();

describe('search and quick launch (SEARCH-1..5)', () => {
  it('SEARCH-1, SEARCH-2, SEARCH-3: typing an app name on the page filters to it; Enter opens it where a click on its tile goes (this tab)', async () => {
    const sample = await sampleBoard();
    const { page, errors } = await openBoard(sample);
    expect(await dialogOpen(page)).toBe(false);
    await page.keyboard.type(sample.apps[0].name.slice(0, 5)); // "Jelly"
    expect(await dialogOpen(page)).toBe(true);
    const input = page.locator('dialog.search [role=combobox]');
    expect(await input.inputValue()).toBe('Jelly');
    expect(await optionNames(page)).toEqual([sample.apps[0].name]);
    expect(await input.getAttribute('aria-expanded')).toBe('true');
    expect(await input.getAttribute('aria-activedescendant')).toBe('search-option-0');
    expect(await page.locator('#search-option-0').getAttribute('aria-selected')).toBe('true');
    await Promise.all([page.waitForURL(sample.apps[0].href), page.keyboard.press('Enter')]);
    expect(page.url()).toBe(sample.apps[0].href);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('SEARCH-2, SEARCH-3: descriptions and addresses match too; arrows move; an app opening in a new tab opens in one', async () => {
    const sample = await sampleBoard();
    const { page } = await openBoard(sample);
    await page.keyboard.press('/');
    expect(await dialogOpen(page)).toBe(true);
    expect(await page.locator('dialog.search [role=combobox]').inputValue()).toBe('');
    await page.keyboard.type('files');
    // Nextcloud by its description ("Files and calendars") once, though the board shows it as an app and a bookmark.
    expect(await optionNames(page)).toEqual([sample.apps[1].name]);
    await page.fill('dialog.search [role=combobox]', '.example');
    // By address, in the board's reading order: the bookmarks (Nextcloud, Paperless), then the categories' apps.
    expect(await optionNames(page)).toEqual([sample.apps[1].name, sample.apps[3].name, sample.apps[0].name, sample.apps[2].name]);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    const input = page.locator('dialog.search [role=combobox]');
    expect(await input.getAttribute('aria-activedescendant')).toBe('search-option-1');
    const [opened] = await Promise.all([browser!.waitForEvent('page'), page.keyboard.press('Enter')]);
    await opened.waitForURL(sample.apps[3].href);
    expect(opened.url()).toBe(sample.apps[3].href);
    expect(page.url()).toContain(`/boards/${sample.name}`);
    expect(await dialogOpen(page)).toBe(false);
    await opened.close();
    await page.close();
  });

  it('SEARCH-1: Escape closes the search and focus goes back; keys typed in a form field do not open it', async () => {
    const sample = await sampleBoard();
    const { page } = await openBoard(sample);
    await page.focus('select.scheme');
    await page.keyboard.type('g');
    expect(await dialogOpen(page)).toBe(false); // typing in a select picks an option, not a search
    await page.focus('.search-open');
    await page.keyboard.type('gra');
    expect(await dialogOpen(page)).toBe(true);
    expect(await optionNames(page)).toEqual([sample.apps[2].name]);
    await page.keyboard.press('Escape');
    expect(await dialogOpen(page)).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('search-open');
    // Opened again, it starts from what is typed then.
    await page.keyboard.type('p');
    expect(await page.locator('dialog.search [role=combobox]').inputValue()).toBe('p');
    await page.close();
  });

  it("SEARCH-4: with the board's webSearchUrl, a query nothing on the board matches searches the web; without it, Enter does nothing", async () => {
    const sample = await sampleBoard();
    const { page } = await openBoard(sample, 1280, { webSearchUrl: 'https://duckduckgo.com/?q={query}' });
    await page.keyboard.type('weather in Paris');
    expect(await page.locator('.search-status').innerText()).toBe('Nothing on the board matches.');
    expect(await optionNames(page)).toEqual(['Search the web for “weather in Paris”']);
    const [opened] = await Promise.all([browser!.waitForEvent('page'), page.keyboard.press('Enter')]);
    await opened.waitForURL(/duckduckgo/);
    expect(opened.url()).toBe('https://duckduckgo.com/?q=weather%20in%20Paris');
    await opened.close();
    await page.close();

    const plain = await openBoard(sample);
    await plain.page.keyboard.type('weather');
    expect(await optionNames(plain.page)).toEqual([]);
    expect(await plain.page.locator('dialog.search [role=combobox]').getAttribute('aria-expanded')).toBe('false');
    await plain.page.keyboard.press('Enter');
    expect(await dialogOpen(plain.page)).toBe(true);
    expect(plain.page.url()).toContain(`/boards/${sample.name}`);
    await plain.page.close();
  });

  it('SEARCH-5: at phone width the Search button is visible and opens the search, which fits the window', async () => {
    const sample = await sampleBoard();
    const { page } = await openBoard(sample, 390);
    const button = page.locator('.page-tools .search-open');
    expect(await button.isVisible()).toBe(true);
    await button.click();
    expect(await dialogOpen(page)).toBe(true);
    await page.keyboard.type('cloud');
    expect(await optionNames(page)).toEqual([sample.apps[1].name]);
    const box = await page.locator('dialog.search').boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await page.close();
  });
});

const audit = axeAudit;

describe('accessibility (A11Y-1..3)', () => {
  it.each(['light', 'dark'] as const)('A11Y-3: axe-core finds no serious or critical violation on the sample board, %s, with the search open too', async (scheme) => {
    const sample = await sampleBoard();
    for (const width of [1280, 390]) {
      const { page } = await openBoard(sample, width);
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForSelector('.topbar .boards-menu');
      expect(await audit(page)).toEqual([]);
      await page.keyboard.type('e');
      expect(await dialogOpen(page)).toBe(true);
      expect(await audit(page)).toEqual([]);
      await page.close();
    }
  });

  it.each(['homepage', 'dashy', 'glance'])('A11Y-3: the boards converted from the %s fixture have no serious or critical violation, light and dark', async (format) => {
    const { boards } = converters[format](fixtureInput(format), { iconBases: defaultIconBases });
    for (const file of boards) {
      const name = unique(`${format}-`);
      expectOk(await server.call('POST', '/api/boards/import', { body: { ...file, name, isPublic: true } }), 201);
      for (const scheme of ['light', 'dark'] as const) {
        const { page } = await openPage(1280);
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${server.directUrl}/boards/${name}`);
        await page.waitForSelector('main.board .tile');
        await page.waitForSelector('.topbar .boards-menu');
        expect({ board: file.name, scheme, violations: await audit(page) }).toEqual({ board: file.name, scheme, violations: [] });
        await page.close();
      }
    }
  });

  it('A11Y-1: Tab goes through the controls in the order they are seen: top bar, tools, then the tiles top to bottom', async () => {
    const sample = await sampleBoard();
    const { page } = await openBoard(sample);
    await page.waitForSelector('.topbar .boards-menu');
    const stops: { name: string; top: number; bottom: number; left: number; outline: string }[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      stops.push(
        await page.evaluate(() => {
          const e = document.activeElement;
          const box = e.getBoundingClientRect();
          return { name: e.getAttribute('aria-label') || e.textContent!.trim().slice(0, 20) || e.tagName, top: box.top, bottom: box.bottom, left: box.left, outline: getComputedStyle(e).outlineStyle };
        }),
      );
    }
    expect(stops.slice(0, 5).map((s) => s.name)).toEqual(['Tessera', 'Boards', 'Sign in', 'Search', 'Colour scheme']);
    // Down the page: in one row (boxes side by side) left to right, else each stop below the one before it.
    for (let i = 1; i < stops.length; i++) {
      const [a, b] = [stops[i - 1], stops[i]];
      const sameRow = b.top < a.bottom && a.top < b.bottom;
      expect({ from: a.name, to: b.name, inOrder: sameRow ? b.left >= a.left : b.top > a.top }).toEqual({ from: a.name, to: b.name, inOrder: true });
    }
    // A11Y-2: each stop shows where focus is.
    expect(stops.filter((s) => s.outline === 'none').map((s) => s.name)).toEqual([]);
    expect(stops.some((s) => s.name.startsWith('Jellyfin'))).toBe(true);
    await page.close();
  });
});
