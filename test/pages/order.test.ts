/**
 * The board page in headless Chromium: a notebook's task list shows disabled checkboxes (VIEW-8), and the tiles are in
 * the DOM, so in keyboard and screen-reader order, as they are seen: section by section, each top to bottom and left
 * to right in the layout shown, also after a live update (PAGE-8).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, TestBrowser } from '../support/browser';
import { startTestServer, TestServer } from '../support/server';
import { unique } from '../support/unique';
import { eventually } from '../support/eventually';
import { categorySection, expectOk, item, position } from '../boards-document/helpers';

let server: TestServer;
let launched: TestBrowser | undefined;
let browser: BrowserContext;
beforeAll(async () => {
  launched = await launchBrowser();
  browser = launched.context;
  server = await startTestServer();
}, 120_000);
afterAll(async () => {
  await launched?.close();
  await server?.stop();
});

async function openPage(name: string, width = 1280): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  await page.setViewportSize({ width, height: 900 });
  const origin = new URL(server.directUrl).origin;
  await page.route('**/*', (route) => (route.request().url().startsWith(origin) ? route.continue() : route.abort()));
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.directUrl}/boards/${name}`);
  return { page, errors };
}

async function newBoard() {
  const name = unique('order-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: true } }), 201);
  const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  return { name, boardId, doc, layout: doc.layouts[0].id as string, top: doc.sections[0].id as string };
}

const tileOrder = (page: Page) => page.locator('.tile[data-item-id]').evaluateAll((all: any[]) => all.map((tile) => tile.dataset.itemId as string));

it('VIEW-8: a task list shows disabled checkboxes, checked as written, in place of bullets; no other input survives the sanitizer', async () => {
  const { name, boardId, doc, layout, top } = await newBoard();
  const note = unique('note');
  const content = [
    '- [x] done',
    '- [ ] to do',
    '',
    '<input type="checkbox" name="live" onclick="window.__xss=1">',
    '',
    '<input type="checkbox" disabled value="v" name="n" onclick="window.__xss=2" autofocus>',
    '',
    '<input type="text" disabled value="field">',
  ].join('\n');
  expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections: doc.sections, items: [item(note, [position(layout, top, 0, 0, 6, 4)], { kind: 'notebook', options: { content } })] } }));
  const { page, errors } = await openPage(name);
  const root = page.locator(`.tile[data-item-id="${note}"] .notebook-content:not([data-pending])`);
  await root.locator('li').first().waitFor();
  const shown = await root.evaluate((element: any) => ({
    inputs: Array.from(element.querySelectorAll('input')).map((input: any) => ({
      attributes: Array.from(input.attributes as any[]).map((a: any) => a.name).sort(),
      checked: input.checked,
      disabled: input.disabled,
      inTask: input.parentElement.tagName === 'LI' ? input.parentElement.textContent.trim() : null,
    })),
    bullets: Array.from(element.querySelectorAll('li')).map((li: any) => (globalThis as any).getComputedStyle(li).listStyleType),
  }));
  expect(shown).toEqual({
    inputs: [
      { attributes: ['checked', 'disabled', 'type'], checked: true, disabled: true, inTask: 'done' },
      { attributes: ['disabled', 'type'], checked: false, disabled: true, inTask: 'to do' },
      { attributes: ['disabled', 'type'], checked: false, disabled: true, inTask: null },
    ],
    bullets: ['none', 'none'],
  });
  // Disabled: a click changes nothing.
  await root.locator('input').first().click({ force: true });
  expect(await root.locator('input').first().isChecked()).toBe(true);
  expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined();
  expect(errors).toEqual([]);
  await page.close();
});

it('PAGE-8: tiles are in the DOM as seen (section by section, then y, then x of the layout shown), whatever the board\'s item order; keyboard focus follows; a live update keeps it', async () => {
  const { name, boardId, doc, layout, top } = await newBoard();
  const media = unique('se');
  const sections = [...doc.sections, categorySection(media, 'Media', 1)];
  const ids = { topRight: unique('tr'), topLeft: unique('tl'), secondRow: unique('sr'), mediaRight: unique('mr'), mediaLeft: unique('ml') };
  const appItem = async (id: string, x: number, y: number, sectionId: string) => {
    const { appId } = expectOk(await server.call('POST', '/api/apps', { body: { name: unique(id), iconUrl: 'data:image/png;base64,iVBORw0KGgo=', href: `https://${id}.example.com` } }), 201);
    return item(id, [position(layout, sectionId, x, y, 2, 1)], { kind: 'app', options: { appId } });
  };
  // Listed against the visual order: the media section's first, right before left, bottom before top.
  const items = [
    await appItem(ids.mediaRight, 4, 0, media),
    await appItem(ids.mediaLeft, 0, 0, media),
    await appItem(ids.secondRow, 0, 1, top),
    await appItem(ids.topRight, 6, 0, top),
    await appItem(ids.topLeft, 0, 0, top),
  ];
  expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections, items } }));
  const { page, errors } = await openPage(name);
  await page.locator(`.tile[data-item-id="${ids.topLeft}"]`).waitFor();
  const seen = [ids.topLeft, ids.topRight, ids.secondRow, ids.mediaLeft, ids.mediaRight];
  expect(await tileOrder(page)).toEqual(seen);
  // Tab goes through the tiles' links in that order (the Media section's title, a summary, is a stop of its own).
  const focused: string[] = [];
  await page.locator(`.tile[data-item-id="${ids.topLeft}"] a`).focus();
  for (let i = 0; i < seen.length + 3 && focused.length < seen.length; i++) {
    const id = await page.evaluate(() => ((globalThis as any).document.activeElement.closest('.tile') as any)?.dataset.itemId ?? '');
    if (id) focused.push(id);
    await page.keyboard.press('Tab');
  }
  expect(focused).toEqual(seen);

  // A live update adds a tile at the top left and moves the second row's to the right of the first row: the page
  // patches in place and keeps the reading order.
  const first = await appItem(unique('nw'), 0, 0, top);
  const moved = { ...items[2], layouts: [position(layout, top, 8, 0, 2, 1)] };
  const shifted = { ...items[4], layouts: [position(layout, top, 2, 0, 2, 1)] };
  const current = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  expectOk(await server.call('PUT', `/api/boards/${boardId}`, { body: { sections: current.sections, items: [items[0], items[1], moved, items[3], shifted, first] } }));
  await eventually(async () => expect(await tileOrder(page)).toEqual([first.id, ids.topLeft, ids.topRight, ids.secondRow, ids.mediaLeft, ids.mediaRight]));
  expect(errors).toEqual([]);
  await page.close();
});
