/**
 * The board page as a start page, in headless Debian chromium (playwright-core): quiet chrome for viewers (PAGE-9),
 * a grid that fills the window with app tiles that scale and keep their names (PAGE-10, PAGE-11), and the web app
 * manifest (PWA-1, PWA-2). Every request off the instance is answered by the test (images: a 1x1 PNG) or refused.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { bootstrapAdmin } from '../../src/identity/bootstrap';
import { converters } from '../../src/convert';
import { launchBrowser, TestBrowser } from '../support/browser';
import { startTestServer, TestServer } from '../support/server';
import { unique } from '../support/unique';
import { categorySection, expectOk, item, position } from '../boards-document/helpers';
import { fixtureInput } from '../convert/support';

const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

let server: TestServer;
let launched: TestBrowser | undefined;
let browser: BrowserContext;

beforeAll(async () => {
  launched = await launchBrowser();
  browser = launched.context;
  server = await startTestServer();
  await bootstrapAdmin(server.db, { apiKey: null, password: 'chrome-admin-pass' });
}, 120_000);
afterAll(async () => {
  await launched?.close();
  await server?.stop();
});

/** A page that talks only to the instance; images from elsewhere are a 1x1 PNG, anything else from elsewhere refused. */
async function openPage(width: number, height = 900): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  await page.setViewportSize({ width, height });
  const origin = new URL(server.directUrl).origin;
  await page.route('**/*', (route) => {
    const request = route.request();
    if (request.url().startsWith(origin) || request.url().startsWith('data:')) return route.continue();
    if (request.resourceType() === 'image') return route.fulfill({ status: 200, contentType: 'image/png', body: png });
    return route.abort();
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // PAGE-9 remembers the details panel per browser: each test starts as a first visit.
  await page.goto(`${server.directUrl}/api/health/live`);
  await page.evaluate(() => (globalThis as any).localStorage.clear());
  return { page, errors };
}

/** A public board: a 4-column base layout, a 12-column one from 1000 px, a category with an app and a clock. */
async function seedBoard(settings: Record<string, unknown> = {}) {
  const name = unique('chrome-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 4, isPublic: true } }), 201);
  const start = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  expectOk(await server.call('PATCH', `/api/boards/${boardId}/layouts`, { body: { layouts: [...start.layouts, { id: unique('wide'), name: 'Desktop', columnCount: 12, breakpoint: 1000 }] } }));
  if (Object.keys(settings).length) expectOk(await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: settings }), 204);
  const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const [base, desktop] = doc.layouts;
  const category = categorySection(unique('cat'), 'Media', 1);
  const app = expectOk(await server.call('POST', '/api/apps', { body: { name: unique('Jellyfin'), href: 'https://media.example.com', iconUrl: 'https://icons.example.com/j.png', description: 'Films and shows' } }), 201);
  const [clock, appWidget] = [unique('clock'), unique('appw')];
  expectOk(
    await server.call('PUT', `/api/boards/${boardId}`, {
      body: {
        sections: [doc.sections[0], category],
        items: [
          item(clock, [position(base.id, doc.sections[0].id, 0, 0, 2, 1), position(desktop.id, doc.sections[0].id, 0, 0, 2, 1)]),
          item(appWidget, [position(base.id, category.id, 0, 0, 2, 1), position(desktop.id, category.id, 0, 0, 2, 1)], {
            kind: 'app',
            options: { appId: app.appId, descriptionDisplayMode: 'normal' },
          }),
        ],
      },
    }),
  );
  return { boardId, name, base, desktop, clock, appWidget, app };
}

const visible = (page: Page, selector: string) => page.locator(selector).evaluateAll((all) => all.filter((e: any) => e.getClientRects().length > 0).length);

