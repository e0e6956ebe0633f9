/** DL-10..13: the `downloads` kind's pure view of one integration's downloads for one item's options. */
import type { DownloadItem } from '../../src/integrations/clients/downloads';
import { totalsOf } from '../../src/integrations/clients/downloads';
import { downloadsKind, downloadsView, type DownloadsData } from '../../src/widgets/data/kinds/downloads';
import { liveKinds } from '../../src/widgets/data/kinds';
import { widgetDefinitions } from '../../src/widgets/registry';

function item(id: string, over: Partial<DownloadItem>): DownloadItem {
  return { id, name: id, state: 'downloading', progress: 0.5, sizeBytes: 100, downloadedBytes: 50, downloadSpeed: 0, uploadSpeed: 0, ratio: null, etaSeconds: null, category: null, type: 'torrent', ...over };
}

const items = [
  item('t-active', { name: 'Charlie', category: 'tv', downloadSpeed: 500, ratio: 1, downloadedBytes: 100, etaSeconds: 30 }),
  item('t-done-seeding', { name: 'alpha', progress: 1, state: 'seeding', category: 'movies', uploadSpeed: 4 * 1024, ratio: 3, downloadedBytes: 100 }),
  item('t-done-idle', { name: 'Bravo', progress: 1, state: 'completed', category: 'movies', uploadSpeed: 0, ratio: 0, downloadedBytes: 100 }),
  item('u-queued', { name: 'delta', type: 'usenet', state: 'queued', progress: 0, etaSeconds: 300 }),
  item('u-done', { name: 'echo', type: 'usenet', state: 'completed', progress: 1 }),
  item('h-done', { name: 'foxtrot', type: 'http', state: 'completed', progress: 1, category: 'tv' }),
];
const data: DownloadsData = { items, totals: totalsOf(items) };
const ids = (view: DownloadsData) => view.items.map((i) => i.id);

describe('DL-10: the downloads kind', () => {
  it('DL-10: is listed, reads the five download clients the registry allows, one query for every item, pause and resume', () => {
    expect(liveKinds).toContain(downloadsKind);
    expect(downloadsKind.integrationKinds).toEqual(['qBittorrent', 'transmission', 'deluge', 'aria2', 'nzbGet']);
    for (const kind of downloadsKind.integrationKinds) expect(widgetDefinitions.get('downloads')!.integrationKinds).toContain(kind);
    expect(downloadsKind.query({ limitPerIntegration: 3, columns: ['name'] })).toEqual(downloadsKind.query({}));
    expect(downloadsKind.actions).toEqual(['pause', 'resume']);
    expect(downloadsKind.ttlMs).toBeGreaterThan(0);
  });

  it('DL-11: no options: everything, in the client\'s order', () => {
    expect(downloadsView(data, {})).toEqual(data);
  });

  it('DL-11: completed downloads hidden per type', () => {
    expect(ids(downloadsView(data, { showCompletedTorrent: false }))).toEqual(['t-active', 'u-queued', 'u-done', 'h-done']);
    expect(ids(downloadsView(data, { showCompletedUsenet: false, showCompletedHttp: false }))).toEqual(['t-active', 't-done-seeding', 't-done-idle', 'u-queued']);
  });

  it('DL-11: a completed torrent uploading slower than activeTorrentThreshold KiB/s is hidden', () => {
    expect(ids(downloadsView(data, { activeTorrentThreshold: 2 }))).toEqual(['t-active', 't-done-seeding', 'u-queued', 'u-done', 'h-done']);
  });

  it('DL-12: category filter as a whitelist or a blacklist (items without a category are outside every list)', () => {
    expect(ids(downloadsView(data, { categoryFilter: ['tv'], filterIsWhitelist: true }))).toEqual(['t-active', 'h-done']);
    expect(ids(downloadsView(data, { categoryFilter: ['tv'], filterIsWhitelist: false }))).toEqual(['t-done-seeding', 't-done-idle', 'u-queued', 'u-done']);
    expect(ids(downloadsView(data, { categoryFilter: [], filterIsWhitelist: true }))).toEqual(ids(data));
  });

  it('DL-12: sorted by a column, ascending or descending, missing values last; limited per integration', () => {
    expect(ids(downloadsView(data, { defaultSort: 'name' }))).toEqual(['t-done-seeding', 't-done-idle', 't-active', 'u-queued', 'u-done', 'h-done']);
    expect(ids(downloadsView(data, { defaultSort: 'time', descendingDefaultSort: true }))).toEqual(['u-queued', 't-active', 't-done-seeding', 't-done-idle', 'u-done', 'h-done']);
    expect(ids(downloadsView(data, { defaultSort: 'downSpeed', descendingDefaultSort: true, limitPerIntegration: 1 }))).toEqual(['t-active']);
    expect(ids(downloadsView(data, { defaultSort: 'no-such-column' }))).toEqual(ids(data));
  });

  it('DL-13: the ratio over the filtered downloads, or over all of them', () => {
    expect(data.totals.ratio).toBeCloseTo((1 * 100 + 3 * 100 + 0 * 100) / 300);
    expect(downloadsView(data, { categoryFilter: ['movies'], filterIsWhitelist: true }).totals.ratio).toBeCloseTo(1.5);
    expect(downloadsView(data, { categoryFilter: ['movies'], filterIsWhitelist: true, applyFilterToRatio: false }).totals.ratio).toBeCloseTo(data.totals.ratio!);
    // the client's own totals are kept
    expect(downloadsView(data, { limitPerIntegration: 1 }).totals).toMatchObject({ count: 6, downloadSpeed: 500 });
  });

  it('DL-9: act refuses an action the kind does not offer, a client without actions, and ids that are not torrent hashes', async () => {
    const ctx = { fetch: () => Promise.reject(new Error('no request expected')), timeoutMs: 1, maxBytes: 1, now: () => new Date() };
    const integration = (kind: string) => ({ id: 'i', name: 'n', kind, target: { url: 'http://127.0.0.1:1', secrets: {} } });
    await expect(downloadsKind.act!(ctx, integration('qBittorrent'), 'delete', ['x'])).rejects.toThrow('delete is not an action of downloads');
    await expect(downloadsKind.act!(ctx, integration('aria2'), 'resume', ['x'])).rejects.toThrow('aria2: resume is not supported for this client');
    await expect(downloadsKind.act!(ctx, integration('nzbGet'), 'pause', ['x'])).rejects.toThrow('NZBGet: pause is not supported for this client');
    // only torrent hashes: qBittorrent would read "all" as every torrent
    await expect(downloadsKind.act!(ctx, integration('qBittorrent'), 'pause', ['all'])).rejects.toThrow('qBittorrent: "all" is not a torrent hash');
    await expect(downloadsKind.act!(ctx, integration('transmission'), 'pause', [`${'a'.repeat(40)}|b`])).rejects.toThrow('is not a torrent hash');
    await expect(downloadsKind.act!(ctx, integration('transmission'), 'resume', [])).resolves.toBeUndefined();
  });
});
