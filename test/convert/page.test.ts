/**
 * Converted boards on the board page (CONV-8; CONV-1, CONV-4, VIEW-1, VIEW-6), in one headless Chromium: each converter's
 * fixture (homepage, Dashy, Glance, old Homarr) is converted, imported into a fresh instance, and its boards are
 * opened as a signed-in person would. Asserted is what that person sees: every app tile with the icon `<img>` whose
 * `src` is the mapped icon URL (dashboard-icons, selfh.st, mdi, Simple Icons, Font Awesome under their base URLs,
 * configured ones for homepage), loaded, linking to the service's href; bookmarks as links; the widgets the page draws
 * drawn, the others labelled placeholders, and no tile showing a bare kind name. The page stays offline: every
 * image is answered by the test (a 1x1 PNG) and recorded, every frame by an empty document.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { bootstrapAdmin } from '../../src/identity/bootstrap';
import { converters } from '../../src/convert';
import { defaultIconBases, type IconBases } from '../../src/convert/icons';
import { launchBrowser, TestBrowser } from '../support/browser';
import { startTestServer, TestServer } from '../support/server';
import { expectOk } from '../boards-document/helpers';
import { fixtureInput, memoryInput } from './support';

const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/** homepage is converted with configured bases (`--icon-base`), the other three with the defaults. */
const configured: IconBases = {
  'dashboard-icons': 'https://icons.example.com/di',
  selfhst: 'https://icons.example.com/sh/',
  mdi: 'https://icons.example.com/mdi',
  'simple-icons': 'https://icons.example.com/si',
  'font-awesome': 'https://icons.example.com/fa',
};

/** Kinds a converter writes; none of these may be the text of a tile. */
const kinds = ['app', 'bookmarks', 'clock', 'weather', 'notebook', 'iframe', 'rssFeed', 'dockerContainers', 'calendar', 'dnsHoleSummary'];

let server: TestServer;
let launched: TestBrowser | undefined;
let browser: BrowserContext;
let page: Page;
const images: string[] = [];
const offsite: string[] = [];
const errors: string[] = [];

beforeAll(async () => {
  launched = await launchBrowser();
  browser = launched.context;
  server = await startTestServer();
  // The boards a converter writes are private (as the source dashboards' boards are to Tessera): the admin reads them.
  await bootstrapAdmin(server.db, { apiKey: null, password: 'convert-page-pass' });
  page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  const origin = new URL(server.directUrl).origin;
  await page.route('**/*', (route) => {
    const request = route.request();
    const url = request.url();
    if (url.startsWith(origin) || url.startsWith('data:')) return route.continue();
    // Images, and the board logo the board's web app manifest names (PWA-1), which Chromium reads as the manifest's icon.
    if (request.resourceType() === 'image' || /\.(png|svg|ico)$/.test(new URL(url).pathname)) return images.push(url), route.fulfill({ status: 200, contentType: 'image/png', body: png });
    if (request.frame() !== page.mainFrame()) return route.fulfill({ status: 200, contentType: 'text/html', body: '<p>embedded</p>' });
    offsite.push(url);
    return route.abort();
  });
  page.on('pageerror', (error) => errors.push(error.message));
  expect((await page.request.post(`${server.directUrl}/api/auth/login`, { data: { username: 'admin', password: 'convert-page-pass' } })).status()).toBe(200);
}, 120_000);
afterAll(async () => {
  await launched?.close();
  await server?.stop();
});

interface Shown {
  itemId: string;
  kind: string;
  text: string;
  label: string | null;
  img: { src: string; loaded: number } | null;
  letter: string | null;
  link: { href: string; target: string | null } | null;
}

/** Imports a fixture's boards and opens each; returns what every tile shows, with the board and its apps from the API. */
async function convertAndOpen(format: string, iconBases: IconBases = defaultIconBases, input = fixtureInput(format)) {
  const { boards } = converters[format](input, { iconBases });
  const opened = [];
  for (const file of boards) {
    expectOk(await server.call('POST', '/api/boards/import', { body: file }), 201);
    const board = expectOk(await server.call('GET', `/api/boards/by-name/${file.name}`));
    const apps = new Map<string, any>();
    for (const item of board.items.filter((i: any) => i.kind === 'app')) apps.set(item.id, expectOk(await server.call('GET', `/api/apps/${item.options.appId}`)));
    await page.goto(`${server.directUrl}/boards/${file.name}`);
    await page.waitForSelector(`.tile[data-item-id="${board.items[board.items.length - 1].id}"]`);
    // Every icon either loaded or became its letter badge.
    await page.waitForFunction(() => Array.from((globalThis as any).document.querySelectorAll('img.icon')).every((img: any) => img.complete && img.naturalWidth > 0), undefined, { polling: 100, timeout: 10_000 });
    const tiles: Shown[] = await page.locator('.tile[data-item-id]').evaluateAll((all: any[]) =>
      all.map((tile) => {
        const img = tile.querySelector('img.icon');
        const link = tile.querySelector('a.app-link');
        return {
          itemId: tile.dataset.itemId,
          kind: tile.dataset.kind ?? '',
          text: tile.innerText,
          label: tile.getAttribute('aria-label'),
          img: img ? { src: img.getAttribute('src'), loaded: img.naturalWidth } : null,
          letter: tile.querySelector('.icon.letter')?.textContent ?? null,
          link: link ? { href: link.getAttribute('href'), target: link.getAttribute('target') } : null,
        };
      }),
    );
    opened.push({ file, board, apps, tiles: new Map(tiles.map((t) => [t.itemId, t])) });
  }
  return opened;
}

