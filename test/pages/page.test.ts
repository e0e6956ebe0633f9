/**
 * The board preview page in headless Debian chromium (playwright-core, as the docs test): it draws a seeded board at
 * two breakpoints (screenshots kept in artifacts/), follows the change feed, shows history and a revision's
 * difference, and signs in for a private board. Every request off the instance is blocked and fails the test.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { bootstrapAdmin } from '../../src/identity/bootstrap';
import { createActor } from '../support/actors';
import { instanceOnlyPage, launchBrowser, TestBrowser } from '../support/browser';
import { startTestServer, TestServer } from '../support/server';
import { unique } from '../support/unique';
import { categorySection, createIntegration, expectOk, grantIntegration, item, position } from '../boards-document/helpers';

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
  const { page, offsite, errors } = await instanceOnlyPage(browser!, server.directUrl, width); // signed out
  // PAGE-9: the board details panel starts closed, as on a first visit (its state is kept in localStorage).
  await page.addInitScript(() => {
    const storage = (globalThis as any).sessionStorage;
    if (!storage.getItem('tessera-test-fresh')) {
      storage.setItem('tessera-test-fresh', '1');
      (globalThis as any).localStorage.removeItem('tessera:board-details');
    }
  });
  return { page, offsite, errors };
}

/** PAGE-9: opens the "Board details" panel (version, layouts, history). */
async function openDetails(page: Page): Promise<void> {
  if ((await page.locator('.details-toggle').getAttribute('aria-expanded')) !== 'true') await page.click('.details-toggle');
  await page.waitForSelector('#board-details', { state: 'visible' });
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
  it('PAGE-1, PAGE-2: draws the board at the layout matching the window, at two breakpoints; nothing loaded from elsewhere but the app icon', async () => {
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
      expect(await page.locator('main.board').getAttribute('data-layout-id')).toBe(layoutName === 'Desktop' ? board.desktop.id : board.base.id);
      await openDetails(page);
      expect(await page.locator('.layout.current').innerText()).toContain(layoutName);
      expect(await tileColumn(page, board.clock)).toBe(column);
      const appTile = await page.locator(`.tile[data-item-id="${board.appWidget}"]`).innerText();
      expect(appTile).toContain(board.app.name);
      // The category name is text, never markup; the app icon is asked of its host (VIEW-1; refused here), then shown as a letter.
      expect(await page.locator('.category').innerText()).toBe('<img src=x onerror=alert(1)> Media');
      await page.waitForSelector(`.tile[data-item-id="${board.appWidget}"] .icon.letter`);
      expect(await page.locator('img').count()).toBe(0);
      await page.screenshot({ path: path.join(artifacts, `board-${layoutName.toLowerCase()}-${width}.png`), fullPage: true });
      expect(offsite).toEqual(['https://cdn.example.com/jellyfin.svg']);
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
    await page.waitForSelector(`.tile[data-item-id="${board.clock}"]`);
    await openDetails(page);
    await page.waitForSelector('.managed-by');
    expect(await page.locator('.managed-by').innerText()).toBe('managed by github.com/example/dashboards');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('PAGE-2: a PUT made through the API appears on the open page without a reload', async () => {
    const board = await seedBoard();
    const { page } = await openPage(1280);
    await page.goto(`${server.directUrl}/boards/${board.name}`);
    await page.waitForSelector(`.tile[data-item-id="${board.clock}"]`);
    // A mark on this very document: a reload would lose it. (How fast the change arrives is the bench's business.)
    await page.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));
    const doc = expectOk(await server.call('GET', `/api/boards/${board.boardId}`));
    const added = unique('added');
    expectOk(await server.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: doc.sections, items: [...doc.items, item(added, [position(board.desktop.id, board.empty, 0, 1, 3, 1)])] } }));
    await page.waitForSelector(`.tile[data-item-id="${added}"]`, { timeout: 15000 });
    expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
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
    await openDetails(page); // PAGE-9: the editor's history and restore, one click away
    await page.waitForSelector('.history .entry[data-revision="3"]');
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

  it('VIEW-7: the page comes with the board, its apps and its integrations\' names as the API answers them to the caller; board text cannot end the data block', async () => {
    const board = await seedBoard();
    const doc = expectOk(await server.call('GET', `/api/boards/${board.boardId}`));
    const note = unique('note');
    const vector = '</script><script>document.title="ran"</script><!--';
    const [usable, unusable] = [await createIntegration(server), await createIntegration(server)];
    const noteItem = item(note, [position(board.base.id, board.empty, 0, 2)], { kind: 'notebook', options: { content: vector }, integrationIds: [usable, unusable] });
    expectOk(await server.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: doc.sections, items: [...doc.items, noteItem] } }));
    const member = await createActor(server);
    await grantIntegration(server, usable, member.userId);
    const served = async (headers: Record<string, string>) => {
      const response = await fetch(`${server.directUrl}/boards/${board.name}`, { headers });
      expect(response.status).toBe(200);
      const text = await response.text();
      // The head script (THEMEVIEW-5), the data block and the page script: the vector inside the data did not end the block early.
      expect(text.match(/<script\b/g)).toHaveLength(3);
      expect(text.match(/<\/script>/g)).toHaveLength(3);
      return JSON.parse(text.match(/<script type="application\/json" id="board-data">(.*)<\/script>\n<script src="\/assets\/board.js\?v=[0-9a-f]{16}">/s)![1]);
    };
    const names = (ids: string[]) => ids.map((id) => ({ id, name: `Integration ${id}` })).sort((a, b) => (a.id < b.id ? -1 : 1));
    // Anonymous callers may not list integrations (none named); a member names those it may use; the admin all.
    for (const [key, integrations] of [
      [null, []],
      [member.key, names([usable])],
      [server.adminKey, names([usable, unusable])],
    ] as const) {
      const data = await served(key ? { ApiKey: key } : {});
      expect(data.board).toEqual(expectOk(await server.call('GET', `/api/boards/${board.boardId}`, { key })));
      expect(data.apps).toEqual(expectOk(await server.call('GET', `/api/boards/${board.boardId}/apps`, { key })).apps);
      expect(data.board.items.find((i: { id: string }) => i.id === note).options.content).toBe(vector);
      expect(data.apps.map((app: { id: string }) => app.id)).toEqual([board.app.appId]);
      expect(data.integrations).toEqual(integrations);
      if (key) {
        const listed = expectOk(await server.call('GET', '/api/integrations?limit=100', { key })) as { id: string; name: string }[];
        expect(names(listed.filter((entry) => [usable, unusable].includes(entry.id)).map((entry) => entry.id))).toEqual(integrations);
      }
    }
    // A board the caller may not view comes with nothing (PAGE-3: the same page as a missing one).
    const owner = await createActor(server, { permissions: ['board-create', 'app-create'] });
    const hidden = await seedBoard({ isPublic: false, key: owner.key });
    const page404 = await fetch(`${server.directUrl}/boards/${hidden.name}`);
    expect(page404.status).toBe(404);
    expect(await page404.text()).not.toContain('board-data');
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

