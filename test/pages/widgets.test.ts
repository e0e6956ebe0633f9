/**
 * The board page's widgets in headless Debian chromium (VIEW-1..6): one board with every kind the page draws and
 * two it does not, asserting what a person sees: the icon's src (served by the test as the icon host), the link
 * targets, the clock's text changing, the markdown as elements, every XSS payload inert, the placeholders' labels,
 * the ping dot from the server's check, the policy's frame and image sources.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { createActor } from '../support/actors';
import { launchBrowser, TestBrowser } from '../support/browser';
import { startTestServer, TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const xss = '<img src=x onerror="window.__xss=1">';

/** The usual markdown XSS list: none of it may leave a script, a handler, a javascript: link or a frame. */
const notebookXss = [
  '<script>window.__xss = 2</script>',
  '<img src=x onerror="window.__xss = 3">',
  '[click](javascript:window.__xss=4)',
  '[spaced](  javascript:window.__xss=5  )',
  '<a href="JaVaScRiPt:window.__xss=6">mixed case</a>',
  '<a href="&#106;avascript:window.__xss=7">entity</a>',
  '<a href="java\tscript:window.__xss=8">tab</a>',
  '<svg onload="window.__xss=9"><circle r=1 /></svg>',
  '<iframe src="javascript:window.__xss=10"></iframe>',
  '<details open ontoggle="window.__xss=11">d</details>',
  '<div style="background:url(javascript:window.__xss=12)">styled</div>',
  '<form action="javascript:window.__xss=13"><button>go</button></form>',
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__xss=14">',
  '<object data="javascript:window.__xss=15"></object>',
  '<a href="data:text/html,<script>window.__xss=16</script>">data link</a>',
  '![img](javascript:window.__xss=17)',
  '<body onload="window.__xss=18">',
  '<input autofocus onfocus="window.__xss=19">',
].join('\n\n');

let server: TestServer;
let launched: TestBrowser | undefined;
let browser: BrowserContext | undefined;
let target: http.Server;
let pingUrl: string;
beforeAll(async () => {
  launched = await launchBrowser();
  browser = launched.context;
  server = await startTestServer({ PING_TIMEOUT_MS: '2000' });
  target = http.createServer((_req, res) => res.writeHead(200).end());
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  pingUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
}, 120_000);
afterAll(async () => {
  await launched?.close();
  await server?.stop();
  await new Promise((resolve) => target?.close(resolve));
});

/** A page that talks to the instance; the icon host and the embed host are served here; anything else is refused and noted. */
async function openPage(width = 1280): Promise<{ page: Page; offsite: string[]; errors: string[]; dialogs: string[] }> {
  const page = await browser!.newPage();
  await page.setViewportSize({ width, height: 900 });
  const origin = new URL(server.directUrl).origin;
  const offsite: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:')) return route.continue();
    if (url === 'https://icons.example.com/good.png') return route.fulfill({ status: 200, contentType: 'image/png', body: png });
    if (url.startsWith('https://icons.example.com/')) return route.fulfill({ status: 404, body: '' });
    if (url.startsWith('https://embed.example.com/')) return route.fulfill({ status: 200, contentType: 'text/html', body: '<p>embedded</p>' });
    offsite.push(url);
    return route.abort();
  });
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('dialog', (dialog) => (dialogs.push(dialog.message()), void dialog.dismiss()));
  return { page, offsite, errors, dialogs };
}