type Opened = Awaited<ReturnType<typeof convertAndOpen>>[number];

/** The shared checks: every item a tile; every app tile its app's icon (loaded) and link; no bare kind name. */
function expectBoardShown({ board, apps, tiles }: Opened): void {
  expect([...tiles.keys()].sort()).toEqual(board.items.map((i: any) => i.id).sort());
  for (const item of board.items) {
    const tile = tiles.get(item.id)!;
    for (const line of tile.text.split('\n').map((l) => l.trim())) expect(kinds).not.toContain(line);
    expect(kinds).not.toContain(tile.label);
    if (item.kind !== 'app') continue;
    const app = apps.get(item.id);
    if (item.options.showTitle !== false) expect(tile.text).toContain(app.name);
    expect(tile.link).toEqual({ href: app.href, target: item.options.openInNewTab === false ? null : '_blank' });
    if (/^https?:\/\/[^/]+\/favicon\.ico$/.test(app.iconUrl)) {
      // A site's favicon (the icon of an item without one): with page.route on, Playwright's Chromium neither routes
      // nor reports an `<img>` request for a `/favicon.ico` path and the image fails (checked: without routing the same
      // page loads it), so this offline browser shows the app's letter. The src it tried is the app's iconUrl.
      expect({ name: app.name, img: tile.img, letter: tile.letter }).toEqual({ name: app.name, img: null, letter: app.name[0].toUpperCase() });
    } else if (/^(https?:|data:image\/)/.test(app.iconUrl)) {
      expect({ name: app.name, img: tile.img }).toEqual({ name: app.name, img: { src: app.iconUrl, loaded: 1 } });
    } else {
      // An icon on the source dashboard's own server (`/icons/x.png`, reported as a placeholder): the instance has no
      // such file, so the tile shows the app's letter.
      expect({ name: app.name, img: tile.img, letter: tile.letter }).toEqual({ name: app.name, img: null, letter: app.name[0].toUpperCase() });
    }
  }
}

/** The tile of the app named `name` (the first one with that name). */
function appTile(opened: Opened, name: string): Shown {
  const item = opened.board.items.find((i: any) => i.kind === 'app' && opened.apps.get(i.id).name === name);
  expect(item).toBeDefined();
  return opened.tiles.get(item.id)!;
}

const appTileId = (opened: Opened, name: string) => opened.board.items.find((i: any) => i.kind === 'app' && opened.apps.get(i.id).name === name).id as string;
const iconOf = (opened: Opened, name: string) => appTile(opened, name).img?.src;
const linkOf = (opened: Opened, name: string) => appTile(opened, name).link?.href;

