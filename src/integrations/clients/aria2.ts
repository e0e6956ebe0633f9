/**
 * DL-7: aria2's JSON-RPC (`POST <url>/jsonrpc`, or the URL itself when it already ends in `/jsonrpc`), every call's
 * first parameter `token:<secret>` with the integration's `apiKey` (aria2's --rpc-secret). `aria2.tellActive`,
 * `aria2.tellWaiting` and `aria2.tellStopped` list; aria2 answers numbers as strings.
 */
import type { ClientContext, IntegrationTarget } from './types';
import { ServiceError } from './types';
import { badAnswer, clampProgress, count, isRecord, parseJson, text, totalsOf, unauthorized, under, type DownloadClientData, type DownloadItem, type DownloadState } from './downloads';

const service = 'aria2';

/** How many waiting (the first) and stopped (the newest) downloads are asked for; the active ones are all listed. */
export const aria2ListLimit = 1000;

export const aria2Keys = ['gid', 'status', 'totalLength', 'completedLength', 'uploadLength', 'downloadSpeed', 'uploadSpeed', 'files', 'bittorrent', 'seeder'] as const;

/** DL-7: aria2's status onto the common words (an active torrent that is complete and seeding is `seeding`). */
export function aria2State(status: string, seeder: boolean): DownloadState {
  switch (status) {
    case 'active':
      return seeder ? 'seeding' : 'downloading';
    case 'waiting':
      return 'queued';
    case 'paused':
      return 'paused';
    case 'complete':
      return 'completed';
    case 'error':
      return 'error';
    default:
      return 'unknown';
  }
}

function lastSegment(path: string): string | null {
  const trimmed = path.replace(/[?#].*$/, '').replace(/\/+$/, '');
  return text(trimmed.slice(trimmed.lastIndexOf('/') + 1));
}

/** The name aria2 shows: the torrent's name, else the first file's name, else the last segment of its first URI. */
export function aria2Name(download: Record<string, unknown>): string {
  const bittorrent = isRecord(download.bittorrent) ? download.bittorrent : {};
  const info = isRecord(bittorrent.info) ? bittorrent.info : {};
  const fromTorrent = text(info.name);
  if (fromTorrent) return fromTorrent;
  const file = Array.isArray(download.files) && isRecord(download.files[0]) ? download.files[0] : {};
  const fromPath = typeof file.path === 'string' ? lastSegment(file.path) : null;
  if (fromPath) return fromPath;
  const uri = Array.isArray(file.uris) && isRecord(file.uris[0]) && typeof file.uris[0].uri === 'string' ? file.uris[0].uri : '';
  return (uri && lastSegment(uri)) || String(download.gid ?? '');
}

/** DL-7: the three lists' downloads (active, waiting, stopped; removed ones left out) onto the common shape. */
export function mapAria2Downloads(lists: readonly unknown[]): DownloadClientData {
  const items: DownloadItem[] = [];
  for (const list of lists) {
    if (!Array.isArray(list)) throw badAnswer(service, 'a download list is not a list');
    for (const d of list) {
      if (!isRecord(d) || d.status === 'removed') continue;
      const size = count(d.totalLength);
      const done = count(d.completedLength);
      const isTorrent = isRecord(d.bittorrent);
      const state = aria2State(String(d.status ?? ''), d.seeder === 'true' || d.seeder === true);
      const downloadSpeed = count(d.downloadSpeed);
      items.push({
        id: String(d.gid ?? ''),
        name: aria2Name(d),
        state,
        progress: size > 0 ? clampProgress(done / size) : state === 'completed' ? 1 : 0,
        sizeBytes: size,
        downloadedBytes: done,
        downloadSpeed,
        uploadSpeed: count(d.uploadSpeed),
        ratio: isTorrent && done > 0 ? count(d.uploadLength) / done : null,
        etaSeconds: downloadSpeed > 0 && size > done ? Math.round((size - done) / downloadSpeed) : null,
        category: null,
        type: isTorrent ? 'torrent' : 'http',
      });
    }
  }
  return { items, totals: totalsOf(items) };
}

export function aria2RpcUrl(base: string): string {
  return /\/jsonrpc\/?$/.test(base) ? base : under(base, '/jsonrpc');
}

async function call(ctx: ClientContext, target: IntegrationTarget, method: string, params: unknown[]): Promise<unknown> {
  const token = target.secrets.apiKey;
  const answer = await ctx.fetch(aria2RpcUrl(target.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: method, method, params: token === undefined ? params : [`token:${token}`, ...params] }),
    timeoutMs: ctx.timeoutMs,
    maxBytes: ctx.maxBytes,
  });
  if (answer.status === 401 || answer.status === 403) throw unauthorized(service);
  // aria2 answers a JSON-RPC error with HTTP 400 (a wrong secret: code 1, "Unauthorized")
  const parsed = parseJson(service, answer);
  if (!isRecord(parsed)) throw badAnswer(service, 'the answer is not a JSON-RPC answer');
  if (isRecord(parsed.error)) {
    if (parsed.error.message === 'Unauthorized') throw unauthorized(service, 'the service refused the RPC secret');
    throw new ServiceError('failed', `${service}: ${method} failed: ${String(parsed.error.message ?? '').slice(0, 200)}`);
  }
  if (answer.status < 200 || answer.status >= 300) throw new ServiceError('failed', `${service}: HTTP ${answer.status}`);
  if (!('result' in parsed)) throw badAnswer(service, 'the answer is not a JSON-RPC answer');
  return parsed.result;
}

export async function aria2Downloads(ctx: ClientContext, target: IntegrationTarget): Promise<DownloadClientData> {
  const keys = [...aria2Keys];
  const lists = await Promise.all([
    call(ctx, target, 'aria2.tellActive', [keys]),
    call(ctx, target, 'aria2.tellWaiting', [0, aria2ListLimit, keys]),
    // offset -1: the newest stopped first
    call(ctx, target, 'aria2.tellStopped', [-1, aria2ListLimit, keys]),
  ]);
  return mapAria2Downloads(lists);
}
