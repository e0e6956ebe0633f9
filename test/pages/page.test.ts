/**
 * The board preview page in headless Debian chromium (playwright-core, as the docs test): it draws a seeded board at
 * two breakpoints (screenshots kept in artifacts/), follows the change feed, shows history and a revision's
 * difference, and signs in for a private board. Every request off the instance is blocked and fails the test.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createActor } from '../support/actors';
import { launchBrowser, TestBrowser } from '../support/browser';
import { startTestServer, TestServer } from '../support/server';
import { unique } from '../support/unique';
import { categorySection, expectOk, item, position } from '../boards-document/helpers';

const artifacts = path.resolve(__dirname, '../../artifacts');

let server: TestServer;
let launched: TestBrowser | undefined;
let browser: BrowserContext | undefined;
beforeAll(async () => {
  launched = await launchBrowser();
  browser = launched.context;
  server = await startTestServer();
  mkdirSync(artifacts, { recursive: true });
}, 120_000);
afterAll(async () => {
  await launched?.close();
  await server?.stop();
});

/** A page that may only talk to the instance. */
async function openPage(width: number): Promise<{ page: Page; offsite: string[]; errors: string[] }> {
  await browser!.clearCookies(); // each test starts signed out
  const page = await browser!.newPage();
  await page.setViewportSize({ width, height: 900 });
  const origin = new URL(server.directUrl).origin;
  const offsite: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:')) return route.continue();
    offsite.push(url);
    return route.abort();
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, offsite, errors };
}

/** A public board with a 4-column base layout and a 12-column layout from 1000px, a category, a clock and an app. */
async function seedBoard(options: { isPublic: boolean; key?: string } = { isPublic: true }) {
  const call = (method: string, p: string, body?: unknown) => server.call(method, p, { ...(options.key ? { key: options.key } : {}), ...(body === undefined ? {} : { body }) });
  const name = unique('page-');
  const { boardId } = expectOk(await call('POST', '/api/boards', { name, columnCount: 4, isPublic: options.isPublic }), 201);
  const start = expectOk(await call('GET', `/api/boards/${boardId}`));
  expectOk(await call('PATCH', `/api/boards/${boardId}/layouts`, { layouts: [...start.layouts, { id: 'wide', name: 'Desktop', columnCount: 12, breakpoint: 1000 }] }));
  const doc = expectOk(await call('GET', `/api/boards/${boardId}`));
  const [base, desktop] = doc.layouts;
  const empty = doc.sections[0].id;
  const category = categorySection(unique('cat'), '<img src=x onerror=alert(1)> Media', 1);
  const app = expectOk(await server.call('POST', '/api/apps', { body: { name: unique('Jellyfin'), iconUrl: 'https://cdn.example.com/jellyfin.svg', href: 'https://media.example.com' } }), 201);
  const clock = unique('clock');
  const appWidget = unique('appw');
  expectOk(
    await call('PUT', `/api/boards/${boardId}`, {
      sections: [doc.sections[0], category],
      items: [
        item(clock, [position(base.id, empty, 0, 0, 2, 1), position(desktop.id, empty, 4, 0, 2, 1)]),
        item(appWidget, [position(base.id, category.id, 0, 0, 1, 1), position(desktop.id, category.id, 6, 0, 1, 1)], { kind: 'app', options: { appId: app.appId } }),
      ],
    }),
  );
  return { boardId, name, base, desktop, empty, clock, appWidget, app, category: category.id };
}

const tileColumn = (page: Page, itemId: string) => page.locator(`.tile[data-item-id="${itemId}"]`).evaluate((e: any) => e.style.gridColumn as string);

