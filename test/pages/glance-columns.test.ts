/**
 * CONV-21 in the browser: the Glance fixture converted, imported over the API and opened in headless Debian chromium
 * at 1440x900 shows its page's small and full columns side by side (bounding boxes), together more than 80% of the
 * window wide, each column's bookmarks groups and monitor inside it, nothing cut off; at phone width the columns stand
 * one under another. Requests off the instance are refused (images: a 1x1 PNG).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { closeAfterTests, launchBrowser, type TestBrowser } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk } from '../boards-document/helpers';
import { converters } from '../../src/convert';
import { fixtureInput } from '../convert/support';

declare const document: any;
declare const window: any;

const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

let server: TestServer;
let launched: TestBrowser | undefined;
let browser: BrowserContext | undefined;
let name: string;
let board: any;
beforeAll(async () => {
  launched = await launchBrowser();
  browser = launched.context;
  server = await startTestServer();
  const origin = new URL(server.directUrl).origin;
  await browser.route('**/*', (route) => {
    const request = route.request();
    if (request.url().startsWith(origin) || request.url().startsWith('data:')) return route.continue();
    if (request.resourceType() === 'image') return route.fulfill({ status: 200, contentType: 'image/png', body: png });
    if (request.frame() !== request.frame().page().mainFrame()) return route.fulfill({ status: 200, contentType: 'text/html', body: '<p>embedded</p>' });
    return route.abort();
  });
  const [file] = converters.glance(fixtureInput('glance')).boards;
  name = unique('glance-columns-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards/import', { body: { ...file, name, isPublic: true } }), 201);
  board = expectOk(await server.call('GET', `/api/boards/${boardId}`));
}, 120_000);
closeAfterTests(() => ({ launched, server }));

interface Box {
  id: string;
  title: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
  /** Content taller or wider than the box (cut off by its overflow: hidden). */
  cut: boolean;
  parent: string | null;
}

async function open(width: number, height: number): Promise<{ page: Page; errors: string[]; boxes: Box[]; window: number }> {
  const page = await browser!.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.setViewportSize({ width, height });
  await page.goto(`${server.directUrl}/boards/${name}`);
  for (const entry of board.items) await page.waitForSelector(`.tile[data-item-id="${entry.id}"]`);
  const boxes: Box[] = await page.locator('.tile.dynamic').evaluateAll((all: any[]) =>
    all.map((tile) => {
      const rect = tile.getBoundingClientRect();
      const grid = tile.querySelector(':scope > .grid');
      const last = grid ? Array.from(grid.children).map((child: any) => child.getBoundingClientRect().bottom) : [];
      return {
        id: tile.dataset.sectionId,
        title: tile.querySelector(':scope > .dynamic-title')?.textContent ?? '',
        left: rect.left,
        right: rect.right,
        top: rect.top,
        bottom: rect.bottom,
        cut: Math.max(rect.top, ...(last as number[])) > rect.bottom + 0.5,
        parent: tile.parentElement.closest('.tile.dynamic')?.dataset.sectionId ?? null,
      };
    }),
  );
  return { page, errors, boxes, window: await page.evaluate(() => window.innerWidth) };
}

describe('Glance\'s columns on the board page (CONV-21)', () => {
  const columnIds = () => board.sections.filter((s: any) => s.kind === 'dynamic' && s.options.title === '').map((s: any) => s.id);

  it('CONV-21: at 1440x900 the small and full columns stand side by side, the small one narrower, together more than 80% of the window; their groups and monitor inside them, nothing cut off', async () => {
    const { errors, boxes, window: width } = await open(1440, 900);
    const [small, full] = columnIds().map((id: string) => boxes.find((b) => b.id === id)!);
    expect([small.parent, full.parent]).toEqual([null, null]);
    // Side by side: the full column right of the small one, both starting at the same height.
    expect(full.left).toBeGreaterThanOrEqual(small.right);
    expect(Math.abs(full.top - small.top)).toBeLessThan(1);
    expect(small.right - small.left).toBeLessThan((full.right - full.left) / 2);
    expect((full.right - small.left) / width).toBeGreaterThan(0.8);
    // Each column's sections inside it, one under another.
    const inside = (column: Box) => boxes.filter((b) => b.parent === column.id);
    expect(inside(small).map((b) => b.title)).toEqual(['General', 'Homelab']);
    expect(inside(full).map((b) => b.title)).toEqual(['Services']);
    for (const column of [small, full]) {
      for (const part of inside(column)) {
        expect([part.title, part.left >= column.left, part.right <= column.right, part.top >= column.top, part.bottom <= column.bottom + 0.5]).toEqual([part.title, true, true, true, true]);
      }
    }
    const [general, homelab] = inside(small);
    expect(homelab.top).toBeGreaterThanOrEqual(general.bottom);
    expect(boxes.filter((b) => b.cut).map((b) => b.title || b.id)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('CONV-21: at phone width the columns stand one under another, each the whole width of the board', async () => {
    const { errors, boxes } = await open(390, 844);
    const [small, full] = columnIds().map((id: string) => boxes.find((b) => b.id === id)!);
    expect(full.top).toBeGreaterThanOrEqual(small.bottom);
    expect(Math.abs(full.left - small.left)).toBeLessThan(1);
    expect(Math.abs(full.right - small.right)).toBeLessThan(1);
    expect(boxes.filter((b) => b.cut).map((b) => b.title || b.id)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