async function seed() {
  const app = async (fields: Record<string, unknown>) =>
    expectOk(await server.call('POST', '/api/apps', { body: { name: unique('App'), iconUrl: 'https://icons.example.com/good.png', ...fields } }), 201).appId as string;
  const good = await app({ name: unique('Jellyfin'), href: 'https://media.example.com/web', description: `${xss} Films`, pingUrl });
  const broken = await app({ name: `${xss}${unique('Nas')}`, iconUrl: 'https://icons.example.com/missing.png', href: 'https://nas.example.com' });
  // An app row written past the API's address rules (APP-6), as an old or hand-edited database could hold: the page
  // checks addresses again before it sets them.
  const forged = unique('forged');
  await server.db('apps').insert({ id: forged, name: unique('Forged'), iconUrl: 'javascript:window.__xss=30', href: ' JavaScript:window.__xss=31' });
  const { integrationId } = expectOk(await server.call('POST', '/api/integrations', { body: { name: unique('pihole-secret-name'), kind: 'mock', url: 'http://127.0.0.1:1' } }), 201);
  const name = unique('widgets-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: true } }), 201);
  const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const [layout, section] = [doc.layouts[0].id, doc.sections[0].id];
  const ids = { app: unique('app'), broken: unique('appb'), bookmarks: unique('bm'), clock: unique('clock'), notebook: unique('note'), iframe: unique('frame'), badFrame: unique('badframe'), weather: unique('weather'), dns: unique('dns') };
  const at = (x: number, y: number, w = 2, h = 2) => [position(layout, section, x, y, w, h)];
  expectOk(
    await server.call('PUT', `/api/boards/${boardId}`, {
      body: {
        sections: doc.sections,
        items: [
          item(ids.app, at(0, 0), { kind: 'app', options: { appId: good, openInNewTab: true, descriptionDisplayMode: 'normal', pingEnabled: true } }),
          item(ids.broken, at(2, 0), { kind: 'app', options: { appId: broken, openInNewTab: false } }),
          item(ids.bookmarks, at(4, 0, 4, 2), { kind: 'bookmarks', options: { title: `${xss} Links`, layout: 'row', items: [good, broken, 'no-such-app', forged] } }),
          item(ids.clock, at(8, 0), {
            kind: 'clock',
            options: { customTitleToggle: true, customTitle: `${xss} Tokyo`, is24HourFormat: true, showSeconds: true, useCustomTimezone: true, timezone: 'Asia/Tokyo', showDate: true, dateFormat: 'DD/MM/YYYY' },
          }),
          item(ids.notebook, at(0, 2, 6, 4), { kind: 'notebook', options: { content: `# Plans\n\n**bold** and [docs](https://docs.example.com)\n\n- one\n- two\n\n${notebookXss}` } }),
          item(ids.iframe, at(6, 2, 4, 2), { kind: 'iframe', options: { embedUrl: 'https://embed.example.com/panel', allowFullScreen: true, allowCamera: true } }),
          item(ids.badFrame, at(10, 2), { kind: 'iframe', options: { embedUrl: 'javascript:window.__xss=20' } }),
          item(ids.weather, at(6, 4), { kind: 'stockPrice', options: {} }),
          item(ids.dns, at(8, 4), { kind: 'dnsHoleSummary', options: { title: `${xss} Pi-hole` }, integrationIds: [integrationId] }),
        ],
      },
    }),
  );
  return { name, good, broken, ids, integrationId };
}

const tile = (page: Page, id: string) => page.locator(`.tile[data-item-id="${id}"]`);

describe('board page widgets (VIEW-1..6)', () => {
  let board: Awaited<ReturnType<typeof seed>>;
  let opened: Awaited<ReturnType<typeof openPage>>;
  let response: Awaited<ReturnType<Page['goto']>>;
  beforeAll(async () => {
    board = await seed();
    opened = await openPage();
    response = await opened.page.goto(`${server.directUrl}/boards/${board.name}`);
    await opened.page.waitForSelector(`.tile[data-item-id="${board.ids.dns}"]`);
  }, 60_000);
  afterAll(() => opened?.page.close());

  it('VIEW-5: the policy widens images to https: and frames to the iframe widget origin only; script stays the instance own', () => {
    const policy = response!.headers()['content-security-policy'];
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("img-src 'self' data: https:");
    expect(policy).toContain('frame-src https://embed.example.com');
    expect(policy).not.toMatch(/frame-src[^;]*javascript/);
  });

  it('VIEW-1 app: the icon, the name, the description as text, the link in a new tab, the ping dot from the server', async () => {
    const { page } = opened;
    const app = tile(page, board.ids.app);
    await app.locator('img.icon').evaluate((img: any) => img.complete || new Promise((resolve) => img.addEventListener('load', resolve)));
    expect(await app.locator('img.icon').getAttribute('src')).toBe('https://icons.example.com/good.png');
    expect(await app.locator('img.icon').evaluate((img: any) => img.naturalWidth)).toBe(1);
    const link = app.locator('a.app-link');
    expect(await link.getAttribute('href')).toBe('https://media.example.com/web');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await app.locator('.app-description').innerText()).toBe(`${xss} Films`);
    await page.waitForSelector(`.tile[data-item-id="${board.ids.app}"] .ping[data-state="up"]`);
    // PING-7: the page is viewed anonymously here: up or down, never the status code.
    expect(await app.locator('.ping').getAttribute('title')).toBe('Up');
  });

  it('VIEW-1 app: an icon that fails to load becomes a letter badge; the link opens in the same tab when asked', async () => {
    const { page } = opened;
    const broken = tile(page, board.ids.broken);
    await page.waitForSelector(`.tile[data-item-id="${board.ids.broken}"] .icon.letter`);
    expect(await broken.locator('img').count()).toBe(0);
    expect(await broken.locator('.icon.letter').innerText()).toBe('<');
    expect(await broken.locator('.app-name').innerText()).toContain(xss);
    expect(await broken.locator('a.app-link').getAttribute('href')).toBe('https://nas.example.com');
    expect(await broken.locator('a.app-link').getAttribute('target')).toBeNull();
  });

  it('VIEW-1, VIEW-2 bookmarks: the readable apps as links with icons, in the chosen layout, with the title as text; a missing app "not available"', async () => {
    const bookmarks = tile(opened.page, board.ids.bookmarks);
    expect(await bookmarks.locator('.widget-title').innerText()).toBe(`${xss} Links`);
    expect(await bookmarks.locator('.bookmarks').getAttribute('class')).toContain('layout-row');
    const links = bookmarks.locator('a.bookmark');
    expect(await links.count()).toBe(2);
    expect(await bookmarks.locator('.bookmark.unavailable').allInnerTexts()).toEqual(['Not available']);
    // The forged app (javascript: link and icon) is drawn without a link and with its letter.
    expect(await bookmarks.locator('div.bookmark .icon.letter').count()).toBe(1);
    expect(await links.evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.getAttribute('target')]))).toEqual([
      ['https://media.example.com/web', '_blank'],
      ['https://nas.example.com', '_blank'],
    ]);
    expect(await bookmarks.locator('a.bookmark').first().locator('.bookmark-host').innerText()).toBe('media.example.com');
    expect(await bookmarks.locator('img[src="https://icons.example.com/good.png"]').count()).toBe(1);
  });

  it('VIEW-1 clock: live time in the item timezone with seconds, its date format and custom title', async () => {
    const clock = tile(opened.page, board.ids.clock);
    expect(await clock.locator('.widget-title').innerText()).toBe(`${xss} Tokyo`);
    const first = await clock.locator('.clock-time').innerText();
    expect(first).toMatch(/^\d\d:\d\d:\d\d$/);
    // The text changes (polled; nothing asserts how fast).
    await opened.page.waitForFunction(
      ([id, before]) => (globalThis as any).document.querySelector(`.tile[data-item-id="${id}"] .clock-time`)?.textContent !== before,
      [board.ids.clock, first] as const,
      { polling: 200, timeout: 10_000 },
    );
    const tokyo = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', day: '2-digit', month: '2-digit', year: 'numeric' }).format(new Date());
    const hour = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', hour: '2-digit', hourCycle: 'h23' }).format(new Date());
    expect([tokyo]).toContain(await clock.locator('.clock-date').innerText());
    expect((await clock.locator('.clock-time').innerText()).slice(0, 2)).toBe(hour.padStart(2, '0'));
  });

  it('VIEW-1, VIEW-3 notebook: markdown as elements; every payload of the XSS list inert', async () => {
    const { page } = opened;
    const note = tile(page, board.ids.notebook).locator('.notebook-content');
    // The markdown renderer is a script of its own, loaded because the board shows a notebook.
    await page.waitForSelector(`.tile[data-item-id="${board.ids.notebook}"] .notebook-content:not([data-pending]) h1`);
    expect(await note.locator('h1').innerText()).toBe('Plans');
    expect(await note.locator('strong').innerText()).toBe('bold');
    expect(await note.locator('li').count()).toBe(2);
    expect(await note.locator('a[href="https://docs.example.com"]').getAttribute('rel')).toBe('noopener noreferrer');
    const found = await note.evaluate((root: any) => {
      const all: any[] = Array.from(root.querySelectorAll('*'));
      return {
        dangerous: all.filter((e) => ['SCRIPT', 'IFRAME', 'SVG', 'svg', 'MATH', 'math', 'FORM', 'OBJECT', 'EMBED', 'STYLE', 'INPUT', 'BUTTON'].includes(e.tagName)).map((e) => e.tagName),
        handlers: all.flatMap((e) => Array.from(e.attributes as any[]).filter((a: any) => a.name.toLowerCase().startsWith('on')).map((a: any) => `${e.tagName} ${a.name}`)),
        styles: all.filter((e) => e.hasAttribute('style')).length,
        badUrls: all.flatMap((e) => ['href', 'src', 'action', 'data'].map((n) => e.getAttribute(n) ?? '').filter((v) => /^\s*(javascript|data:text|vbscript)/i.test(v.replace(/[\s\u0000-\u001f]/g, '')))),
      };
    });
    expect(found).toEqual({ dangerous: [], handlers: [], styles: 0, badUrls: [] });
    expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined();
  });

  it('VIEW-1, VIEW-4 iframe: sandboxed with the options permissions; a non-http(s) address is a labelled placeholder', async () => {
    const frame = tile(opened.page, board.ids.iframe).locator('iframe');
    expect(await frame.getAttribute('src')).toBe('https://embed.example.com/panel');
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox');
    expect(await frame.getAttribute('allow')).toBe('fullscreen; camera');
    const bad = tile(opened.page, board.ids.badFrame);
    expect(await bad.locator('iframe').count()).toBe(0);
    expect(await bad.locator('.widget-title').innerText()).toBe('Iframe');
  });

  it('VIEW-6: other kinds are labelled placeholders with their title, never a bare kind name', async () => {
    const weather = tile(opened.page, board.ids.weather);
    expect(await weather.locator('.widget-title').innerText()).toBe('Stock price');
    expect(await weather.getAttribute('aria-label')).toBe('Stock price');
    expect(await weather.locator('.placeholder-note').innerText()).toBe('Shows data this page does not fetch.');
    const dns = tile(opened.page, board.ids.dns);
    expect(await dns.locator('.widget-title').innerText()).toBe('DNS hole summary');
    expect(await dns.locator('.widget-subtitle').innerText()).toBe(`${xss} Pi-hole`);
    // The anonymous viewer may not list integrations: the tile counts them, never shows their ids (or names).
    expect((await server.call('GET', '/api/integrations', { key: null })).status).not.toBe(200);
    expect(await dns.locator('.integrations').innerText()).toBe('1 integration');
    expect(await dns.innerText()).not.toContain(board.integrationId);
    for (const id of Object.values(board.ids)) expect(['app', 'bookmarks', 'clock', 'notebook', 'iframe', 'stockPrice', 'dnsHoleSummary']).not.toContain((await tile(opened.page, id).innerText()).trim());
  });

  it('VIEW-3: no payload ran anywhere on the page: no dialog, no page error, no request off the instance but the icon and embed hosts', async () => {
    expect(await opened.page.evaluate(() => (globalThis as any).__xss)).toBeUndefined();
    // A sanitized `<img src=x>` may stay (an image of the instance), never with its handler: no element holds one.
    const handlers = await opened.page.locator('#app *').evaluateAll((all: any[]) => all.flatMap((e: any) => Array.from(e.attributes as any[]).filter((a: any) => a.name.startsWith('on')).map((a: any) => a.name)));
    expect(handlers).toEqual([]);
    expect(await opened.page.locator('#app [href*="script:" i], #app [src*="script:" i]').count()).toBe(0);
    expect(opened.dialogs).toEqual([]);
    expect(opened.errors).toEqual([]);
    expect(opened.offsite).toEqual([]);
  });
});