/** Signs the page's browser in with the session cookie (the page's own form is tested in NAV-4). */
async function signIn(page: Page, username: string, password: string): Promise<void> {
  expect((await page.request.post(`${server.directUrl}/api/auth/login`, { data: { username, password } })).status()).toBe(200);
}

/**
 * Waits until an element's computed style property has a value. The predicate runs in the page (serialized: it names
 * nothing from here; a string predicate would be eval, which the page's CSP refuses).
 */
const styleReaches = (page: Page, selector: string, property: string, value: string) =>
  page.waitForFunction(([s, p, v]) => (globalThis as any).getComputedStyle((globalThis as any).document.querySelector(s))[p] === v, [selector, property, value]);
const width = (page: Page, selector: string) => page.locator(selector).first().evaluate((e: any) => e.getBoundingClientRect().width as number);

describe('board page as a start page (NAV-*)', () => {
  it('NAV-1, NAV-2: / opens the desktop home board in a wide window, the mobile one in a narrow window or on a phone', async () => {
    const desktop = await seedBoard();
    const mobile = await seedBoard();
    const user = await createActor(server, { password: 'nav-home-pass-1' });
    expectOk(await server.call('PATCH', `/api/boards/${desktop.boardId}/home`, { key: user.key, body: {} }), 204);
    expectOk(await server.call('PATCH', `/api/boards/${mobile.boardId}/mobile-home`, { key: user.key, body: {} }), 204);

    // A phone (client hint or user agent) is sent to its board at once; another client gets the list naming both.
    const phone = await fetch(`${server.directUrl}/`, { redirect: 'manual', headers: { ApiKey: user.key, 'User-Agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148' } });
    expect([phone.status, phone.headers.get('location')]).toEqual([302, `/boards/${mobile.name}`]);
    const hinted = await fetch(`${server.directUrl}/`, { redirect: 'manual', headers: { ApiKey: user.key, 'Sec-CH-UA-Mobile': '?1' } });
    expect(hinted.headers.get('location')).toBe(`/boards/${mobile.name}`);
    const unknown = await fetch(`${server.directUrl}/`, { redirect: 'manual', headers: { ApiKey: user.key } });
    expect(unknown.status).toBe(200);
    expect(await unknown.text()).toContain(`data-home-desktop="${desktop.name}" data-home-mobile="${mobile.name}"`);

    for (const [viewport, board] of [
      [1280, desktop],
      [390, mobile],
    ] as const) {
      const { page, errors } = await openPage(viewport);
      await signIn(page, user.username, 'nav-home-pass-1');
      await page.goto(`${server.directUrl}/`);
      await page.waitForURL(`**/boards/${board.name}`);
      await page.waitForSelector(`.tile[data-item-id="${board.clock}"]`);
      expect(errors).toEqual([]);
      await page.close();
    }

    // An anonymous caller gets the server's setting (NAV-1), when it may view that board.
    expect((await fetch(`${server.directUrl}/`, { redirect: 'manual' })).status).toBe(200);
    expectOk(await server.call('PATCH', '/api/settings/board', { body: { homeBoardId: desktop.boardId, mobileHomeBoardId: mobile.boardId } }));
    try {
      const anonymousPhone = await fetch(`${server.directUrl}/`, { redirect: 'manual', headers: { 'Sec-CH-UA-Mobile': '?1' } });
      expect(anonymousPhone.headers.get('location')).toBe(`/boards/${mobile.name}`);
      const anonymous = await fetch(`${server.directUrl}/`, { redirect: 'manual' });
      expect(await anonymous.text()).toContain(`data-home-desktop="${desktop.name}" data-home-mobile="${mobile.name}"`);
    } finally {
      expectOk(await server.call('PATCH', '/api/settings/board', { body: { homeBoardId: null, mobileHomeBoardId: null } }));
    }

    // Without a mobile home board both are the same: a 302 for every client.
    expectOk(await server.call('PATCH', `/api/boards/${desktop.boardId}/mobile-home`, { key: user.key, body: {} }), 204);
    const same = await fetch(`${server.directUrl}/`, { redirect: 'manual', headers: { ApiKey: user.key } });
    expect([same.status, same.headers.get('location')]).toEqual([302, `/boards/${desktop.name}`]);
  });

  it('NAV-3, NAV-4, NAV-7: the boards menu lists the readable boards; the admin gets its first password from BOOTSTRAP_ADMIN_PASSWORD, signs in and out in the top bar', async () => {
    const open = await seedBoard();
    const owner = await createActor(server, { permissions: ['board-create', 'app-create'], password: 'nav-owner-pass' });
    const hidden = await seedBoard({ isPublic: false, key: owner.key });

    // NAV-7: the bootstrap admin has no password yet; the start-up setting gives it one, and never replaces it.
    expect((await bootstrapAdmin(server.db, { apiKey: null, password: 'first-admin-pass' })).passwordSet).toBe(true);
    expect((await bootstrapAdmin(server.db, { apiKey: null, password: 'another-pass-99' })).passwordSet).toBe(false);

    const { page, errors } = await openPage(1280);
    await page.goto(`${server.directUrl}/boards/${open.name}`);
    await page.waitForSelector('.topbar .boards-menu');
    await page.click('.topbar .boards-menu summary');
    const menu = () => page.locator('.topbar .boards-menu li a').allInnerTexts();
    expect(await menu()).toContain(open.name);
    expect(await menu()).not.toContain(hidden.name);

    await page.click('.topbar .signin summary');
    await page.fill('.topbar input[name=username]', 'admin');
    await page.fill('.topbar input[name=password]', 'another-pass-99');
    await page.click('.topbar button[type=submit]');
    await page.waitForSelector('.topbar .message:has-text("Invalid username or password")');
    await page.fill('.topbar input[name=password]', 'first-admin-pass');
    await page.click('.topbar button[type=submit]');
    await page.waitForSelector('.topbar .who:has-text("admin")');
    await page.click('.topbar .boards-menu summary');
    expect(await menu()).toContain(hidden.name); // the admin reads every board
    await page.click(`.topbar .boards-menu a:text-is("${hidden.name}")`);
    await page.waitForSelector(`.tile[data-item-id="${hidden.clock}"]`);
    expect(page.url()).toBe(`${server.directUrl}/boards/${hidden.name}`);

    // The session cookie cannot be ended (nor used to write) from another site (SEC-5).
    const cookie = (await browser!.cookies(server.directUrl)).map((c) => `${c.name}=${c.value}`).join('; ');
    const crossSite = await fetch(`${server.directUrl}/api/auth/logout`, { method: 'POST', headers: { Cookie: cookie, Origin: 'https://evil.example' } });
    expect([crossSite.status, ((await crossSite.json()) as any).code]).toEqual([403, 'FORBIDDEN']);
    expect((await fetch(`${server.directUrl}/api/auth/session`, { headers: { Cookie: cookie } })).status).toBe(200);

    await page.click('.topbar .signout');
    await page.waitForSelector('h1:has-text("Board not found")');
    await page.waitForSelector('.topbar .account', { state: 'attached' });
    expect(await page.locator('.topbar .who').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();

    // The list page at / carries the same menu.
    const list = await openPage(1280);
    await list.page.goto(`${server.directUrl}/`);
    await list.page.waitForSelector('.topbar .boards-menu');
    expect(await list.page.locator('.topbar .signin').count()).toBe(1);
    await list.page.close();
  });

  it('NAV-5, PAGE-9: at phone width the grid keeps the window width, the board details are a drawer, a collapsed section starts folded', async () => {
    const board = await seedBoard();
    const reader = await createActor(server, { password: 'nav-phone-pass' });
    await server.db('section_collapse_states').insert({ userId: reader.userId, sectionId: board.category, collapsed: true });
    const { page, errors } = await openPage(390);
    await signIn(page, reader.username, 'nav-phone-pass');
    await page.goto(`${server.directUrl}/boards/${board.name}`);
    await page.waitForSelector(`.tile[data-item-id="${board.clock}"]`);
    expect(await width(page, '.board')).toBeGreaterThan(300);
    expect(await width(page, '.board .grid')).toBeGreaterThan(300);
    expect(await page.locator('.history').isVisible()).toBe(false);

    // The collapsed category starts folded (its app tile hidden) and opens on a click.
    expect(await page.locator(`.tile[data-item-id="${board.appWidget}"]`).isVisible()).toBe(false);
    await page.click(`details[data-section-id="${board.category}"] > summary`);
    await page.waitForSelector(`.tile[data-item-id="${board.appWidget}"]`, { state: 'visible' });

    await openDetails(page);
    await page.waitForSelector('#board-details .history', { state: 'visible' });
    expect(await width(page, '.board')).toBeGreaterThan(300); // the drawer lies over the grid, it does not squeeze it
    await page.screenshot({ path: path.join(artifacts, 'board-phone-390-details.png') });
    await page.click('.details-close');
    await page.waitForSelector('#board-details', { state: 'hidden' });
    expect(errors).toEqual([]);
    await page.close();

    // At desktop width the panel opens beside the grid, which gives it room.
    const wide = await openPage(1280);
    await wide.page.goto(`${server.directUrl}/boards/${board.name}`);
    await wide.page.waitForSelector(`.tile[data-item-id="${board.clock}"]`);
    expect(await wide.page.locator('.history').isVisible()).toBe(false);
    const full = await width(wide.page, '.board');
    await openDetails(wide.page);
    expect(await wide.page.locator('#board-details').evaluate((e: any) => (globalThis as any).getComputedStyle(e).position)).toBe('static');
    expect(await width(wide.page, '.board')).toBeLessThan(full - 250);
    await wide.page.close();
  });

  it('NAV-6: the look settings apply; custom CSS is a style sheet of the instance; neither it nor board text runs script', async () => {
    const board = await seedBoard();
    const css = [
      '.tile { outline: 3px solid rgb(1, 2, 3); }',
      '@import url("https://evil.example/steal.css");',
      'body { background-color: rgb(4, 5, 6); }',
      'header h1::after { content: "</style><script>alert(1)</script>"; }',
      '.board { background-image: url("javascript:alert(2)"); }',
    ].join('\n');
    expectOk(
      await server.call('PATCH', `/api/boards/${board.boardId}/settings`, {
        body: {
          pageTitle: '<img src=x onerror=alert(3)> Home',
          metaTitle: 'Start <b>page</b>',
          primaryColor: '#123456',
          secondaryColor: '#654321',
          opacity: 50,
          itemRadius: 'xl',
          backgroundImageUrl: 'javascript:alert(4)',
          customCss: css,
        },
      }),
      204,
    );
    const sheet = await fetch(`${server.directUrl}/boards/${board.name}/custom.css`);
    expect([sheet.status, sheet.headers.get('content-type'), await sheet.text()]).toEqual([200, 'text/css; charset=utf-8', css]);
    const missing = await fetch(`${server.directUrl}/boards/${unique('nope-')}/custom.css`);
    expect([missing.status, ((await missing.json()) as any).code]).toEqual([404, 'NOT_FOUND']);

    const { page, offsite, errors } = await openPage(1280);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${server.directUrl}/boards/${board.name}`);
    await page.waitForSelector(`.tile[data-item-id="${board.clock}"]`);
    const tile = page.locator(`.tile[data-item-id="${board.clock}"]`);
    await styleReaches(page, '.tile', 'outlineColor', 'rgb(1, 2, 3)');
    expect(await page.locator('header h1').innerText()).toBe('<img src=x onerror=alert(3)> Home');
    expect(await page.title()).toBe('Start <b>page</b>');
    const look = await tile.evaluate((e: any) => {
      const style = (globalThis as any).getComputedStyle(e);
      return { radius: style.borderTopLeftRadius, background: style.backgroundColor };
    });
    expect(look).toEqual({ radius: '32px', background: 'rgba(255, 255, 255, 0.5)' });
    await openDetails(page);
    expect(await page.locator('.layout.current').evaluate((e: any) => (globalThis as any).getComputedStyle(e).backgroundColor)).toBe('rgb(18, 52, 86)');
    expect(await page.locator('.category').evaluate((e: any) => (globalThis as any).getComputedStyle(e).color)).toBe('rgb(101, 67, 33)');
    expect(await page.evaluate(() => (globalThis as any).document.body.style.backgroundImage)).toBe(''); // a javascript: address is not an image
    // The instance's two scripts (THEMEVIEW-5's head script and the page script), nothing else.
    expect(await page.locator('script').evaluateAll((all: any[]) => all.map((e) => (e.getAttribute('src') ?? '').replace(/\?v=[0-9a-f]{16}$/, '')))).toEqual(['/assets/scheme.js', '/assets/board.js']);
    expect(dialogs).toEqual([]);
    // Only the app's own icon comes from elsewhere (VIEW-5): nothing the custom CSS or the settings name.
    expect(offsite).toEqual(['https://cdn.example.com/jellyfin.svg']);
    expect(errors).toEqual([]);

    // A change of the settings arrives through the change feed, without reloading.
    expectOk(await server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { backgroundImageUrl: '/assets/none.png', primaryColor: '#00ff00' } }), 204);
    await page.waitForFunction(() => (globalThis as any).document.body.style.backgroundImage.includes('/assets/none.png'));
    await styleReaches(page, '.layout.current', 'backgroundColor', 'rgb(0, 255, 0)');
    await page.close();
  });
});
