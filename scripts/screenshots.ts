/**
 * npm run screenshots: the board page as a start page at desktop (1280 px) and phone (390 px) widths, written to
 * docs/images/ (docs/board-page.md shows them). A script, not a test: it starts the service on an in-memory
 * embedded database, seeds a start-page board (apps, bookmarks, a clock, a notebook, an iframe, two
 * categories) and photographs the page as an anonymous visitor (the board is public) in headless Chromium
 * (/usr/bin/chromium or CHROMIUM_PATH). The iframe embeds a small status page this script serves on another port of
 * 127.0.0.1 (another origin, as VIEW-4 asks), so the picture shows an embedded page, not a refused frame.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pino from 'pino';
import type { Page } from 'playwright-core';
import { loadConfig } from '../src/config/config';
import { converters } from '../src/convert';
import { fixtureInput } from '../test/convert/support';
import { createDatabase } from '../src/db/database';
import { startServer } from '../src/server';
import { launchBrowser } from '../test/support/browser';

const out = path.resolve(__dirname, '../docs/images');
const forecast = readFileSync(path.resolve(__dirname, '../test/widgets/live/fixtures/open-meteo-forecast.json'), 'utf8');
const adminKey = 'shots0000001.' + 'a'.repeat(48);

const statusPage = `<!doctype html><meta charset="utf-8"><style>body{font:13px system-ui,sans-serif;margin:8px 12px;color:#1f2328}h2{font-size:14px;margin:0 0 4px}li{list-style:none;margin:2px 0}li::before{content:"";display:inline-block;width:9px;height:9px;border-radius:50%;background:#1a7f37;margin-right:8px}li.warn::before{background:#bf8700}</style>
<h2>Services: 4 up, 1 slow</h2><ul style="padding:0;margin:0"><li>Jellyfin: 12 ms</li><li>Home Assistant: 8 ms</li><li>Nextcloud: 31 ms</li><li class="warn">Paperless: 2.4 s</li></ul>`;

const icon = (letter: string, color: string) =>
  `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="${color}"/><text x="32" y="43" font-size="30" font-family="sans-serif" text-anchor="middle" fill="#fff">${letter}</text></svg>`)}`;

/** Every live tile has drawn its first answer (LIVEVIEW-1: no "Loading…" left). */
const liveDrawn = (page: Page) => page.waitForFunction(() => !(globalThis as any).document.querySelector('.live[aria-busy="true"]'), undefined, { timeout: 60_000 });