it('VIEW-3: a board without a notebook never loads the markdown script', async () => {
  const name = unique('plain-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: true } }), 201);
  const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const clock = unique('clock');
  expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections: doc.sections, items: [item(clock, [position(doc.layouts[0].id, doc.sections[0].id)])] } }));
  const { page } = await openPage();
  const requested: string[] = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  await page.goto(`${server.directUrl}/boards/${name}`);
  await page.waitForSelector(`.tile[data-item-id="${clock}"] .clock-time`);
  expect(requested).toContain('/assets/board.js');
  expect(requested).not.toContain('/assets/markdown.js');
  await page.close();
});

it('VIEW-7: an iframe widget far below the window gets its frame only when scrolled near; one in view gets it at once', async () => {
  const name = unique('frames-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: true } }), 201);
  const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const [near, far] = [unique('near'), unique('far')];
  const frame = { kind: 'iframe', options: { embedUrl: 'https://embed.example.com/panel' } };
  const at = (y: number) => [position(doc.layouts[0].id, doc.sections[0].id, 0, y, 4, 2)];
  expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections: doc.sections, items: [item(near, at(0), frame), item(far, at(400), frame)] } }));
  const { page, offsite } = await openPage();
  await page.goto(`${server.directUrl}/boards/${name}`);
  await page.locator(`.tile[data-item-id="${near}"] iframe`).waitFor();
  expect(await tile(page, near).locator('.embed-slot').count()).toBe(0);
  expect(await tile(page, far).locator('iframe').count()).toBe(0);
  expect(await tile(page, far).locator('.embed-slot').count()).toBe(1);
  await tile(page, far).scrollIntoViewIfNeeded();
  const farFrame = tile(page, far).locator('iframe');
  await farFrame.waitFor();
  expect(await farFrame.getAttribute('src')).toBe('https://embed.example.com/panel');
  expect(await farFrame.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox');
  expect(offsite).toEqual([]);
  await page.close();
});

