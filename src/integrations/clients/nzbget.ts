/**
 * DL-8: NZBGet's JSON-RPC (`POST <url>/jsonrpc` with basic auth: ControlUsername / ControlPassword). `listgroups` is
 * the queue, `history` the finished downloads, `status` the global rate and pause flag. NZBGet reports only one
 * download rate for the whole client: it is given to the first group that is downloading.
 */
import type { ClientContext, IntegrationTarget } from './types';
import { ServiceError } from './types';
import { badAnswer, basicAuth, checkStatus, clampProgress, count, isRecord, parseJson, text, totalsOf, under, type DownloadClientData, type DownloadItem, type DownloadState } from './downloads';

const service = 'NZBGet';

/** NZBGet splits 64-bit sizes into two 32-bit halves. */
function bytes(record: Record<string, unknown>, prefix: string): number {
  return count(record[`${prefix}Hi`]) * 2 ** 32 + count(record[`${prefix}Lo`]);
}

/** DL-8: a queued group's status onto the common words; post-processing (verify, repair, unpack, …) is `checking`. */
export function nzbgetQueueState(status: string, downloadPaused: boolean): DownloadState {
  switch (status) {
    case 'DOWNLOADING':
    case 'FETCHING':
      return downloadPaused ? 'paused' : 'downloading';
    case 'QUEUED':
      return downloadPaused ? 'paused' : 'queued';
    case 'PAUSED':
      return 'paused';
    case 'PP_QUEUED':
    case 'LOADING_PARS':
    case 'VERIFYING_SOURCES':
    case 'REPAIRING':
    case 'VERIFYING_REPAIRED':
    case 'RENAMING':
    case 'UNPACKING':
    case 'MOVING':
    case 'EXECUTING_SCRIPT':
    case 'PP_FINISHED':
      return 'checking';
    default:
      return 'unknown';
  }
}

/** DL-8: a history entry's status (`SUCCESS/ALL`, `FAILURE/PAR`, `WARNING/…`, `DELETED/…`) onto the common words. */
export function nzbgetHistoryState(status: string): DownloadState | null {
  const [outcome] = status.split('/');
  if (outcome === 'SUCCESS' || outcome === 'WARNING') return 'completed';
  if (outcome === 'FAILURE') return 'error';
  if (outcome === 'DELETED') return null;
  return 'unknown';
}

/** DL-8: `listgroups`, `history` and `status` results onto the common shape. */
export function mapNzbget(groups: unknown, history: unknown, status: unknown): DownloadClientData {
  if (!Array.isArray(groups) || !Array.isArray(history) || !isRecord(status)) throw badAnswer(service, 'listgroups, history or status answered another shape');
  const rate = count(status.DownloadRate);
  const paused = status.DownloadPaused === true;
  let rateGiven = false;
  const items: DownloadItem[] = [];
  for (const g of groups) {
    if (!isRecord(g)) continue;
    const size = bytes(g, 'FileSize');
    const left = bytes(g, 'RemainingSize');
    const state = nzbgetQueueState(String(g.Status ?? ''), paused);
    const speed = state === 'downloading' && !rateGiven ? rate : 0;
    if (speed > 0) rateGiven = true;
    items.push({
      id: String(g.NZBID ?? ''),
      name: text(g.NZBName) ?? String(g.NZBID ?? ''),
      state,
      progress: size > 0 ? clampProgress((size - left) / size) : 0,
      sizeBytes: size,
      downloadedBytes: Math.max(0, size - left),
      downloadSpeed: speed,
      uploadSpeed: 0,
      ratio: null,
      etaSeconds: speed > 0 ? Math.round(left / speed) : null,
      category: text(g.Category),
      type: 'usenet',
    });
  }
  for (const h of history) {
    if (!isRecord(h) || (h.Kind !== undefined && h.Kind !== 'NZB')) continue;
    const state = nzbgetHistoryState(String(h.Status ?? ''));
    if (!state) continue;
    const size = bytes(h, 'FileSize');
    items.push({
      id: String(h.NZBID ?? ''),
      name: text(h.Name) ?? text(h.NZBName) ?? String(h.NZBID ?? ''),
      state,
      progress: state === 'completed' ? 1 : size > 0 ? clampProgress(bytes(h, 'DownloadedSize') / size) : 0,
      sizeBytes: size,
      downloadedBytes: state === 'completed' ? size : bytes(h, 'DownloadedSize'),
      downloadSpeed: 0,
      uploadSpeed: 0,
      ratio: null,
      etaSeconds: null,
      category: text(h.Category),
      type: 'usenet',
    });
  }
  const totals = totalsOf(items);
  return { items, totals: { ...totals, downloadSpeed: rate } };
}

async function call(ctx: ClientContext, target: IntegrationTarget, method: string, params: unknown[]): Promise<unknown> {
  const answer = await ctx.fetch(under(target.url, '/jsonrpc'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...basicAuth(target.secrets.username, target.secrets.password) },
    body: JSON.stringify({ version: '1.1', id: method, method, params }),
    timeoutMs: ctx.timeoutMs,
    maxBytes: ctx.maxBytes,
  });
  checkStatus(service, answer);
  const parsed = parseJson(service, answer);
  if (!isRecord(parsed)) throw badAnswer(service, 'the answer is not a JSON-RPC answer');
  if (isRecord(parsed.error)) throw new ServiceError('failed', `${service}: ${method} failed: ${String(parsed.error.message ?? '').slice(0, 200)}`);
  if (!('result' in parsed)) throw badAnswer(service, 'the answer is not a JSON-RPC answer');
  return parsed.result;
}

export async function nzbgetDownloads(ctx: ClientContext, target: IntegrationTarget): Promise<DownloadClientData> {
  const [groups, history, status] = await Promise.all([call(ctx, target, 'listgroups', [0]), call(ctx, target, 'history', [false]), call(ctx, target, 'status', [])]);
  return mapNzbget(groups, history, status);
}
