/**
 * DL-6: deluge-web's JSON-RPC (`POST <url>/json`). `auth.login` with the web UI's password answers a session cookie;
 * when the web UI is not connected to a daemon (`web.connected`), the first host of its host list that is online is
 * connected (`web.get_hosts`, `web.get_host_status`, `web.connect`); then `core.get_torrents_status` lists. The session is kept between reads (DL-15).
 */
import type { ClientContext, IntegrationTarget } from './types';
import { ServiceError } from './types';
import { badAnswer, checkStatus, clampProgress, count, isRecord, parseJson, text, totalsOf, unauthorized, under, type DownloadClientData, type DownloadItem, type DownloadState } from './downloads';
import { sessionCookie } from './qbittorrent';
import { SessionCache } from './sessions';

/** DL-15: the web session cookie per URL and password, kept between reads. */
const sessions = new SessionCache();

const service = 'Deluge';

export const delugeFields = ['name', 'state', 'progress', 'total_wanted', 'total_done', 'download_payload_rate', 'upload_payload_rate', 'ratio', 'eta', 'label'] as const;

/** DL-6: Deluge's state names onto the common words. */
export function delugeState(raw: string, progress: number): DownloadState {
  switch (raw) {
    case 'Downloading':
      return 'downloading';
    case 'Seeding':
      return 'seeding';
    case 'Paused':
      return progress >= 1 ? 'completed' : 'paused';
    case 'Queued':
      return 'queued';
    case 'Checking':
    case 'Allocating':
    case 'Moving':
      return 'checking';
    case 'Error':
      return 'error';
    default:
      return 'unknown';
  }
}

/** DL-6: `core.get_torrents_status`'s result (an object by torrent hash) onto the common shape. */
export function mapDelugeTorrents(result: unknown): DownloadClientData {
  if (!isRecord(result)) throw badAnswer(service, 'the torrent list is not an object');
  const items: DownloadItem[] = Object.entries(result).flatMap(([hash, t]) => {
    if (!isRecord(t)) return [];
    // Deluge's progress is a percentage
    const progress = clampProgress(count(t.progress) / 100);
    const eta = count(t.eta);
    return [
      {
        id: hash,
        name: text(t.name) ?? hash,
        state: delugeState(String(t.state ?? ''), progress),
        progress,
        sizeBytes: count(t.total_wanted),
        downloadedBytes: count(t.total_done),
        downloadSpeed: count(t.download_payload_rate),
        uploadSpeed: count(t.upload_payload_rate),
        ratio: typeof t.ratio === 'number' && t.ratio >= 0 ? t.ratio : null,
        etaSeconds: eta > 0 ? eta : null,
        category: text(t.label),
        type: 'torrent' as const,
      },
    ];
  });
  return { items, totals: totalsOf(items) };
}

class DelugeSession {
  private id = 0;

  constructor(
    private readonly ctx: ClientContext,
    private readonly target: IntegrationTarget,
    public cookie: string | null,
  ) {}

  async call(method: string, params: unknown[]): Promise<unknown> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.cookie) headers.cookie = this.cookie;
    const answer = await this.ctx.fetch(under(this.target.url, '/json'), {
      method: 'POST',
      headers,
      body: JSON.stringify({ method, params, id: ++this.id }),
      timeoutMs: this.ctx.timeoutMs,
      maxBytes: this.ctx.maxBytes,
    });
    checkStatus(service, answer);
    const parsed = parseJson(service, answer);
    if (!isRecord(parsed) || !('result' in parsed)) throw badAnswer(service, 'the answer is not a JSON-RPC answer');
    if (isRecord(parsed.error)) {
      // code 1: not authenticated
      if (parsed.error.code === 1) throw unauthorized(service);
      throw new ServiceError('failed', `${service}: ${method} failed: ${String(parsed.error.message ?? '').slice(0, 200)}`);
    }
    const cookie = sessionCookie(answer) ?? answer.headers.getSetCookie().map((c) => c.split(';', 1)[0]!.trim())[0];
    if (cookie) this.cookie = cookie;
    return parsed.result;
  }

  async login(): Promise<void> {
    if ((await this.call('auth.login', [this.target.secrets.password ?? ''])) !== true) throw unauthorized(service);
    if (!this.cookie) throw badAnswer(service, 'the login answered no session cookie');
  }

  async connect(): Promise<void> {
    if ((await this.call('web.connected', [])) === true) return;
    const hosts = await this.call('web.get_hosts', []);
    if (!Array.isArray(hosts)) throw badAnswer(service, 'web.get_hosts answered no list');
    for (const host of hosts) {
      const hostId = Array.isArray(host) ? host[0] : undefined;
      if (typeof hostId !== 'string') continue;
      const status = await this.call('web.get_host_status', [hostId]);
      if (!Array.isArray(status) || (status[1] !== 'Online' && status[1] !== 'Connected')) continue;
      await this.call('web.connect', [hostId]);
      if ((await this.call('web.connected', [])) === true) return;
    }
    throw new ServiceError('failed', `${service}: the web UI is connected to no daemon, and none of its hosts is online`);
  }
}

export async function delugeDownloads(ctx: ClientContext, target: IntegrationTarget): Promise<DownloadClientData> {
  const key = SessionCache.key(target.url, target.secrets.password);
  const kept = sessions.get(key) ?? null;
  const session = new DelugeSession(ctx, target, kept);
  const read = async () => {
    await session.connect();
    const data = mapDelugeTorrents(await session.call('core.get_torrents_status', [{}, delugeFields]));
    if (session.cookie) sessions.set(key, session.cookie);
    return data;
  };
  if (kept) {
    try {
      return await read();
    } catch (error) {
      // a kept session the web UI no longer knows: log in again, once
      if (!(error instanceof ServiceError && error.reason === 'unauthorized')) throw error;
      sessions.delete(key);
      session.cookie = null;
    }
  }
  await session.login();
  return read();
}