describe('VIEW-1, VIEW-2, VIEW-4: the other options, on a second board', () => {
  it('app without title, description as tooltip, row layout; bookmarks without title, icon or host in the same tab as a grid, horizontal grid; a frame without scrolling; an app the viewer may not read is "not available"', async () => {
    // Written by a user who may not use the admin's app: the public board does not make it readable (APP-3).
    const writer = await createActor(server, { permissions: ['board-create', 'app-create'] });
    const own = expectOk(await server.call('POST', '/api/apps', { key: writer.key, body: { name: unique('Grafana'), href: 'https://grafana.example.com/d', iconUrl: 'https://icons.example.com/good.png', description: 'Dashboards' } }), 201).appId as string;
    const secretName = unique('SecretVault');
    const secret = expectOk(await server.call('POST', '/api/apps', { body: { name: secretName, href: 'https://vault.example.com', iconUrl: 'https://icons.example.com/good.png' } }), 201).appId as string;
    const name = unique('options-');
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { key: writer.key, body: { name, columnCount: 12, isPublic: true } }), 201);
    const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`, { key: writer.key }));
    const at = (x: number, y: number, w = 2, h = 2) => [position(doc.layouts[0].id, doc.sections[0].id, x, y, w, h)];
    const ids = { bare: unique('bare'), hidden: unique('hidden'), grid: unique('grid'), horizontal: unique('hgrid'), frame: unique('frame') };
    expectOk(
      await server.call('PUT', `/api/boards/${boardId}`, {
        key: writer.key,
        body: {
          sections: doc.sections,
          items: [
            item(ids.bare, at(0, 0), { kind: 'app', options: { appId: own, showTitle: false, descriptionDisplayMode: 'tooltip', layout: 'row' } }),
            item(ids.hidden, at(2, 0), { kind: 'app', options: { appId: secret } }),
            item(ids.grid, at(4, 0, 4, 2), { kind: 'bookmarks', options: { title: 'Not shown', hideTitle: true, hideIcon: true, hideHostname: true, openNewTab: false, layout: 'grid', items: [own, secret] } }),
            item(ids.horizontal, at(8, 0, 4, 2), { kind: 'bookmarks', options: { title: 'Shown', layout: 'gridHorizontal', items: [own] } }),
            item(ids.frame, at(0, 2, 4, 2), { kind: 'iframe', options: { embedUrl: 'https://embed.example.com/panel', allowScrolling: false } }),
          ],
        },
      }),
    );
    const { page, errors, offsite } = await openPage();
    await page.goto(`${server.directUrl}/boards/${name}`);
    await page.locator(`.tile[data-item-id="${ids.frame}"] iframe`).waitFor();

    const bare = tile(page, ids.bare);
    expect(await bare.locator('.app-name').count()).toBe(0);
    expect(await bare.locator('.app-description').count()).toBe(0);
    expect(await bare.locator('a.app-link').getAttribute('title')).toBe('Dashboards');
    expect(await bare.locator('a.app-link').getAttribute('class')).toContain('layout-row');
    expect(await bare.locator('img.icon').getAttribute('src')).toBe('https://icons.example.com/good.png');

    const hidden = tile(page, ids.hidden);
    expect(await hidden.locator('.placeholder-note').innerText()).toBe('This app is not available to you.');
    expect(await hidden.locator('a').count()).toBe(0);

    const grid = tile(page, ids.grid);
    expect(await grid.locator('.widget-title').count()).toBe(0);
    expect(await grid.locator('.bookmarks').getAttribute('class')).toContain('layout-grid');
    expect(await grid.locator('.icon, img').count()).toBe(0);
    expect(await grid.locator('.bookmark-host').count()).toBe(0);
    expect(await grid.locator('a.bookmark').evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.getAttribute('target')]))).toEqual([['https://grafana.example.com/d', null]]);
    expect(await grid.locator('.bookmark.unavailable').allInnerTexts()).toEqual(['Not available']);

    const horizontal = tile(page, ids.horizontal);
    expect(await horizontal.locator('.widget-title').innerText()).toBe('Shown');
    expect(await horizontal.locator('.bookmarks').getAttribute('class')).toContain('layout-gridHorizontal');
    expect(await horizontal.locator('a.bookmark').getAttribute('target')).toBe('_blank');
    expect(await horizontal.locator('.bookmark-host').innerText()).toBe('grafana.example.com');

    expect(await tile(page, ids.frame).locator('iframe').getAttribute('scrolling')).toBe('no');
    // The unreadable app's name is nowhere on the page.
    expect(await page.locator('#app').innerText()).not.toContain(secretName);
    expect(errors).toEqual([]);
    expect(offsite).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('PAGE-2, PING-5: live changes', () => {
  it('a pinged app added live gets its dot from the server; an unrelated change does not reload an iframe; a 429 from the status operation is retried after its Retry-After', async () => {
    const name = unique('live-');
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: true } }), 201);
    const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
    const at = (x: number) => [position(doc.layouts[0].id, doc.sections[0].id, x, 0, 2, 2)];
    const [frame, clock, pinged] = [unique('frame'), unique('clock'), unique('pinged')];
    const frameItem = item(frame, at(0), { kind: 'iframe', options: { embedUrl: 'https://embed.example.com/live' } });
    expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections: doc.sections, items: [frameItem, item(clock, at(4))] } }));
    const { page, errors } = await openPage();
    let frameLoads = 0;
    page.on('request', (request) => void (request.url() === 'https://embed.example.com/live' && frameLoads++));
    // The first status answer is a 429 with Retry-After: 1; the page asks again (before the fix it stopped for good).
    const statusAnswers: number[] = [];
    await page.route('**/apps/status', async (route) => {
      if (statusAnswers.length === 0) {
        statusAnswers.push(429);
        return route.fulfill({ status: 429, headers: { 'Retry-After': '1', 'Content-Type': 'application/json' }, body: '{"message":"Too many requests"}' });
      }
      statusAnswers.push(200);
      return route.continue();
    });
    await page.goto(`${server.directUrl}/boards/${name}`);
    await page.locator(`.tile[data-item-id="${frame}"] iframe`).waitFor();
    await page.locator(`.tile[data-item-id="${frame}"] iframe`).evaluate((element: any) => (element.__kept = true));
    expect(frameLoads).toBe(1);

    // Live: an app with pingEnabled joins the board (the board had none at load).
    const app = expectOk(await server.call('POST', '/api/apps', { body: { name: unique('Pinged'), href: 'https://pinged.example.com', iconUrl: 'https://icons.example.com/good.png', pingUrl } }), 201).appId as string;
    expectOk(
      await server.call('PUT', `/api/boards/${boardId}`, {
        body: { sections: doc.sections, items: [frameItem, item(clock, at(4)), item(pinged, at(8), { kind: 'app', options: { appId: app, pingEnabled: true } })] },
      }),
    );
    await page.waitForSelector(`.tile[data-item-id="${pinged}"] .ping[data-state="up"]`, { timeout: 15_000 });
    expect(statusAnswers).toEqual([429, 200]);
    // The iframe's element is the one drawn first and its address was requested once.
    expect(await page.locator(`.tile[data-item-id="${frame}"] iframe`).evaluate((element: any) => element.__kept === true)).toBe(true);
    expect(frameLoads).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});

/** Text vectors: each goes through every text option the page shows; none may run or become markup. */
const textVectors = [
  '<script>window.__xss=101</script>',
  '<img src=x onerror="window.__xss=102">',
  '"><svg onload="window.__xss=103">',
  "'><iframe src=\"javascript:window.__xss=104\"></iframe>",
  '<a href="javascript:window.__xss=105">link</a>',
  '{{constructor.constructor("window.__xss=106")()}}',
  '<details open ontoggle="window.__xss=107">d</details>',
  '<style>@import "https://evil.example.com/x.css";</style>',
];
/** Address vectors: each goes through every address option; none may become a script, data or off-site address. */
const urlVectors = [
  'javascript:window.__xss=201',
  ' JaVaScRiPt:window.__xss=202',
  '&#106;avascript:window.__xss=203',
  'java\tscript:window.__xss=204',
  'data:text/html,<script>window.__xss=205</script>',
  '//evil.example.com/x',
  'vbscript:msgbox(206)',
];
const cssVector = [
  '@import url("https://evil.example.com/x.css");',
  'body { background: url("javascript:window.__xss=301"); }',
  '.tile { background-image: expression(window.__xss=302); behavior: url(x.htc); }',
  '</style><script>window.__xss=303</script>',
].join('\n');

describe('VIEW-1, VIEW-3, NAV-6: the XSS list through every rendered option', () => {
  it('text vectors in app name and description (normal and tooltip), bookmarks title, clock title and custom formats, placeholder title, page title; address vectors in app icon and link, bookmark links, iframe address, background image; custom CSS: nothing runs, every address refused or on the instance', async () => {
    const apps: { id: string; text: string | null }[] = [];
    for (const [i, vector] of textVectors.entries()) {
      const id = unique('xt');
      await server.db('apps').insert({ id, name: vector, description: vector, iconUrl: 'https://icons.example.com/good.png', href: `https://media.example.com/${i}` });
      apps.push({ id, text: vector });
    }
    for (const [i, vector] of urlVectors.entries()) {
      const id = unique('xu');
      // Written past the API's address rules (APP-6), as a hand-edited database could hold.
      await server.db('apps').insert({ id, name: `Address ${i}`, iconUrl: vector, href: vector, pingUrl: vector });
      apps.push({ id, text: null });
    }
    const name = unique('xss-');
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: true } }), 201);
    const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
    let y = 0;
    const next = () => [position(doc.layouts[0].id, doc.sections[0].id, 0, y++, 2, 1)];
    const items = [
      ...apps.map((app, i) => item(unique('a'), next(), { kind: 'app', options: { appId: app.id, descriptionDisplayMode: i % 2 ? 'tooltip' : 'normal', pingEnabled: true } })),
      ...textVectors.flatMap((vector) => [
        item(unique('b'), next(), { kind: 'bookmarks', options: { title: vector, layout: 'column', items: apps.map((app) => app.id) } }),
        item(unique('c'), next(), { kind: 'clock', options: { customTitleToggle: true, customTitle: vector, customTimeFormat: vector, customDateFormat: vector, showDate: true } }),
        item(unique('p'), next(), { kind: 'stockPrice', options: { title: vector } }),
      ]),
      ...urlVectors.map((vector) => item(unique('f'), next(), { kind: 'iframe', options: { embedUrl: vector } })),
    ];
    expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections: doc.sections, items } }));
    expectOk(await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { pageTitle: textVectors.join(' '), metaTitle: textVectors.join(' '), customCss: cssVector, backgroundImageUrl: urlVectors[0] } }), 204);

    const { page, errors, dialogs, offsite } = await openPage();
    const origin = new URL(server.directUrl).origin;
    await page.goto(`${server.directUrl}/boards/${name}`);
    await page.waitForSelector('.tile .clock-time');
    // Every text vector is shown as text where the page shows it.
    expect(await page.locator('header h1').innerText()).toBe(textVectors.join(' '));
    expect(await page.title()).toBe(textVectors.join(' '));
    const shown = await page.locator('#app').innerText();
    for (const vector of textVectors) expect(shown).toContain(vector);
    expect(await page.locator('.app-description').allInnerTexts()).toEqual(textVectors.filter((_, i) => i % 2 === 0));
    expect(await page.locator('a.app-link[title]').evaluateAll((as) => as.map((a) => a.getAttribute('title')))).toEqual(textVectors.filter((_, i) => i % 2 === 1));
    // The custom CSS is linked as the instance's style sheet (so the CSP governs it) and loaded.
    expect(await page.locator('link#custom-css').evaluate((link: any) => link.sheet !== null && link.href.startsWith(`${(globalThis as any).location.origin}/boards/`))).toBe(true);
    // No iframe: every embed address was refused and shows the placeholder.
    expect(await page.locator('#app iframe').count()).toBe(0);

    // The background image, live, through each address vector: never set unless it is an http(s) address.
    for (const vector of urlVectors) {
      expectOk(await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { backgroundImageUrl: vector, pageTitle: `bg ${vector}` } }), 204);
      await page.waitForFunction((title) => (globalThis as any).document.querySelector('header h1')?.textContent === title, `bg ${vector}`);
      const background = await page.evaluate(() => (globalThis as any).document.body.style.backgroundImage as string);
      expect(background === '' || /^url\("https?:\/\//.test(background)).toBe(true);
      expect(background).not.toMatch(/javascript|data:|vbscript/i);
    }

    const found = await page.evaluate(() => {
      const all: any[] = Array.from((globalThis as any).document.querySelectorAll('#app *'));
      return {
        dangerous: all.filter((e) => ['SCRIPT', 'IFRAME', 'svg', 'SVG', 'DETAILS', 'STYLE', 'OBJECT', 'EMBED', 'FORM'].includes(e.tagName) && !e.closest('.topbar')).map((e) => e.tagName),
        handlers: all.flatMap((e) => Array.from(e.attributes as any[]).filter((a: any) => a.name.toLowerCase().startsWith('on')).map((a: any) => `${e.tagName} ${a.name}`)),
        addresses: all.flatMap((e) => ['href', 'src'].filter((n) => e.hasAttribute(n)).map((n) => e[n] as string)),
      };
    });
    expect(found.dangerous).toEqual([]);
    expect(found.handlers).toEqual([]);
    // Every link and image left is http(s): on the instance (a relative address), or the icon and media hosts.
    for (const address of found.addresses) {
      const url = new URL(address);
      expect(['http:', 'https:']).toContain(url.protocol);
      expect([origin, 'https://icons.example.com', 'https://media.example.com']).toContain(url.origin);
    }
    expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    expect(offsite).toEqual([]);
    await page.close();
  }, 90_000);
});

