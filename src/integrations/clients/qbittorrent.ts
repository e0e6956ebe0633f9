/**
 * DL-4: qBittorrent's WebUI API v2. Login (`POST /api/v2/auth/login`, form-encoded username and password, a Referer
 * of the same origin, which qBittorrent requires) answers a session cookie (`SID`), sent with every later request;
 * `GET /api/v2/torrents/info` lists the torrents; `POST /api/v2/torrents/pause|resume` with `hashes=a|b` acts.
 * Without a username and password no login is made (qBittorrent may bypass authentication for some addresses). The
 * session is kept between reads (DL-15).
 */
import type { OutboundAnswer } from '../../outbound/fetch';
import type { ClientContext, IntegrationTarget } from './types';
import { SessionCache } from './sessions';
import { badAnswer, checkStatus, clampProgress, count, isRecord, parseJson, text, totalsOf, unauthorized, under, type DownloadClientData, type DownloadItem, type DownloadState } from './downloads';

const service = 'qBittorrent';

/** qBittorrent's eta for "never" (100 days). */
const infiniteEta = 8_640_000;

/** DL-4: qBittorrent's torrent states (4.x and 5.x names) onto the common words. */
export function qbittorrentState(raw: string, progress: number): DownloadState {
  switch (raw) {
    case 'downloading':
    case 'forcedDL':
    case 'metaDL':
    case 'forcedMetaDL':
      return 'downloading';
    case 'uploading':
    case 'forcedUP':
    case 'stalledUP':
      return 'seeding';
    case 'stalledDL':
      return 'stalled';
    case 'pausedDL':
    case 'stoppedDL':
      return 'paused';
    case 'pausedUP':
    case 'stoppedUP':
      return progress >= 1 ? 'completed' : 'paused';
    case 'queuedDL':
    case 'queuedUP':
      return 'queued';
    case 'checkingDL':
    case 'checkingUP':
    case 'checkingResumeData':
    case 'allocating':
      return 'checking';
    case 'error':
    case 'missingFiles':
      return 'error';
    default:
      return 'unknown';
  }
}

/** DL-4: `GET /api/v2/torrents/info`'s answer onto the common shape. */
export function mapQbittorrentTorrents(raw: unknown): DownloadClientData {
  if (!Array.isArray(raw)) throw badAnswer(service, 'the torrent list is not a list');
  const items: DownloadItem[] = raw.filter(isRecord).map((t) => {
    const progress = clampProgress(count(t.progress));
    const eta = typeof t.eta === 'number' && t.eta >= 0 && t.eta < infiniteEta ? t.eta : null;
    const ratio = typeof t.ratio === 'number' && Number.isFinite(t.ratio) && t.ratio >= 0 ? t.ratio : null;
    return {
      id: String(t.hash ?? ''),
      name: text(t.name) ?? String(t.hash ?? ''),
      state: qbittorrentState(String(t.state ?? ''), progress),
      progress,
      sizeBytes: count(t.size),
      downloadedBytes: count(t.completed),
      downloadSpeed: count(t.dlspeed),
      uploadSpeed: count(t.upspeed),
      ratio,
      etaSeconds: eta,
      category: text(t.category),
      type: 'torrent' as const,
    };
  });
  return { items, totals: totalsOf(items) };
}

/** The `name=value` of the session cookie a login answered, or null. */
export function sessionCookie(answer: Pick<OutboundAnswer, 'headers'>): string | null {
  const cookies = answer.headers.getSetCookie();
  for (const cookie of cookies) {
    const pair = cookie.split(';', 1)[0]!.trim();
    if (/^[^=]*SID[^=]*=./i.test(pair)) return pair;
  }
  return null;
}

const sessions = new SessionCache();

async function login(ctx: ClientContext, target: IntegrationTarget, referer: string): Promise<string> {
  const { username, password } = target.secrets;
  const answer = await ctx.fetch(under(target.url, '/api/v2/auth/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', referer },
    body: new URLSearchParams({ username: username ?? '', password: password ?? '' }).toString(),
    timeoutMs: ctx.timeoutMs,
    maxBytes: 4096,
  });
  if (answer.status === 403) throw unauthorized(service, 'this address is banned after too many failed logins');
  checkStatus(service, answer);
  if (answer.text.trim() !== 'Ok.') throw unauthorized(service);
  const cookie = sessionCookie(answer);
  if (!cookie) throw badAnswer(service, 'the login answered no session cookie');
  return cookie;
}

/**
 * One request with the integration's session (DL-15): the kept one if any, else a new login; a kept session the
 * service no longer knows (403) is dropped and the request made once more after a new login.
 */
async function request(ctx: ClientContext, target: IntegrationTarget, path: string, form?: Record<string, string>): Promise<OutboundAnswer> {
  const { username, password } = target.secrets;
  const referer = new URL(target.url).origin;
  const needsLogin = username !== undefined || password !== undefined;
  const key = SessionCache.key(target.url, username, password);
  for (;;) {
    let cookie = needsLogin ? sessions.get(key) : undefined;
    const fresh = needsLogin && cookie === undefined;
    if (fresh) {
      cookie = await login(ctx, target, referer);
      sessions.set(key, cookie);
    }
    const headers: Record<string, string> = { referer, ...(cookie ? { cookie } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) };
    const answer = await ctx.fetch(under(target.url, path), form ? { method: 'POST', headers, body: new URLSearchParams(form).toString(), timeoutMs: ctx.timeoutMs, maxBytes: 4096 } : { headers, timeoutMs: ctx.timeoutMs, maxBytes: ctx.maxBytes });
    if (answer.status === 403 && needsLogin && !fresh) {
      sessions.delete(key);
      continue;
    }
    return answer;
  }
}

export async function qbittorrentDownloads(ctx: ClientContext, target: IntegrationTarget): Promise<DownloadClientData> {
  const answer = await request(ctx, target, '/api/v2/torrents/info');
  checkStatus(service, answer);
  return mapQbittorrentTorrents(parseJson(service, answer));
}

/** DL-9: pause or resume torrents by hash. qBittorrent 5 renamed pause/resume to stop/start; the old names are tried first. */
export async function qbittorrentAct(ctx: ClientContext, target: IntegrationTarget, action: 'pause' | 'resume', hashes: readonly string[]): Promise<void> {
  const names = action === 'pause' ? ['pause', 'stop'] : ['resume', 'start'];
  for (const name of names) {
    const answer = await request(ctx, target, `/api/v2/torrents/${name}`, { hashes: hashes.join('|') });
    if (answer.status === 404) continue;
    checkStatus(service, answer);
    return;
  }
  throw badAnswer(service, `the API has no ${action} operation`);
}