async function main(): Promise<void> {
  // This machine is offline: the weather tiles read a local stand-in for Open-Meteo serving the recorded answer the
  // live tests use (test/widgets/live/fixtures/open-meteo-forecast.json), on the port of the embedded status page.
  const embed = http.createServer((req, res) =>
    req.url?.startsWith('/v1/forecast')
      ? res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(forecast)
      : res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(statusPage),
  );
  await new Promise<void>((resolve) => embed.listen(0, '127.0.0.1', resolve));
  const embedOrigin = `http://127.0.0.1:${(embed.address() as AddressInfo).port}`;
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', OPEN_METEO_URL: embedOrigin }), port: 0, host: '127.0.0.1', bootstrapAdminApiKey: adminKey, bootstrapAdminPassword: 'screenshots-pass' };
  const server = await startServer(config, { db: createDatabase({ databaseUrl: null, pgliteDir: null }), logger: pino({ level: 'silent' }) });
  const call = async (method: string, p: string, body?: unknown) => {
    const response = await fetch(server.url + p, { method, headers: { ApiKey: adminKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${p}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const embedUrl = `${embedOrigin}/status`;
  const launched = await launchBrowser();
  try {
    const apps: string[] = [];
    for (const [name, href, color] of [
      ['Jellyfin', 'https://media.home.example', '#7b2cbf'],
      ['Home Assistant', 'https://ha.home.example', '#1e88e5'],
      ['Nextcloud', 'https://cloud.home.example', '#0082c9'],
      ['Grafana', 'https://grafana.home.example', '#f46800'],
      ['Paperless', 'https://docs.home.example', '#17541f'],
    ]) {
      apps.push((await call('POST', '/api/apps', { name, href, iconUrl: icon(name[0], color), description: `${name} on the home server` })).appId);
    }
    const { boardId } = await call('POST', '/api/boards', { name: 'home-lab', columnCount: 4, isPublic: true });
    const start = await call('GET', `/api/boards/${boardId}`);
    await call('PATCH', `/api/boards/${boardId}/layouts`, { layouts: [...start.layouts, { id: 'desktop', name: 'Desktop', columnCount: 12, breakpoint: 1000 }] });
    await call('PATCH', `/api/boards/${boardId}/settings`, { pageTitle: 'Home lab', metaTitle: 'Home lab · Tessera', primaryColor: '#2f6feb', secondaryColor: '#8250df', opacity: 90, itemRadius: 'lg' });
    await call('POST', '/api/boards', { name: 'office', columnCount: 4, isPublic: true });
    const doc = await call('GET', `/api/boards/${boardId}`);
    const [base, desktop] = doc.layouts;
    const top = doc.sections[0].id;
    const media = { id: 'sec-media', kind: 'category', name: 'Media and files', yOffset: 1, xOffset: 0, collapsed: false };
    const admin = { id: 'sec-admin', kind: 'category', name: 'Administration', yOffset: 2, xOffset: 0, collapsed: false };
    const at = (section: string, b: [number, number, number, number], d: [number, number, number, number]) => [
      { layoutId: base.id, sectionId: section, xOffset: b[0], yOffset: b[1], width: b[2], height: b[3] },
      { layoutId: desktop.id, sectionId: section, xOffset: d[0], yOffset: d[1], width: d[2], height: d[3] },
    ];
    const item = (id: string, kind: string, options: Record<string, unknown>, layouts: unknown[]) => ({ id, kind, options, integrationIds: [], advancedOptions: { title: null, customCssClasses: [], borderColor: '' }, layouts });
    await call('PUT', `/api/boards/${boardId}`, {
      sections: [doc.sections[0], media, admin],
      items: [
        item('clock', 'clock', { is24HourFormat: true, showSeconds: true, showDate: true, dateFormat: 'dddd, MMMM D' }, at(top, [0, 0, 2, 1], [0, 0, 3, 2])),
        item('notes', 'notebook', { content: '# Today\n\n- renew the TLS certificate\n- **backup** check' }, at(top, [2, 0, 2, 2], [3, 0, 4, 2])),
        item('bookmarks', 'bookmarks', { title: 'Daily', layout: 'column', items: apps.slice(0, 3) }, at(top, [0, 1, 2, 1], [7, 0, 3, 2])),
        ...apps.slice(0, 3).map((appId, i) => item(`app-${i}`, 'app', { appId, showDescriptionTooltip: true }, at(media.id, [i % 4, 0, 1, 1], [i * 2, 0, 2, 1]))),
        item('frame', 'iframe', { embedUrl }, at(media.id, [0, 1, 4, 2], [6, 0, 6, 2])),
        ...apps.slice(3).map((appId, i) => item(`admin-${i}`, 'app', { appId }, at(admin.id, [i, 0, 1, 1], [i * 2, 0, 2, 1]))),
        item('weather', 'weather', { location: { name: 'Berlin', latitude: 52.52, longitude: 13.405 }, hasForecast: false }, at(admin.id, [2, 0, 2, 1], [4, 0, 3, 1])),
      ],
    });
    await call('PATCH', `/api/boards/${boardId}/home`, {});

    mkdirSync(out, { recursive: true });
    const shoot = async (width: number, file: string, before?: (page: Page) => Promise<void>) => {
      const page = await launched.context.newPage();
      await page.setViewportSize({ width, height: width > 500 ? 800 : 844 });
      await page.goto(`${server.url}/boards/home-lab`);
      await page.evaluate(() => (globalThis as any).localStorage.clear()); // PAGE-9: details closed, as for a first visit
      await page.reload();
      await page.waitForSelector('.tile[data-item-id="clock"]');
      await page.waitForSelector('.topbar .boards-menu');
      await liveDrawn(page);
      await page.frameLocator('.tile[data-item-id="frame"] iframe').locator('h2').waitFor();
      if (before) await before(page);
      await page.screenshot({ path: path.join(out, file), fullPage: false });
      await page.close();
      console.log(`docs/images/${file}`);
    };
    await shoot(1280, 'board-desktop.png');
    await shoot(390, 'board-phone.png');
    await shoot(390, 'board-phone-details.png', async (page) => {
      await page.click('.details-toggle');
      await page.waitForSelector('#board-details .history .entry', { state: 'visible' });
    });
    await shoot(1280, 'board-menu-signin.png', async (page) => {
      await page.click('.topbar .boards-menu summary');
      await page.click('.topbar .signin summary');
    });
    await shootConverted(server.url, call, launched.context);
  } finally {
    await launched.close();
    await server.stop();
    embed.close();
  }
}

/**
 * The converted homepage fixture (test/convert/fixtures/homepage), imported as a public board and photographed at
 * 1440x900 and at phone width (390x844), in the light and the dark scheme. This machine is offline, so every icon the board names elsewhere is answered
 * with a stand-in: a coloured square with the first letter of the icon's file name.
 */
async function shootConverted(url: string, call: (method: string, p: string, body?: unknown) => Promise<any>, context: import('playwright-core').BrowserContext): Promise<void> {
  const { boards } = converters.homepage(fixtureInput('homepage'), {});
  const name = 'homepage-converted';
  await call('POST', '/api/boards/import', { ...boards[0], name, isPublic: true });
  const colors = ['#2f6feb', '#8250df', '#bf3989', '#1a7f37', '#bc4c00', '#0969da', '#cf222e', '#6639ba'];
  for (const [width, height, file, scheme] of [
    [1440, 900, 'homepage-desktop.png', 'light'],
    [390, 844, 'homepage-phone.png', 'light'],
    [1440, 900, 'homepage-desktop-dark.png', 'dark'],
    [390, 844, 'homepage-phone-dark.png', 'dark'],
  ] as const) {
    const page = await context.newPage();
    await page.setViewportSize({ width, height });
    await page.route('**/*', (route) => {
      const request = route.request();
      if (request.url().startsWith(url) || request.url().startsWith('data:')) return route.continue();
      if (request.resourceType() !== 'image') return route.abort();
      const base = new URL(request.url()).pathname.split('/').pop() ?? '?';
      const letter = (base.replace(/[^a-z]/gi, '')[0] ?? '?').toUpperCase();
      const color = colors[[...base].reduce((sum, c) => sum + c.charCodeAt(0), 0) % colors.length];
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="${color}"/><text x="32" y="43" font-size="30" font-family="sans-serif" text-anchor="middle" fill="#fff">${letter}</text></svg>`;
      return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: svg });
    });
    await page.goto(`${url}/boards/${name}`);
    // THEMEVIEW-1: the viewer's choice of scheme, as the page's control keeps it.
    await page.evaluate((chosen) => {
      (globalThis as any).localStorage.clear();
      (globalThis as any).localStorage.setItem('tessera.colorScheme', chosen);
    }, scheme);
    await page.reload();
    await page.waitForSelector('.tile.widget-app');
    await liveDrawn(page);
    await page.waitForFunction(() => Array.from((globalThis as any).document.querySelectorAll('img.icon')).every((img: any) => img.complete));
    await page.screenshot({ path: path.join(out, file), fullPage: false });
    await page.close();
    console.log(`docs/images/${file}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
