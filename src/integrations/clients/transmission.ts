/**
 * DL-5: Transmission's RPC (`POST <url>/transmission/rpc`, or the URL itself when it already ends in `/rpc`). The first
 * request answers 409 with an `X-Transmission-Session-Id` header; the request is sent again with it (its CSRF
 * guard; the id is kept for the next reads, DL-15). Basic auth when a username or password is set. `torrent-get` lists, `torrent-stop` / `torrent-start` act.
 */
import type { ClientContext, IntegrationTarget } from './types';
import { badAnswer, basicAuth, checkStatus, clampProgress, count, isRecord, parseJson, text, totalsOf, under, type DownloadClientData, type DownloadItem, type DownloadState } from './downloads';
import { ServiceError } from './types';
import { SessionCache } from './sessions';

/** DL-15: the last session id per RPC URL and credentials, so a read needs no 409 round trip. */
const sessionIds = new SessionCache();

const service = 'Transmission';

export const transmissionFields = ['id', 'hashString', 'name', 'status', 'percentDone', 'sizeWhenDone', 'leftUntilDone', 'rateDownload', 'rateUpload', 'uploadRatio', 'eta', 'labels', 'error', 'isStalled'] as const;

/** DL-5: Transmission's numeric status (0 stopped … 6 seeding) onto the common words. */
export function transmissionState(status: number, progress: number, error: number, stalled: boolean): DownloadState {
  if (error === 3) return 'error';
  switch (status) {
    case 0:
      return progress >= 1 ? 'completed' : 'paused';
    case 1:
    case 2:
      return 'checking';
    case 3:
    case 5:
      return 'queued';
    case 4:
      return stalled ? 'stalled' : 'downloading';
    case 6:
      return 'seeding';
    default:
      return 'unknown';
  }
}

/** DL-5: `torrent-get`'s `arguments` onto the common shape. */
export function mapTransmissionTorrents(args: unknown): DownloadClientData {
  if (!isRecord(args) || !Array.isArray(args.torrents)) throw badAnswer(service, 'torrent-get answered no torrent list');
  const items: DownloadItem[] = args.torrents.filter(isRecord).map((t) => {
    const progress = clampProgress(count(t.percentDone));
    const size = count(t.sizeWhenDone);
    const labels = Array.isArray(t.labels) ? t.labels : [];
    return {
      id: String(t.hashString ?? t.id ?? ''),
      name: text(t.name) ?? String(t.hashString ?? ''),
      state: transmissionState(Number(t.status), progress, Number(t.error ?? 0), t.isStalled === true),
      progress,
      sizeBytes: size,
      downloadedBytes: Math.max(0, size - count(t.leftUntilDone)),
      downloadSpeed: count(t.rateDownload),
      uploadSpeed: count(t.rateUpload),
      // -1: nothing downloaded yet, -2: infinite
      ratio: typeof t.uploadRatio === 'number' && t.uploadRatio >= 0 ? t.uploadRatio : null,
      // -1: not available, -2: unknown
      etaSeconds: typeof t.eta === 'number' && t.eta >= 0 ? t.eta : null,
      category: text(labels[0]),
      type: 'torrent' as const,
    };
  });
  return { items, totals: totalsOf(items) };
}

export function transmissionRpcUrl(base: string): string {
  return /\/rpc\/?$/.test(base) ? base : under(base, '/transmission/rpc');
}

async function rpc(ctx: ClientContext, target: IntegrationTarget, method: string, args: Record<string, unknown>): Promise<unknown> {
  const url = transmissionRpcUrl(target.url);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...basicAuth(target.secrets.username, target.secrets.password) };
  const body = JSON.stringify({ method, arguments: args });
  const key = SessionCache.key(url, target.secrets.username, target.secrets.password);
  const kept = sessionIds.get(key);
  if (kept) headers['x-transmission-session-id'] = kept;
  for (let attempt = 0; ; attempt++) {
    const answer = await ctx.fetch(url, { method: 'POST', headers, body, timeoutMs: ctx.timeoutMs, maxBytes: ctx.maxBytes });
    const sessionId = answer.headers.get('x-transmission-session-id');
    if (answer.status === 409 && sessionId && attempt === 0) {
      headers['x-transmission-session-id'] = sessionId;
      sessionIds.set(key, sessionId);
      continue;
    }
    checkStatus(service, answer);
    const parsed = parseJson(service, answer);
    if (!isRecord(parsed) || typeof parsed.result !== 'string') throw badAnswer(service, 'the answer is not an RPC answer');
    if (parsed.result !== 'success') throw new ServiceError('failed', `${service}: ${method} failed: ${parsed.result.slice(0, 200)}`);
    return parsed.arguments;
  }
}

export async function transmissionDownloads(ctx: ClientContext, target: IntegrationTarget): Promise<DownloadClientData> {
  return mapTransmissionTorrents(await rpc(ctx, target, 'torrent-get', { fields: transmissionFields }));
}

/** DL-9: pause (torrent-stop) or resume (torrent-start) torrents by hash. */
export async function transmissionAct(ctx: ClientContext, target: IntegrationTarget, action: 'pause' | 'resume', hashes: readonly string[]): Promise<void> {
  await rpc(ctx, target, action === 'pause' ? 'torrent-stop' : 'torrent-start', { ids: [...hashes] });
}