describe('quiet chrome for viewers (PAGE-9)', () => {
  it('PAGE-9: an anonymous viewer sees the board, no history or version until opening "Board details"; the choice is remembered', async () => {
    const board = await seedBoard();
    const { page, errors } = await openPage(1280);
    await page.goto(`${server.directUrl}/boards/${board.name}`);
    await page.waitForSelector(`.tile[data-item-id="${board.appWidget}"]`);
    const toggle = page.getByRole('button', { name: 'Board details', exact: true });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await visible(page, '.history')).toBe(0);
    expect(await visible(page, '.version')).toBe(0);
    expect(await visible(page, 'button.layout')).toBe(0);
    expect(await page.locator('body').innerText()).not.toMatch(/version \d|History/);

    await toggle.click();
    await page.waitForSelector('#board-details .history', { state: 'visible' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await page.locator('#board-details .version').innerText()).toMatch(/^version \d+$/);
    await page.waitForSelector('#board-details .history .entry');
    expect(await visible(page, '#board-details button.layout')).toBe(2);

    // Remembered in this browser: open after a reload, closed again after closing it.
    await page.reload();
    await page.waitForSelector('#board-details .history', { state: 'visible' });
    await page.getByRole('button', { name: 'Close board details' }).click();
    await page.waitForSelector('#board-details', { state: 'hidden' });
    await page.reload();
    await page.waitForSelector(`.tile[data-item-id="${board.appWidget}"]`);
    expect(await visible(page, '.history')).toBe(0);
    expect(await page.getByRole('button', { name: 'Board details', exact: true }).getAttribute('aria-expanded')).toBe('false');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('PAGE-9, PAGE-2: the window width picks the layout, with no buttons; a phone opens the details as a drawer over the grid, Escape closes it', async () => {
    const board = await seedBoard();
    const { page, errors } = await openPage(1280);
    await page.goto(`${server.directUrl}/boards/${board.name}`);
    await page.waitForSelector(`main.board[data-layout-id="${board.desktop.id}"]`);
    await page.setViewportSize({ width: 700, height: 900 });
    await page.waitForSelector(`main.board[data-layout-id="${board.base.id}"]`);
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.waitForSelector(`main.board[data-layout-id="${board.desktop.id}"]`);
    expect(await visible(page, 'button.layout')).toBe(0);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForSelector(`main.board[data-layout-id="${board.base.id}"]`);
    const gridWidth = async () => page.locator('main.board').evaluate((e: any) => e.getBoundingClientRect().width as number);
    const before = await gridWidth();
    expect(before).toBeGreaterThan(350);
    await page.getByRole('button', { name: 'Board details', exact: true }).click();
    await page.waitForSelector('#board-details', { state: 'visible' });
    expect(await page.locator('#board-details').evaluate((e: any) => (globalThis as any).getComputedStyle(e).position)).toBe('fixed');
    expect(await gridWidth()).toBe(before); // the drawer lies over the grid, it does not squeeze it
    await page.keyboard.press('Escape');
    await page.waitForSelector('#board-details', { state: 'hidden' });
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.className)).toBe('details-toggle');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('dynamic sections with titles (PAGE-12)', () => {
  it('PAGE-12: a dynamic section shows its options\' title above its grid, as text; two stand side by side on the wide layout', async () => {
    const board = await seedBoard();
    const doc = expectOk(await server.call('GET', `/api/boards/${board.boardId}`));
    const top = doc.sections.find((s: any) => s.kind === 'empty');
    const [left, right] = [unique('dyn'), unique('dyn')];
    const dynamic = (id: string, title: string, x: number) => ({
      id,
      kind: 'dynamic',
      options: { title },
      layouts: [
        { layoutId: board.base.id, parentSectionId: top.id, xOffset: 0, yOffset: 2 + x, width: 4, height: 2 },
        { layoutId: board.desktop.id, parentSectionId: top.id, xOffset: x * 6, yOffset: 2, width: 6, height: 2 },
      ],
    });
    const clock = unique('clock');
    expectOk(
      await server.call('PUT', `/api/boards/${board.boardId}`, {
        body: {
          sections: [...doc.sections, dynamic(left, 'Media <b>x</b>', 0), dynamic(right, 'Admin', 1)],
          items: [...doc.items, item(clock, [position(board.base.id, right, 0, 0, 2, 1), position(board.desktop.id, right, 0, 0, 2, 1)])],
        },
      }),
    );
    const { page, errors } = await openPage(1280);
    await page.goto(`${server.directUrl}/boards/${board.name}`);
    await page.waitForSelector(`main.board[data-layout-id="${board.desktop.id}"] .tile[data-item-id="${clock}"]`);
    const titles = async () =>
      page.evaluate(([a, b]) => {
        const doc = (globalThis as any).document;
        return [a, b].map((id) => {
          const tile = doc.querySelector(`.tile.dynamic[data-section-id="${id}"]`);
          const title = tile.querySelector(':scope > .dynamic-title');
          const box = title.getBoundingClientRect();
          return { text: title.textContent, elements: title.children.length, shown: box.height > 0 && box.width > 0, x: tile.getBoundingClientRect().left, y: tile.getBoundingClientRect().top, first: tile.firstElementChild === title };
        });
      }, [left, right]);
    const wide = await titles();
    expect(wide.map((t) => [t.text, t.elements, t.shown, t.first])).toEqual([['Media <b>x</b>', 0, true, true], ['Admin', 0, true, true]]);
    expect(wide[1].x).toBeGreaterThan(wide[0].x);
    expect(wide[1].y).toBe(wide[0].y);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForSelector(`main.board[data-layout-id="${board.base.id}"] .tile[data-item-id="${clock}"]`);
    const narrow = await titles();
    expect(narrow.map((t) => [t.text, t.shown])).toEqual([['Media <b>x</b>', true], ['Admin', true]]);
    expect(narrow[1].y).toBeGreaterThan(narrow[0].y);
    expect(narrow[1].x).toBe(narrow[0].x);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('a start page that fills the screen (PAGE-10, PAGE-11)', () => {
  let page: Page;
  let errors: string[];
  let board: any;
  let apps: Map<string, any>;

  beforeAll(async () => {
    const { boards } = converters.homepage(fixtureInput('homepage'), {});
    const file = { ...boards[0], name: unique('homepage-') };
    expectOk(await server.call('POST', '/api/boards/import', { body: file }), 201);
    board = expectOk(await server.call('GET', `/api/boards/by-name/${file.name}`));
    apps = new Map();
    for (const entry of board.items.filter((i: any) => i.kind === 'app')) apps.set(entry.id, expectOk(await server.call('GET', `/api/apps/${entry.options.appId}`)));
    ({ page, errors } = await openPage(1440, 900));
    expect((await page.request.post(`${server.directUrl}/api/auth/login`, { data: { username: 'admin', password: 'chrome-admin-pass' } })).status()).toBe(200);
    await page.goto(`${server.directUrl}/boards/${file.name}`);
    await page.waitForSelector(`.tile[data-item-id="${board.items[board.items.length - 1].id}"]`);
  }, 60_000);
  afterAll(async () => {
    expect(errors).toEqual([]);
    await page?.close();
  });

  it('PAGE-10: the converted homepage fixture at 1440x900: the grid spans more than 80% of the window, its 12 columns to the right edge', async () => {
    const measured = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const grids = Array.from(doc.querySelectorAll('main.board > .section > .grid, main.board > details > .grid')) as any[];
      return { window: (globalThis as any).innerWidth, grids: grids.map((grid) => ({ width: grid.getBoundingClientRect().width, columns: (globalThis as any).getComputedStyle(grid).gridTemplateColumns.split(' ').length })) };
    });
    expect(measured.grids.length).toBeGreaterThan(1);
    // The tiles themselves, not only the grid: the converted apps reach past 80% of the window (CONV-14's wide tiles).
    const reach = await page.evaluate(() => Math.max(...Array.from((globalThis as any).document.querySelectorAll('.tile.widget-app')).map((tile: any) => tile.getBoundingClientRect().right)) / (globalThis as any).innerWidth);
    expect(reach).toBeGreaterThan(0.8);
    for (const grid of measured.grids) {
      expect(grid.columns).toBe(12);
      expect(grid.width / measured.window).toBeGreaterThan(0.8);
    }
  });

  it('PAGE-10, PAGE-11: no app name under 24 characters is cut, and descriptions in normal mode show, clamped to whole lines', async () => {
    const shown = await page.locator('.tile.widget-app').evaluateAll((tiles: any[]) =>
      tiles.map((tile) => {
        const name = tile.querySelector('.app-name');
        const description = tile.querySelector('.app-description');
        const fits = (e: any) => e && { width: [e.scrollWidth, e.clientWidth], height: [e.scrollHeight, e.clientHeight], visible: e.getClientRects().length > 0 };
        // The lines a description shows, each within its box (a clamped one's hidden lines lie below the box).
        const linesInside = (e: any) => {
          if (!e) return null;
          const box = e.getBoundingClientRect();
          const range = (globalThis as any).document.createRange();
          range.selectNodeContents(e);
          const shown = Array.from(range.getClientRects() as any[]).filter((line: any) => line.top < box.bottom - 1);
          return shown.length > 0 && shown.every((line: any) => line.left >= box.left - 0.5 && line.right <= box.right + 0.5);
        };
        const rect = tile.getBoundingClientRect();
        const link = tile.querySelector('.app-link')?.getBoundingClientRect();
        return { itemId: tile.dataset.itemId, name: name?.textContent ?? null, nameFits: fits(name), description: description?.textContent ?? null, descriptionFits: fits(description), descriptionLines: linesInside(description), inside: !link || (link.bottom <= rect.bottom + 0.5 && link.right <= rect.right + 0.5) };
      }),
    );
    expect(shown.length).toBe(apps.size);
    for (const tile of shown) {
      const app = apps.get(tile.itemId);
      expect(tile.name).toBe(app.name);
      if (app.name.length < 24) {
        expect({ name: app.name, ...tile.nameFits }).toEqual({ name: app.name, width: [tile.nameFits.width[1], tile.nameFits.width[1]], height: [tile.nameFits.height[1], tile.nameFits.height[1]], visible: true });
      }
      expect({ name: app.name, inside: tile.inside }).toEqual({ name: app.name, inside: true });
      const entry = board.items.find((i: any) => i.id === tile.itemId);
      if (entry.options.descriptionDisplayMode === 'normal' && app.description) {
        expect(tile.description).toBe(app.description);
        expect({ name: app.name, visible: tile.descriptionFits.visible, linesInside: tile.descriptionLines }).toEqual({ name: app.name, visible: true, linesInside: true });
      } else {
        expect(tile.description).toBeNull();
      }
    }
    // The fixture has descriptions in normal mode (homepage shows them under the name).
    expect(shown.filter((tile) => tile.description !== null).length).toBeGreaterThan(2);
  });

  it('CONV-19, PAGE-12: the fixture\'s side-by-side groups stand in one row at 1440 px, titled, and one under another at phone width', async () => {
    // The stored board lists sections in its own order: the groups in their desktop order, left to right.
    const desktopId = board.layouts.find((layout: any) => layout.columnCount === 12).id;
    const x = (s: any) => s.layouts.find((p: any) => p.layoutId === desktopId).xOffset;
    const groups = board.sections.filter((s: any) => s.kind === 'dynamic').sort((a: any, b: any) => x(a) - x(b));
    const shown = () =>
      page.evaluate((ids: string[]) => {
        const doc = (globalThis as any).document;
        return ids.map((id) => {
          const tile = doc.querySelector(`.tile.dynamic[data-section-id="${id}"]`);
          const title = tile.querySelector(':scope > .dynamic-title');
          const box = tile.getBoundingClientRect();
          return { title: title.textContent, titled: title.getBoundingClientRect().height > 0, left: Math.round(box.left), top: Math.round(box.top) };
        });
      }, groups.map((s: any) => s.id));
    const wide = await shown();
    expect(wide.map((g) => [g.title, g.titled])).toEqual(groups.map((s: any) => [s.options.title, true]));
    expect(wide.map((g) => g.title)).toEqual(['Developer', 'Social', 'Developer']);
    expect(new Set(wide.map((g) => g.top)).size).toBe(1);
    for (let i = 1; i < wide.length; i++) expect(wide[i].left).toBeGreaterThan(wide[i - 1].left);
    await page.setViewportSize({ width: 390, height: 844 });
    const mobile = board.layouts.find((layout: any) => layout.columnCount === 4);
    await page.waitForSelector(`main.board[data-layout-id="${mobile.id}"]`);
    const narrow = await shown();
    expect(narrow.map((g) => [g.title, g.titled])).toEqual(wide.map((g) => [g.title, true]));
    expect(new Set(narrow.map((g) => g.left)).size).toBe(1);
    for (let i = 1; i < narrow.length; i++) expect(narrow[i].top).toBeGreaterThan(narrow[i - 1].top);
    await page.setViewportSize({ width: 1440, height: 900 });
    const desktop = board.layouts.find((layout: any) => layout.columnCount === 12);
    await page.waitForSelector(`main.board[data-layout-id="${desktop.id}"]`);
  });

  it('PAGE-10, PAGE-11: at phone width (390x844) the fixture takes its mobile layout across the screen; names are whole and at least 9 px', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const mobile = board.layouts.find((layout: any) => layout.columnCount === 4);
    await page.waitForSelector(`main.board[data-layout-id="${mobile.id}"]`);
    // The ResizeObserver fits the names once the tiles have their new size.
    // CONV-14: the converter's phone layout puts two tiles a row, so each is under 60% of the window once fitted.
    await page.waitForFunction(() => Array.from((globalThis as any).document.querySelectorAll('.tile.widget-app')).every((tile: any) => tile.getBoundingClientRect().width < (globalThis as any).innerWidth * 0.6));
    const shown = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const grid = doc.querySelector('main.board > details > .grid').getBoundingClientRect();
      const names = Array.from(doc.querySelectorAll('.tile.widget-app .app-name')).map((name: any) => ({
        text: name.textContent as string,
        fits: name.scrollWidth <= name.clientWidth && name.scrollHeight <= name.clientHeight,
        size: parseFloat((globalThis as any).getComputedStyle(name).fontSize),
      }));
      const tops = Array.from(doc.querySelectorAll('.tile.widget-app')).map((tile: any) => Math.round(tile.getBoundingClientRect().top));
      const perRow = Math.max(...tops.map((top) => tops.filter((other) => other === top).length));
      return { share: grid.width / (globalThis as any).innerWidth, names, perRow };
    });
    expect(shown.share).toBeGreaterThan(0.9);
    expect(shown.perRow).toBe(2);
    for (const name of shown.names.filter((entry) => entry.text.length < 24)) expect({ ...name, readable: name.size >= 9 }).toEqual({ ...name, fits: true, readable: true });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('PAGE-11: a clamped description is cut at a line, whole in the document; a word too wide for a small tile shrinks, then breaks, never cut', async () => {
    const long = 'A description long enough to need more lines than a small tile has, so that the page clamps it at a word';
    const seeded = await seedBoard();
    const appRecord = expectOk(await server.call('POST', '/api/apps', { body: { name: unique('Wiki'), href: 'https://wiki.example.com', iconUrl: 'https://icons.example.com/w.png', description: long } }), 201);
    const doc = expectOk(await server.call('GET', `/api/boards/${seeded.boardId}`));
    const widget = unique('long');
    const word = expectOk(await server.call('POST', '/api/apps', { body: { name: 'Nextcloudinstances', href: `https://${unique('cloud')}.example.com`, iconUrl: 'https://icons.example.com/n.png' } }), 201);
    const wordWidget = unique('word');
    expectOk(
      await server.call('PUT', `/api/boards/${seeded.boardId}`, {
        body: {
          sections: doc.sections,
          items: [...doc.items, item(widget, [position(seeded.base.id, doc.sections[0].id, 2, 0, 1, 1), position(seeded.desktop.id, doc.sections[0].id, 2, 0, 1, 1)], { kind: 'app', options: { appId: appRecord.appId, descriptionDisplayMode: 'normal' } }),
            item(wordWidget, [position(seeded.base.id, doc.sections[0].id, 3, 0, 1, 1), position(seeded.desktop.id, doc.sections[0].id, 3, 0, 1, 1)], { kind: 'app', options: { appId: word.appId } }),
          ],
        },
      }),
    );
    const { page: small, errors: smallErrors } = await openPage(1280);
    await small.goto(`${server.directUrl}/boards/${seeded.name}`);
    const description = small.locator(`.tile[data-item-id="${widget}"] .app-description`);
    await description.waitFor();
    const style = await description.evaluate((e: any) => {
      const css = (globalThis as any).getComputedStyle(e);
      return { clamp: Number(css.webkitLineClamp), overflow: css.overflow, clamped: e.scrollHeight > e.clientHeight };
    });
    expect(style).toEqual({ clamp: expect.any(Number), overflow: 'hidden', clamped: true });
    expect(style.clamp).toBeGreaterThanOrEqual(1);
    // Clamped on screen, whole in the document (what a screen reader reads).
    expect(await description.textContent()).toBe(long);
    // The one-word names (18 and about 15 characters) are smaller than the style sheet's smallest
    // size for a name (0.75rem, 12px), and not cut.
    const sizes = await small.locator('.app-name').evaluateAll((names: any[]) =>
      names.map((name) => ({ text: name.textContent, size: parseFloat((globalThis as any).getComputedStyle(name).fontSize), fits: name.scrollWidth <= name.clientWidth && name.scrollHeight <= name.clientHeight })),
    );
    for (const name of [word.name, appRecord.name]) {
      const shrunk = sizes.find((entry) => entry.text === name)!;
      expect({ name, fits: shrunk.fits, smaller: shrunk.size < 12 }).toEqual({ name, fits: true, smaller: true });
    }
    expect(smallErrors).toEqual([]);
    await small.close();
  });
});

/** Width and height of a PNG, from its IHDR chunk. */
const pngSize = (bytes: Buffer) => ({ signature: bytes.subarray(1, 4).toString('latin1'), width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

describe('installable (PWA-1, PWA-2)', () => {
  it('PWA-1, PWA-2: the page links the board\'s manifest, served as application/manifest+json with the required members; Chromium parses it without errors', async () => {
    const board = await seedBoard({ pageTitle: 'Home lab', primaryColor: '#2F6FEB', logoImageUrl: 'https://icons.example.com/logo.png' });
    const { page, errors } = await openPage(1280);
    const response = await page.goto(`${server.directUrl}/boards/${board.name}`);
    expect(response!.headers()['content-security-policy']).toContain("manifest-src 'self'");
    await page.waitForSelector(`.tile[data-item-id="${board.appWidget}"]`);
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(href).toBe(`/boards/${board.name}/manifest.webmanifest`);

    const served = await fetch(new URL(href!, server.directUrl));
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'application/manifest+json; charset=utf-8']);
    const manifest = (await served.json()) as any;
    expect(manifest).toEqual({
      name: 'Home lab',
      short_name: board.name,
      start_url: '/',
      scope: '/',
      display: 'standalone',
      theme_color: '#2f6feb',
      background_color: '#f6f8fa',
      icons: [
        { src: 'https://icons.example.com/logo.png', sizes: 'any', purpose: 'any' },
        { src: expect.stringMatching(/^\/assets\/tessera-192\.png\?v=[0-9a-f]{16}$/), sizes: '192x192', type: 'image/png', purpose: 'any' },
        { src: expect.stringMatching(/^\/assets\/tessera-512\.png\?v=[0-9a-f]{16}$/), sizes: '512x512', type: 'image/png', purpose: 'any' },
      ],
    });
    for (const [icon, size] of [
      [manifest.icons[1], 192],
      [manifest.icons[2], 512],
    ]) {
      const image = await fetch(new URL(icon.src, server.directUrl));
      expect([image.status, image.headers.get('content-type'), image.headers.get('cache-control')]).toEqual([200, 'image/png', 'public, max-age=31536000, immutable']);
      expect(pngSize(Buffer.from(await image.arrayBuffer()))).toEqual({ signature: 'PNG', width: size, height: size });
    }

    // Chromium's own reading of the manifest the page links.
    const cdp = await page.context().newCDPSession(page);
    const parsed = await cdp.send('Page.getAppManifest', {});
    expect(parsed.url).toBe(new URL(href!, server.directUrl).href);
    expect(parsed.errors).toEqual([]);
    expect(JSON.parse(parsed.data!)).toEqual(manifest);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('PWA-1: without a logo or a usable colour, Tessera\'s icons and colour; a private board\'s manifest is 404 for others, read with the session', async () => {
    const board = await seedBoard({ logoImageUrl: 'javascript:alert(1)' });
    const manifest = (await (await fetch(`${server.directUrl}/boards/${board.name}/manifest.webmanifest`)).json()) as any;
    expect(manifest.name).toBe(board.name);
    expect(manifest.icons.map((icon: any) => icon.sizes)).toEqual(['192x192', '512x512']);

    expectOk(await server.call('PATCH', `/api/boards/${board.boardId}/visibility`, { body: { visibility: 'private' } }), 204);
    const hidden = await fetch(`${server.directUrl}/boards/${board.name}/manifest.webmanifest`);
    expect([hidden.status, ((await hidden.json()) as any).code]).toEqual([404, 'NOT_FOUND']);
    const missing = await fetch(`${server.directUrl}/boards/${unique('none-')}/manifest.webmanifest`);
    expect(missing.status).toBe(404);

    // The page links it with credentials, so the signed-in admin's browser reads it.
    const { page } = await openPage(1280);
    expect((await page.request.post(`${server.directUrl}/api/auth/login`, { data: { username: 'admin', password: 'chrome-admin-pass' } })).status()).toBe(200);
    await page.goto(`${server.directUrl}/boards/${board.name}`);
    await page.waitForSelector(`.tile[data-item-id="${board.appWidget}"]`);
    expect(await page.locator('link[rel="manifest"]').getAttribute('crossorigin')).toBe('use-credentials');
    const cdp = await page.context().newCDPSession(page);
    const parsed = await cdp.send('Page.getAppManifest', {});
    expect(parsed.errors).toEqual([]);
    expect(JSON.parse(parsed.data!).short_name).toBe(board.name);
    await page.close();
  });
});
