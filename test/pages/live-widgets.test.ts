/**
 * Live tiles on the board page in headless Chromium (LIVEVIEW-1..11), against the real services these machines run:
 * qBittorrent, Glances, Radicale and Podman, started here; feeds and a custom API from local HTTP servers, and a local
 * stand-in for Open-Meteo (no internet here: it serves the recorded answer test/widgets/live/fixtures/). What a person
 * sees: a torrent's name and its state in words, a CPU percentage, an event title, a feed post, a container name, a
 * custom field, the temperature; a viewer without `interact` sees no button; the signed-in admin resumes the torrent
 * from the page; a tile follows the service without a reload, and a hidden tab asks nothing.
 */
import type { Page, Request } from 'playwright-core';
import { bootstrapAdmin } from '../../src/identity/bootstrap';
import { axeAudit } from '../support/axe';
import { launchBrowser, type TestBrowser } from '../support/browser';
import { liveTorrentName, seedLiveBoard, startLiveServices, torrentMagnet, type LiveBoardIds, type LiveServices } from '../support/liveBoard';
import { startTestServer, type TestServer } from '../support/server';
import { qbittorrentAddMagnet, qbittorrentLogin, startTimeoutMs } from '../support/services/downloads';
import { expectOk } from '../boards-document/helpers';
import { unique } from '../support/unique';

/** What the functions run in the page see (this file is compiled without the DOM library). */
declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any
declare const window: any; // eslint-disable-line @typescript-eslint/no-explicit-any

const torrentName = liveTorrentName;
const laterTorrent = 'tessera-page-torrent-added-later';
const containerName = unique('tessera-page-box');

let browser: TestBrowser | undefined;
let services: LiveServices | undefined;
let server: TestServer;
let ids: LiveBoardIds;
let boardName = '';

beforeAll(async () => {
  browser = await launchBrowser();
  services = await startLiveServices(containerName);
  server = await startTestServer(services.env);
  await bootstrapAdmin(server.db, { apiKey: null, password: 'live-admin-pass' });
  boardName = unique('live-page-');
  const call = async (method: string, path: string, body?: unknown) => {
    const answer = await server.call(method, path, body === undefined ? {} : { body });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  ({ ids } = await seedLiveBoard(call, services, boardName));
}, startTimeoutMs + 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await services?.stop();
}, 180_000);

const tile = (page: Page, id: string) => page.locator(`.tile[data-item-id="${id}"]`);

async function openBoard(width: number, signedIn = false): Promise<{ page: Page; errors: string[]; dataAsks: () => number }> {
  const page = await browser!.context.newPage();
  await page.setViewportSize({ width, height: 900 });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  let asks = 0;
  page.on('request', (request: Request) => {
    if (/\/items\/[^/]+\/data$/.test(new URL(request.url()).pathname)) asks += 1;
  });
  if (signedIn) expect((await page.request.post(`${server.directUrl}/api/auth/login`, { data: { username: 'admin', password: 'live-admin-pass' } })).status()).toBe(200);
  else await page.context().clearCookies();
  await page.goto(`${server.directUrl}/boards/${boardName}`);
  return { page, errors, dataAsks: () => asks };
}

