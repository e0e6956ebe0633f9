/**
 * DL-10: the `downloads` widget kind: the torrents and usenet/HTTP downloads of its bound download clients, one
 * upstream request set per integration per TTL (whatever the item's options), shaped per item by `view`.
 */
import type { ClientContext } from '../../../integrations/clients/types';
import { ServiceError } from '../../../integrations/clients/types';
import { ratioOf, type DownloadClientData, type DownloadItem } from '../../../integrations/clients/downloads';
import { qbittorrentAct, qbittorrentDownloads } from '../../../integrations/clients/qbittorrent';
import { transmissionAct, transmissionDownloads } from '../../../integrations/clients/transmission';
import { delugeDownloads } from '../../../integrations/clients/deluge';
import { aria2Downloads } from '../../../integrations/clients/aria2';
import { nzbgetDownloads } from '../../../integrations/clients/nzbget';
import type { BoundIntegration, LiveKind, WidgetOptions } from '../types';

export type DownloadsData = DownloadClientData;

const clients = {
  qBittorrent: { name: 'qBittorrent', list: qbittorrentDownloads, act: qbittorrentAct },
  transmission: { name: 'Transmission', list: transmissionDownloads, act: transmissionAct },
  deluge: { name: 'Deluge', list: delugeDownloads, act: undefined },
  aria2: { name: 'aria2', list: aria2Downloads, act: undefined },
  nzbGet: { name: 'NZBGet', list: nzbgetDownloads, act: undefined },
} as const;

type ClientKind = keyof typeof clients;

function clientOf(integration: BoundIntegration) {
  if (!Object.hasOwn(clients, integration.kind)) throw new ServiceError('failed', `${integration.kind} is not a download client`);
  return clients[integration.kind as ClientKind];
}

/** DL-12: sort keys: the widget's column names (Homarr's) and the data's own field names. */
const sortKeys: Record<string, keyof DownloadItem> = {
  name: 'name',
  state: 'state',
  progress: 'progress',
  size: 'sizeBytes',
  sizeBytes: 'sizeBytes',
  received: 'downloadedBytes',
  downloadedBytes: 'downloadedBytes',
  downSpeed: 'downloadSpeed',
  downloadSpeed: 'downloadSpeed',
  upSpeed: 'uploadSpeed',
  uploadSpeed: 'uploadSpeed',
  ratio: 'ratio',
  time: 'etaSeconds',
  eta: 'etaSeconds',
  etaSeconds: 'etaSeconds',
  category: 'category',
  type: 'type',
};

function compare(a: DownloadItem, b: DownloadItem, key: keyof DownloadItem, descending: boolean): number {
  const x = a[key];
  const y = b[key];
  // missing values (no ratio, no ETA, no category) last, whichever the direction
  if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
  const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
  return descending ? -order : order;
}

function flag(options: WidgetOptions, name: string, fallback: boolean): boolean {
  return typeof options[name] === 'boolean' ? (options[name] as boolean) : fallback;
}

/**
 * DL-11, DL-12, DL-13: one item's view of one integration's downloads: completed downloads hidden per type
 * (`showCompletedTorrent|Usenet|Http`, default shown; a completed torrent also needs an upload speed of at least
 * `activeTorrentThreshold` KiB/s), the category filter (`categoryFilter`, a whitelist when `filterIsWhitelist`, else
 * a blacklist; nothing filtered when empty), sorted by `defaultSort` (`descendingDefaultSort`), at most
 * `limitPerIntegration` items. `totals.ratio` is over the filtered downloads when `applyFilterToRatio` (default), else
 * over all; the other totals are the client's.
 */
export function downloadsView(data: DownloadsData, options: WidgetOptions): DownloadsData {
  const threshold = typeof options.activeTorrentThreshold === 'number' ? options.activeTorrentThreshold * 1024 : 0;
  const shown = data.items.filter((item) => {
    if (item.progress < 1) return true;
    if (item.type === 'torrent') return flag(options, 'showCompletedTorrent', true) && item.uploadSpeed >= threshold;
    if (item.type === 'usenet') return flag(options, 'showCompletedUsenet', true);
    return flag(options, 'showCompletedHttp', true);
  });
  const categories = Array.isArray(options.categoryFilter) ? options.categoryFilter.filter((c): c is string => typeof c === 'string') : [];
  const whitelist = flag(options, 'filterIsWhitelist', false);
  const filtered = categories.length === 0 ? shown : shown.filter((item) => (item.category !== null && categories.includes(item.category)) === whitelist);
  const ratio = flag(options, 'applyFilterToRatio', true) ? ratioOf(filtered) : data.totals.ratio;
  const key = typeof options.defaultSort === 'string' && Object.hasOwn(sortKeys, options.defaultSort) ? sortKeys[options.defaultSort] : undefined;
  const descending = flag(options, 'descendingDefaultSort', false);
  const sorted = key ? [...filtered].sort((a, b) => compare(a, b, key, descending)) : filtered;
  const limit = typeof options.limitPerIntegration === 'number' && options.limitPerIntegration >= 1 ? Math.floor(options.limitPerIntegration) : Infinity;
  return { items: sorted.slice(0, limit), totals: { ...data.totals, ratio } };
}

export const downloadsActions = ['pause', 'resume'] as const;

/** A BitTorrent v1 (SHA-1) or v2 (SHA-256) info hash, as the torrent clients' items carry as id. */
const torrentHash = /^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/;

export const downloadsKind: LiveKind<DownloadsData> = {
  widgetKind: 'downloads',
  ttlMs: 5_000,
  integrationKinds: Object.keys(clients),
  // the options only shape the view: every item over one integration shares one upstream request
  query: () => ({}),
  fromIntegration: (ctx: ClientContext, integration: BoundIntegration) => clientOf(integration).list(ctx, integration.target),
  view: downloadsView,
  actions: downloadsActions,
  // DL-9: pause and resume for qBittorrent and Transmission by torrent hash; the other clients say it is not supported
  async act(ctx, integration, action, ids) {
    const client = clientOf(integration);
    if (action !== 'pause' && action !== 'resume') throw new ServiceError('failed', `${action} is not an action of downloads`);
    if (!client.act) throw new ServiceError('failed', `${client.name}: ${action} is not supported for this client`);
    // torrent hashes only: qBittorrent reads `all` as every torrent and `|` as a separator
    const bad = ids.find((id) => !torrentHash.test(id));
    if (bad !== undefined) throw new ServiceError('failed', `${client.name}: ${JSON.stringify(bad.slice(0, 80))} is not a torrent hash`);
    if (ids.length === 0) return;
    await client.act(ctx, integration.target, action, ids);
  },
};