describe('board preview page (PAGE-1..6)', () => {
  it('PAGE-1, PAGE-2: draws the board at the layout matching the window, at two breakpoints; nothing loaded from elsewhere', async () => {
    const board = await seedBoard();
    for (const [width, layoutName, column] of [
      [1280, 'Desktop', '5 / span 2'],
      [600, 'Base', '1 / span 2'],
    ] as const) {
      const { page, offsite, errors } = await openPage(width);
      const response = await page.goto(`${server.directUrl}/boards/${board.name}`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await page.waitForSelector(`.tile[data-item-id="${board.clock}"]`);
      expect(await page.locator('.layout.current').innerText()).toContain(layoutName);
      expect(await tileColumn(page, board.clock)).toBe(column);
      const appTile = await page.locator(`.tile[data-item-id="${board.appWidget}"]`).innerText();
      expect(appTile).toContain(board.app.name);
      // The category name is text, never markup; the off-site app icon is not loaded.
      expect(await page.locator('.category').innerText()).toBe('<img src=x onerror=alert(1)> Media');
      expect(await page.locator('img').count()).toBe(0);
      await page.screenshot({ path: path.join(artifacts, `board-${layoutName.toLowerCase()}-${width}.png`), fullPage: true });
      expect(offsite).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('FLEET-1: the page shows the source a managed board is declared in, and nothing for other boards', async () => {
    const board = await seedBoard();
    const { page, errors } = await openPage(1280);
    await page.goto(`${server.directUrl}/boards/${board.name}`);
    await page.waitForSelector(`.tile[data-item-id="${board.clock}"]`);
    expect(await page.locator('.managed-by').count()).toBe(0);
    await server.db('boards').where({ name: board.name }).update({ managedBy: 'github.com/example/dashboards' });
    await page.reload();
    await page.waitForSelector('.managed-by');
    expect(await page.locator('.managed-by').innerText()).toBe('managed by github.com/example/dashboards');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('PAGE-2: a PUT made through the API appears on the open page within a second', async () => {
    const board = await seedBoard();
    const { page } = await openPage(1280);
    await page.goto(`${server.directUrl}/boards/${board.name}`);
    await page.waitForSelector(`.tile[data-item-id="${board.clock}"]`);
    const doc = expectOk(await server.call('GET', `/api/boards/${board.boardId}`));
    const added = unique('added');
    const started = Date.now();
    expectOk(await server.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: doc.sections, items: [...doc.items, item(added, [position(board.desktop.id, board.empty, 0, 1, 3, 1)])] } }));
    await page.waitForSelector(`.tile[data-item-id="${added}"]`, { timeout: 1000 });
    expect(Date.now() - started).toBeLessThan(1000);
    await page.close();
  });

  it('PAGE-4: the history panel shows a revision with what changed since marked, and restores it', async () => {
    const board = await seedBoard();
    expectOk(await server.call('DELETE', `/api/boards/${board.boardId}/items/${board.clock}`));
    const editor = await createActor(server, { permissions: ['board-modify-all'], password: 'editor-pass-1' });
    const { page } = await openPage(1280);
    // Restoring needs modify access: the browser signs in (the session cookie is the page's credential).
    expect((await page.request.post(`${server.directUrl}/api/auth/login`, { data: { username: editor.username, password: 'editor-pass-1' } })).status()).toBe(200);
    await page.goto(`${server.directUrl}/boards/${board.name}`);
    await page.waitForSelector(`.tile[data-item-id="${board.appWidget}"]`);
    expect(await page.locator(`.tile[data-item-id="${board.clock}"]`).count()).toBe(0);
    const entries = page.locator('.history .entry');
    expect(await entries.count()).toBe(4); // created, layouts, PUT, delete item
    await page.locator('.history .entry[data-revision="3"] .show').click();
    await page.waitForSelector(`.tile.removed[data-item-id="${board.clock}"]`);
    await page.screenshot({ path: path.join(artifacts, 'board-revision-3.png'), fullPage: true });
    await page.locator('.viewing .restore').click();
    await page.waitForSelector(`.tile:not(.removed)[data-item-id="${board.clock}"]`);
    expect(await page.locator('.viewing').count()).toBe(0);
    const restored = expectOk(await server.call('GET', `/api/boards/${board.boardId}`));
    expect(restored.items.map((i: any) => i.id)).toContain(board.clock);
    await page.close();
  });

  it('PAGE-3: a private board is the same 404 page as a missing one, and shows after signing in', async () => {
    const owner = await createActor(server, { permissions: ['board-create', 'app-create'], password: 'page-pass-123' });
    const board = await seedBoard({ isPublic: false, key: owner.key });
    const missingName = unique('page-');
    const missing = await fetch(`${server.directUrl}/boards/${missingName}`);
    const hidden = await fetch(`${server.directUrl}/boards/${board.name}`);
    expect([missing.status, hidden.status]).toEqual([404, 404]);
    expect((await missing.text()).split(missingName).join('NAME')).toBe((await hidden.text()).split(board.name).join('NAME'));

    const { page, errors } = await openPage(1280);
    const response = await page.goto(`${server.directUrl}/boards/${board.name}`);
    expect(response?.status()).toBe(404);
    await page.waitForSelector('form.login');
    expect(await page.locator('h1').innerText()).toBe('Board not found');
    await page.fill('input[name=username]', owner.username);
    await page.fill('input[name=password]', 'wrong-password');
    await page.click('button[type=submit]');
    await page.waitForSelector('.message:has-text("Invalid username or password")');
    await page.fill('input[name=password]', 'page-pass-123');
    await page.click('button[type=submit]');
    await page.waitForSelector(`.tile[data-item-id="${board.clock}"]`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('PAGE-6: / lists the readable boards, or goes to the home board', async () => {
    const board = await seedBoard();
    const list = await fetch(`${server.directUrl}/`, { redirect: 'manual' });
    expect(list.status).toBe(200);
    expect(await list.text()).toContain(`<a href="/boards/${board.name}">${board.name}</a>`);
    expectOk(await server.call('PATCH', `/api/boards/${board.boardId}/home`, { body: {} }), 204);
    const home = await fetch(`${server.directUrl}/`, { redirect: 'manual', headers: { ApiKey: server.adminKey } });
    expect(home.status).toBe(302);
    expect(home.headers.get('location')).toBe(`/boards/${board.name}`);
  });
});