describe('live tiles on the board page (LIVEVIEW)', () => {
  it('LIVEVIEW-1, LIVEVIEW-5..11: an anonymous viewer sees every kind\'s live data as text, states in words, and no action button', async () => {
    const { page, errors } = await openBoard(1440);
    const downloads = tile(page, ids.downloads);
    await page.waitForFunction((id) => document.querySelector(`.tile[data-item-id="${id}"] .live-table`)?.textContent?.includes('Paused'), ids.downloads, { timeout: 60_000 });
    // no `interact`: no button, and no empty Actions column
    expect(await downloads.locator('th').allInnerTexts()).toEqual(['Name', 'State', 'Progress', 'Size']);
    expect(await downloads.locator('button').count()).toBe(0);
    expect(await downloads.locator('.live-summary').innerText()).toMatch(/^Down .+\/s · Up .+\/s · 1 download/);

    const waitFor = (id: string, pattern: RegExp) =>
      page.waitForFunction(([id, source]) => new RegExp(source).test(document.querySelector(`.tile[data-item-id="${id}"] .live`)?.textContent ?? ''), [id, pattern.source] as const, { timeout: 60_000 });
    await waitFor(ids.resources, /CPU\d+(\.\d)?%/);
    expect(await tile(page, ids.resources).locator('.live-label').allInnerTexts()).toEqual(expect.arrayContaining(['CPU', 'Memory', 'Load', 'Up']));
    await waitFor(ids.calendar, /Release party/);
    expect(await tile(page, ids.calendar).locator('.live-where').innerText()).toBe('Room 4');
    await waitFor(ids.feed, /Backups that restore/);
    expect(await tile(page, ids.feed).locator('.live-post-title').first().getAttribute('href')).toBe('https://feed.example/backups');
    await waitFor(ids.containers, new RegExp(containerName));
    expect(await tile(page, ids.containers).locator('.live-state-word').first().innerText()).toBe('created');
    await waitFor(ids.custom, /Uptime1 h 10 minRequests1,834/);
    expect(await tile(page, ids.custom).locator('.widget-title').innerText()).toBe('Custom API');
    await waitFor(ids.weather, /°F/);
    expect(await tile(page, ids.weather).locator('.live-city').innerText()).toBe('Berlin');
    await waitFor(ids.disks, /% used/);
    // A service that does not answer is an error in words on its tile, and the rest of the board is unaffected.
    await waitFor(ids.down, /^Error \(Old NAS .+\): /);
    // Nothing from a service is markup: the feed's <img onerror> is text.
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await tile(page, ids.feed).locator('img').count()).toBe(0);
    // SECRET-5: the drawn page holds no credential of the services it shows
    const drawn = await page.content();
    for (const secret of [qbittorrentLogin.password, services!.radicale.password]) expect(drawn).not.toContain(secret);
    // A11Y-3 on live tiles with their data, light and dark (each scrollable tile body is reachable by keyboard)
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await axeAudit(page)).toEqual([]);
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it('LIVEVIEW-1, WDATA-9: the signed-in admin (interact) sees Resume on the paused torrent, and the page resumes it in qBittorrent', async () => {
    const { page, errors } = await openBoard(1440, true);
    const button = tile(page, ids.downloads).locator('button.live-action', { hasText: 'Resume' });
    await button.waitFor({ timeout: 60_000 });
    expect(await button.getAttribute('aria-label')).toBe(`Resume ${torrentName}`);
    await button.click();
    // qBittorrent no longer reports it paused: the tile, asked again after the action, offers Pause instead.
    await tile(page, ids.downloads).locator('button.live-action', { hasText: 'Pause' }).waitFor({ timeout: 60_000 });
    const audit = expectOk(await server.call('GET', '/api/audit?action=integration.action')) as { details: Record<string, unknown> }[];
    expect(JSON.stringify(audit.map((entry) => entry.details))).toContain('resume');
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it('LIVEVIEW-2: a tile follows the service without a reload; a hidden tab asks nothing until it is shown', async () => {
    const { page, dataAsks } = await openBoard(1440);
    await tile(page, ids.downloads).locator('.live-table').waitFor({ timeout: 60_000 });
    await qbittorrentAddMagnet(services!.qbt, torrentMagnet('2222222222222222222222222222222222222222', laterTorrent));
    // the downloads TTL is 5 s: the new torrent shows on the next asks, with no navigation
    await page.waitForFunction((name) => document.body.textContent?.includes(name), laterTorrent, { timeout: 90_000 });

    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    // Let any ask already under way finish, then count: 12 s covers two downloads TTLs and one Glances TTL.
    await page.waitForTimeout(1_000);
    const hiddenFrom = dataAsks();
    await page.waitForTimeout(12_000);
    expect(dataAsks()).toBe(hiddenFrom);
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    const deadline = Date.now() + 60_000;
    while (dataAsks() === hiddenFrom && Date.now() < deadline) await page.waitForTimeout(200);
    expect(dataAsks()).toBeGreaterThan(hiddenFrom);
    await page.close();
  }, 240_000);

  it('LIVEVIEW-3: at phone width the tiles keep their text; narrow tables drop the optional columns, never the name or the state', async () => {
    const { page, errors } = await openBoard(390);
    const downloads = tile(page, ids.downloads);
    await downloads.locator('.live-table').waitFor({ timeout: 60_000 });
    await page.waitForFunction((name) => document.body.textContent?.includes(name), torrentName, { timeout: 60_000 });
    const visibleHeaders = await downloads.locator('th:visible').allInnerTexts();
    expect(visibleHeaders).toEqual(expect.arrayContaining(['Name', 'State']));
    expect(visibleHeaders).not.toContain('Size');
    // the page does not scroll sideways
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