describe('converted boards on the board page (CONV-8, CONV-1, CONV-4, VIEW-1)', () => {
  afterAll(() => {
    expect(errors).toEqual([]);
    expect(offsite).toEqual([]);
  });

  it('CONV-8: homepage: services and bookmarks as app tiles with the icons under the configured bases, linking to their hrefs; the info widgets drawn or labelled', async () => {
    const [home] = await convertAndOpen('homepage', configured);
    expectBoardShown(home);
    expect(iconOf(home, 'Emby')).toBe('https://icons.example.com/di/png/emby.png');
    expect(iconOf(home, 'Sonarr')).toBe('https://icons.example.com/sh/png/sonarr.png');
    expect(iconOf(home, 'qBittorrent')).toBe('https://icons.example.com/mdi/download.svg');
    expect(iconOf(home, 'Router')).toBe('https://icons.example.com/si/openwrt.svg');
    expect(iconOf(home, 'Grafana')).toBe('https://grafana.home.arpa/public/img/grafana_icon.svg');
    expect(linkOf(home, 'Emby')).toBe('http://emby.home.arpa/');
    // Bookmarks: links (the placeholder is kept in the href, never resolved), a bare `abbr` as the site's favicon.
    expect(iconOf(home, 'Reddit')).toBe('https://icons.example.com/di/png/reddit.png');
    expect(linkOf(home, 'Reddit')).toBe('https://reddit.com/');
    expect(home.apps.get(appTileId(home, 'Github')).iconUrl).toBe('https://github.com/favicon.ico');
    expect(linkOf(home, 'Homelab wiki')).toBe('https://wiki.home.arpa/?u={{HOMEPAGE_VAR_WIKI_USER}}');
    expect(appTile(home, 'Homelab wiki').letter).toBe('H');
    expect(appTile(home, 'Emby').text).toContain('Emby');
    // CONV-11: homepage shows a service's description under its name; so does the converted tile.
    expect(appTile(home, 'Emby').text).toContain('Movies & TV Shows');
    const byKind = (kind: string) => home.tiles.get(home.board.items.find((i: any) => i.kind === kind).id)!;
    expect(byKind('clock').text).toMatch(/^\d\d:\d\d$/m);
    expect(byKind('notebook').text).toContain('Welcome home');
    expect(byKind('weather').text).toContain('Weather');
  });

  it('CONV-8: Dashy: both pages; Simple Icons, Font Awesome, mdi, dashboard-icons and favicons under the default bases; a same-tab item stays in the tab', async () => {
    const [main, work] = await convertAndOpen('dashy');
    expectBoardShown(main);
    expectBoardShown(work);
    expect(iconOf(main, 'Media server')).toBe(`${defaultIconBases['dashboard-icons']}/png/jellyfin.png`);
    expect(iconOf(main, 'Requests')).toBe(`${defaultIconBases['font-awesome']}/solid/film.svg`);
    // Dashy's Router has homepage's name and href: one app on this instance (APP-1), drawn with the first icon.
    expect((main.file.items as any[]).find((i) => i.app?.name === 'Router').app.iconUrl).toBe(`${defaultIconBases.mdi}/router-network.svg`);
    expect(iconOf(main, 'Router')).toBe('https://icons.example.com/si/openwrt.svg');
    expect(appTile(main, 'Router').link).toEqual({ href: 'https://router.home.arpa', target: null });
    expect(main.board.items.filter((i: any) => i.kind === 'app').map((i: any) => main.tiles.get(i.id)!.img?.src)).toContain(`${defaultIconBases['simple-icons']}/github.svg`);
    expect(iconOf(work, 'Mail')).toBe(`${defaultIconBases['font-awesome']}/solid/envelope.svg`);
    expect(linkOf(work, 'Jira')).toBe('https://jira.example.com');
    const rss = main.tiles.get(main.board.items.find((i: any) => i.kind === 'rssFeed').id)!;
    expect(rss.text).toContain('RSS feed');
  });

  it('CONV-8: Glance: bookmarks and monitor sites as app tiles with si/di/sh icons; the html widget as text, the docker widget labelled', async () => {
    const [home, office] = await convertAndOpen('glance');
    expectBoardShown(home);
    expectBoardShown(office);
    expect(iconOf(home, 'Gmail')).toBe(`${defaultIconBases['simple-icons']}/gmail.svg`);
    expect(iconOf(home, 'Jellyfin')).toBe(`${defaultIconBases['dashboard-icons']}/png/jellyfin.png`);
    expect(iconOf(home, 'Immich')).toBe(`${defaultIconBases.selfhst}/png/immich.png`);
    expect(linkOf(home, 'Gmail')).toBe('https://mail.google.com/mail/u/0/');
    const byKind = (kind: string) => office.tiles.get(office.board.items.find((i: any) => i.kind === kind).id)!;
    expect(byKind('notebook').text).toContain('On call this week: Sam');
    expect(byKind('dockerContainers').text).toContain('Docker containers');
  });

  it('CONV-8: old Homarr: the app tiles with their icon URLs and links (one without its title); a bookmark as a link', async () => {
    const [board] = await convertAndOpen('homarr');
    expectBoardShown(board);
    expect(iconOf(board, 'Jellyfin')).toBe('https://cdn.jsdelivr.net/gh/walkxcode/dashboard-icons/png/jellyfin.png');
    expect(linkOf(board, 'Jellyfin')).toBe('https://jellyfin.example.com');
    expect(linkOf(board, 'Homarr docs')).toBe('https://homarr.dev');
    // Sonarr's tile hides its title (showTitle: false) and its `/icons/` file is not on this instance: the letter.
    expect(appTile(board, 'Sonarr')).toMatchObject({ letter: 'S', link: { href: 'http://sonarr.home.arpa:8989', target: null } });
    expect(images).toContain('https://cdn.jsdelivr.net/gh/walkxcode/dashboard-icons/png/proxmox.png');
  });

  it('CONV-8: an http: icon URL (kept as written) is shown too: the page lets the board\'s apps\' http: icon origins through its policy', async () => {
    const input = memoryInput({
      'services.yaml': [
        '- Plain HTTP:',
        '    - Printer:',
        '        href: http://printer.home.arpa',
        '        icon: http://printer.home.arpa/logo.png',
        '    - Pi-hole:',
        '        href: http://pihole.home.arpa/admin',
        '        icon: pi-hole.png',
      ].join('\n'),
      'settings.yaml': 'title: Plain HTTP\n',
    });
    const requested = images.length;
    const [board] = await convertAndOpen('homepage', defaultIconBases, input);
    expectBoardShown(board);
    expect(appTile(board, 'Printer')).toMatchObject({ img: { src: 'http://printer.home.arpa/logo.png', loaded: 1 }, link: { href: 'http://printer.home.arpa', target: '_blank' } });
    expect(iconOf(board, 'Pi-hole')).toBe(`${defaultIconBases['dashboard-icons']}/png/pi-hole.png`);
    expect(images.slice(requested).sort()).toEqual(['http://printer.home.arpa/logo.png', `${defaultIconBases['dashboard-icons']}/png/pi-hole.png`]);
  });
});