describe('VIEW-5: the policy of each page, over HTTP', () => {
  const directives = (policy: string | null) => new Map((policy ?? '').split(';').map((d) => d.trim()).filter(Boolean).map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')] as const));
  const policyOf = async (path: string, status: number) => {
    const response = await fetch(`${server.directUrl}${path}`);
    expect(response.status).toBe(status);
    return directives(response.headers.get('content-security-policy'));
  };
  const boardWith = async (items: { kind: string; options: Record<string, unknown> }[]) => {
    const name = unique('csp-');
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: true } }), 201);
    const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
    const at = (y: number) => [position(doc.layouts[0].id, doc.sections[0].id, 0, y)];
    expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections: doc.sections, items: items.map((it, y) => item(unique('i'), at(y), it)) } }));
    return name;
  };

  it('the 404 page: images from the instance and data: only (no https:), no frame source (default-src none)', async () => {
    const policy = await policyOf(`/boards/${unique('missing-')}`, 404);
    expect(policy.get('default-src')).toBe("'none'");
    expect(policy.get('img-src')).toBe("'self' data:");
    expect(policy.has('frame-src')).toBe(false);
    expect(policy.has('child-src')).toBe(false);
  });

  it('a board without iframes (one with an unusable embed address): no frame source; a board with iframes: exactly their origins', async () => {
    const plain = await policyOf(`/boards/${await boardWith([{ kind: 'clock', options: {} }, { kind: 'iframe', options: { embedUrl: 'javascript:alert(1)' } }])}`, 200);
    expect(plain.get('default-src')).toBe("'none'");
    expect(plain.has('frame-src')).toBe(false);
    expect(plain.has('child-src')).toBe(false);
    const framed = await boardWith([
      { kind: 'iframe', options: { embedUrl: 'https://b.example.com/one?x=1' } },
      { kind: 'iframe', options: { embedUrl: 'https://b.example.com/two' } },
      { kind: 'iframe', options: { embedUrl: 'http://a.example.com:8080/panel' } },
      { kind: 'iframe', options: { embedUrl: 'data:text/html,<script>1</script>' } },
    ]);
    expect((await policyOf(`/boards/${framed}`, 200)).get('frame-src')).toBe('http://a.example.com:8080 https://b.example.com');
  });
});
