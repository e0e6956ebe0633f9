/**
 * DL-1..8: the download clients' pure mappings from each service's raw answer (shapes as the Debian daemons answer
 * them, see downloadDaemons.test.ts for the real thing) onto the common shape, and DL-3: a service answering
 * something else (markup, another JSON shape) gives ServiceError('bad-answer') through the real client over HTTP.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { outboundFetch } from '../../src/outbound/fetch';
import { ServiceError, type ClientContext } from '../../src/integrations/clients/types';
import { downloadStates, totalsOf, under } from '../../src/integrations/clients/downloads';
import { mapQbittorrentTorrents, qbittorrentDownloads, qbittorrentState } from '../../src/integrations/clients/qbittorrent';
import { mapTransmissionTorrents, transmissionDownloads, transmissionRpcUrl, transmissionState } from '../../src/integrations/clients/transmission';
import { delugeDownloads, delugeState, mapDelugeTorrents } from '../../src/integrations/clients/deluge';
import { aria2Downloads, aria2RpcUrl, mapAria2Downloads } from '../../src/integrations/clients/aria2';
import { mapNzbget, nzbgetDownloads, nzbgetHistoryState } from '../../src/integrations/clients/nzbget';

const hash = '0123456789abcdef0123456789abcdef01234567';

describe('DL-4: qBittorrent', () => {
  it('DL-4: maps torrents/info', () => {
    const data = mapQbittorrentTorrents([
      { hash, name: 'Linux.iso', state: 'downloading', progress: 0.25, size: 4000, completed: 1000, dlspeed: 300, upspeed: 20, ratio: 0.5, eta: 10, category: 'os' },
      { hash: 'b', name: 'Done', state: 'pausedUP', progress: 1, size: 10, completed: 10, dlspeed: 0, upspeed: 0, ratio: 2, eta: 8640000, category: '' },
    ]);
    expect(data.items).toEqual([
      { id: hash, name: 'Linux.iso', state: 'downloading', progress: 0.25, sizeBytes: 4000, downloadedBytes: 1000, downloadSpeed: 300, uploadSpeed: 20, ratio: 0.5, etaSeconds: 10, category: 'os', type: 'torrent' },
      { id: 'b', name: 'Done', state: 'completed', progress: 1, sizeBytes: 10, downloadedBytes: 10, downloadSpeed: 0, uploadSpeed: 0, ratio: 2, etaSeconds: null, category: null, type: 'torrent' },
    ]);
    expect(data.totals).toEqual({ downloadSpeed: 300, uploadSpeed: 20, count: 2, ratio: (0.5 * 1000 + 2 * 10) / 1010 });
  });

  it('DL-4: states', () => {
    expect(qbittorrentState('metaDL', 0)).toBe('downloading');
    expect(qbittorrentState('stalledDL', 0.1)).toBe('stalled');
    expect(qbittorrentState('stalledUP', 1)).toBe('seeding');
    expect(qbittorrentState('pausedDL', 0.3)).toBe('paused');
    expect(qbittorrentState('stoppedDL', 0.3)).toBe('paused');
    expect(qbittorrentState('queuedDL', 0)).toBe('queued');
    expect(qbittorrentState('checkingResumeData', 0)).toBe('checking');
    expect(qbittorrentState('missingFiles', 0)).toBe('error');
    expect(qbittorrentState('somethingNew', 0)).toBe('unknown');
  });

  it('DL-3: not a list is a bad answer', () => {
    expect(() => mapQbittorrentTorrents({ torrents: [] })).toThrow(ServiceError);
  });
});

describe('DL-5: Transmission', () => {
  it('DL-5: maps torrent-get', () => {
    const data = mapTransmissionTorrents({
      torrents: [
        { hashString: hash, name: 'A', status: 4, percentDone: 0.5, sizeWhenDone: 200, leftUntilDone: 100, rateDownload: 50, rateUpload: 5, uploadRatio: -1, eta: -1, labels: ['tv'], error: 0, isStalled: false },
        { hashString: 'b', name: 'B', status: 0, percentDone: 1, sizeWhenDone: 10, leftUntilDone: 0, rateDownload: 0, rateUpload: 0, uploadRatio: 1.5, eta: -2, labels: [], error: 0 },
      ],
    });
    expect(data.items[0]).toEqual({ id: hash, name: 'A', state: 'downloading', progress: 0.5, sizeBytes: 200, downloadedBytes: 100, downloadSpeed: 50, uploadSpeed: 5, ratio: null, etaSeconds: null, category: 'tv', type: 'torrent' });
    expect(data.items[1]).toMatchObject({ state: 'completed', ratio: 1.5, etaSeconds: null, category: null });
  });

  it('DL-5: states', () => {
    expect(transmissionState(0, 0.2, 0, false)).toBe('paused');
    expect(transmissionState(2, 0, 0, false)).toBe('checking');
    expect(transmissionState(3, 0, 0, false)).toBe('queued');
    expect(transmissionState(4, 0, 0, true)).toBe('stalled');
    expect(transmissionState(6, 1, 0, false)).toBe('seeding');
    expect(transmissionState(4, 0, 3, false)).toBe('error');
  });

  it('DL-5: the RPC URL', () => {
    expect(transmissionRpcUrl('http://h:9091/')).toBe('http://h:9091/transmission/rpc');
    expect(transmissionRpcUrl('http://h/custom/rpc')).toBe('http://h/custom/rpc');
  });
});

describe('DL-6: Deluge', () => {
  it('DL-6: maps core.get_torrents_status (progress in percent)', () => {
    const data = mapDelugeTorrents({
      [hash]: { name: 'D', state: 'Downloading', progress: 40, total_wanted: 1000, total_done: 400, download_payload_rate: 10, upload_payload_rate: 1, ratio: -1, eta: 60, label: 'movies' },
    });
    expect(data.items).toEqual([{ id: hash, name: 'D', state: 'downloading', progress: 0.4, sizeBytes: 1000, downloadedBytes: 400, downloadSpeed: 10, uploadSpeed: 1, ratio: null, etaSeconds: 60, category: 'movies', type: 'torrent' }]);
  });

  it('DL-6: states', () => {
    expect(delugeState('Paused', 0.5)).toBe('paused');
    expect(delugeState('Paused', 1)).toBe('completed');
    expect(delugeState('Allocating', 0)).toBe('checking');
    expect(delugeState('Seeding', 1)).toBe('seeding');
  });
});

describe('DL-7: aria2', () => {
  it('DL-7: maps tellActive/tellWaiting/tellStopped (numbers as strings), leaving removed downloads out', () => {
    const data = mapAria2Downloads([
      [{ gid: 'g1', status: 'active', totalLength: '1000', completedLength: '250', uploadLength: '0', downloadSpeed: '75', uploadSpeed: '0', files: [{ path: '/d/file.iso', uris: [] }] }],
      [{ gid: 'g2', status: 'paused', totalLength: '0', completedLength: '0', uploadLength: '0', downloadSpeed: '0', uploadSpeed: '0', files: [{ path: '', uris: [{ uri: 'http://h/x/Name.bin?sig=1' }] }] }],
      [
        { gid: 'g3', status: 'complete', totalLength: '10', completedLength: '10', uploadLength: '20', downloadSpeed: '0', uploadSpeed: '0', bittorrent: { info: { name: 'Torrent' } }, files: [] },
        { gid: 'g4', status: 'removed', totalLength: '10', completedLength: '0', files: [] },
      ],
    ]);
    expect(data.items).toEqual([
      { id: 'g1', name: 'file.iso', state: 'downloading', progress: 0.25, sizeBytes: 1000, downloadedBytes: 250, downloadSpeed: 75, uploadSpeed: 0, ratio: null, etaSeconds: 10, category: null, type: 'http' },
      { id: 'g2', name: 'Name.bin', state: 'paused', progress: 0, sizeBytes: 0, downloadedBytes: 0, downloadSpeed: 0, uploadSpeed: 0, ratio: null, etaSeconds: null, category: null, type: 'http' },
      { id: 'g3', name: 'Torrent', state: 'completed', progress: 1, sizeBytes: 10, downloadedBytes: 10, downloadSpeed: 0, uploadSpeed: 0, ratio: 2, etaSeconds: null, category: null, type: 'torrent' },
    ]);
  });

  it('DL-7: the RPC URL', () => {
    expect(aria2RpcUrl('http://h:6800')).toBe('http://h:6800/jsonrpc');
    expect(aria2RpcUrl('http://h/aria/jsonrpc')).toBe('http://h/aria/jsonrpc');
  });
});

describe('DL-8: NZBGet', () => {
  it('DL-8: maps listgroups, history and status (64-bit sizes in two halves; the global rate to the first downloading group)', () => {
    const data = mapNzbget(
      [
        { NZBID: 3, NZBName: 'Big', Status: 'DOWNLOADING', FileSizeLo: 0, FileSizeHi: 1, RemainingSizeLo: 2 ** 31, RemainingSizeHi: 0, Category: 'Movies' },
        { NZBID: 4, NZBName: 'Next', Status: 'QUEUED', FileSizeLo: 100, FileSizeHi: 0, RemainingSizeLo: 100, RemainingSizeHi: 0, Category: '' },
      ],
      [
        { NZBID: 1, Kind: 'NZB', Name: 'Old', Status: 'SUCCESS/ALL', FileSizeLo: 500, FileSizeHi: 0, Category: 'TV' },
        { NZBID: 2, Kind: 'NZB', Name: 'Gone', Status: 'DELETED/MANUAL', FileSizeLo: 500, FileSizeHi: 0 },
        { NZBID: 5, Kind: 'URL', Name: 'u', Status: 'SUCCESS/ALL' },
      ],
      { DownloadRate: 1024, DownloadPaused: false },
    );
    expect(data.items).toEqual([
      { id: '3', name: 'Big', state: 'downloading', progress: 0.5, sizeBytes: 2 ** 32, downloadedBytes: 2 ** 31, downloadSpeed: 1024, uploadSpeed: 0, ratio: null, etaSeconds: 2 ** 31 / 1024, category: 'Movies', type: 'usenet' },
      { id: '4', name: 'Next', state: 'queued', progress: 0, sizeBytes: 100, downloadedBytes: 0, downloadSpeed: 0, uploadSpeed: 0, ratio: null, etaSeconds: null, category: null, type: 'usenet' },
      { id: '1', name: 'Old', state: 'completed', progress: 1, sizeBytes: 500, downloadedBytes: 500, downloadSpeed: 0, uploadSpeed: 0, ratio: null, etaSeconds: null, category: 'TV', type: 'usenet' },
    ]);
    expect(data.totals).toMatchObject({ downloadSpeed: 1024, uploadSpeed: 0, count: 3 });
  });

  it('DL-8: the whole client paused shows its queue paused; history states', () => {
    const data = mapNzbget([{ NZBID: 1, NZBName: 'Q', Status: 'QUEUED', FileSizeLo: 1, RemainingSizeLo: 1 }], [], { DownloadRate: 0, DownloadPaused: true });
    expect(data.items[0]!.state).toBe('paused');
    expect(nzbgetHistoryState('FAILURE/PAR')).toBe('error');
    expect(nzbgetHistoryState('WARNING/SCRIPT')).toBe('completed');
  });
});

describe('DL-1: the common shape', () => {
  it('DL-1: every state is one word of the fixed list; totals of nothing are zero with no ratio', () => {
    expect(downloadStates).toEqual(['downloading', 'seeding', 'paused', 'queued', 'checking', 'completed', 'stalled', 'error', 'unknown']);
    expect(totalsOf([])).toEqual({ downloadSpeed: 0, uploadSpeed: 0, count: 0, ratio: null });
    expect(under('http://h/prefix/', '/json')).toBe('http://h/prefix/json');
  });
});

describe('DL-3: a service answering something else', () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: string } = { status: 200, body: '' };
  const ctx: ClientContext = { fetch: outboundFetch, timeoutMs: 10_000, maxBytes: 1024 * 1024, now: () => new Date() };
  beforeAll(async () => {
    server = createServer((req, res) => {
      // qBittorrent's login answers as qBittorrent does, so the list request is the one answering garbage
      if (req.url?.endsWith('/auth/login')) return void res.writeHead(200, { 'set-cookie': 'SID=abc; HttpOnly' }).end('Ok.');
      res.writeHead(answer.status, { 'content-type': 'text/html' }).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise((resolve) => server.close(resolve)));

  const clients = [
    ['qBittorrent', qbittorrentDownloads, { username: 'u', password: 'p' }],
    ['Transmission', transmissionDownloads, {}],
    ['Deluge', delugeDownloads, { password: 'p' }],
    ['aria2', aria2Downloads, { apiKey: 'k' }],
    ['NZBGet', nzbgetDownloads, {}],
  ] as const;

  it.each(clients)('DL-3: %s answering markup is a bad answer, its message naming the service', async (name, client, secrets) => {
    answer = { status: 200, body: '<script>alert(1)</script>' };
    const error = await client(ctx, { url, secrets }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ reason: 'bad-answer' });
    expect((error as Error).message).toMatch(new RegExp(`^${name}: `));
    expect((error as Error).message).not.toContain('<script>');
  });

  it.each(clients)('DL-3: %s answering JSON of another shape is a bad answer', async (_name, client, secrets) => {
    answer = { status: 200, body: '{"hello": "world"}' };
    await expect(client(ctx, { url, secrets })).rejects.toMatchObject({ reason: 'bad-answer' });
  });

  it.each(clients)('DL-2: %s answering 401 is unauthorized', async (_name, client, secrets) => {
    answer = { status: 401, body: 'no' };
    await expect(client(ctx, { url, secrets })).rejects.toMatchObject({ reason: 'unauthorized' });
  });
});
