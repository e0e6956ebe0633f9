/**
 * DL-14: the download clients and the `downloads` kind against the real daemons (Debian packages, started by
 * test/support/services/downloads.ts on free ports in temporary directories). Nothing needs the network: torrents are
 * magnets added paused, the NZB is appended paused with no news server, aria2 downloads from a local HTTP server.
 * Through the kind's `fromIntegration`, `view` and `act`, as the widget-data service calls them.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv2020 from 'ajv/dist/2020';
import { parse } from 'yaml';
import { outboundFetch } from '../../src/outbound/fetch';
import { ServiceError, type ClientContext, type IntegrationTarget } from '../../src/integrations/clients/types';
import type { DownloadItem } from '../../src/integrations/clients/downloads';
import { downloadsKind, type DownloadsData } from '../../src/widgets/data/kinds/downloads';
import type { BoundIntegration } from '../../src/widgets/data/types';
import { eventually } from '../support/eventually';
import {
  aria2AddUri,
  aria2Secret,
  delugeAddMagnet,
  delugeWebPassword,
  nzbgetAppend,
  nzbgetLogin,
  qbittorrentAddMagnet,
  qbittorrentLogin,
  startAria2,
  startDeluge,
  startNzbget,
  startQbittorrent,
  startTransmission,
  startTimeoutMs,
  transmissionAddMagnet,
  transmissionLogin,
  type RunningDaemon,
} from '../support/services/downloads';

jest.setTimeout(startTimeoutMs + 120_000);

const ctx: ClientContext = { fetch: outboundFetch, timeoutMs: 30_000, maxBytes: 4 * 1024 * 1024, now: () => new Date() };

function bound(kind: string, target: IntegrationTarget): BoundIntegration {
  return { id: `${kind}-test`, name: `${kind} test`, kind, target };
}

// DL-10: every answer, as the daemons give it, is what openapi/components/widget-data/downloads.yaml declares
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(parse(readFileSync('openapi/components/widget-data/downloads.yaml', 'utf8')) as object, 'downloads.yaml');
const declared = ajv.compile({ $ref: 'downloads.yaml#/DownloadsData' });

async function list(integration: BoundIntegration, context: ClientContext = ctx): Promise<DownloadsData> {
  const data = await downloadsKind.fromIntegration!(context, integration, downloadsKind.query({}));
  if (!declared(data)) throw new Error(`${integration.kind}: the data is not as declared: ${ajv.errorsText(declared.errors)}\n${JSON.stringify(data)}`);
  return data;
}

function find(data: DownloadsData, id: string): DownloadItem {
  const item = data.items.find((i) => i.id === id);
  if (!item) throw new Error(`no download ${id} in ${JSON.stringify(data.items.map((i) => i.name))}`);
  return item;
}

async function expectUnauthorized(integration: BoundIntegration, secret: string): Promise<void> {
  const error = await list(integration).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  expect((error as ServiceError).reason).toBe('unauthorized');
  expect((error as ServiceError).message).not.toContain(secret);
}

/** A context whose requests are recorded: the path, the JSON-RPC method if any, the cookie sent. */
function recording(): { context: ClientContext; seen: { path: string; method?: string; cookie?: string }[] } {
  const seen: { path: string; method?: string; cookie?: string }[] = [];
  const context: ClientContext = {
    ...ctx,
    fetch: (url, request) => {
      let method: string | undefined;
      try {
        method = (JSON.parse(request.body ?? '') as { method?: string }).method;
      } catch {
        method = undefined;
      }
      seen.push({ path: new URL(url).pathname, method, cookie: request.headers?.cookie });
      return outboundFetch(url, request);
    },
  };
  return { context, seen };
}

function hashOf(seed: string): string {
  return createHash('sha1').update(seed).digest('hex');
}

function magnet(hash: string, name: string): string {
  return `magnet:?xt=urn:btih:${hash}&dn=${encodeURIComponent(name)}`;
}

describe('qBittorrent (qbittorrent-nox)', () => {
  let daemon: RunningDaemon;
  let integration: BoundIntegration;
  const hash = hashOf('tessera qbittorrent test');
  beforeAll(async () => {
    daemon = await startQbittorrent();
    integration = bound('qBittorrent', { url: daemon.url, secrets: qbittorrentLogin });
    await qbittorrentAddMagnet(daemon, magnet(hash, 'Tessera.Qbittorrent.Test'), 'tv');
  }, startTimeoutMs + 60_000);
  afterAll(async () => daemon?.stop());

  it('DL-4: a paused magnet is listed with its name, state, progress and category', async () => {
    // the declared schema is no rubber stamp
    expect(declared({ items: [{ id: 'x' }], totals: {} })).toBe(false);
    const item = await eventually(async () => find(await list(integration), hash));
    expect(item).toMatchObject({ name: 'Tessera.Qbittorrent.Test', state: 'paused', progress: 0, category: 'tv', type: 'torrent' });
    const view = downloadsKind.view!(await list(integration), { categoryFilter: ['tv'], filterIsWhitelist: true });
    expect(view.items.map((i) => i.id)).toEqual([hash]);
  });

  it('DL-9: resume then pause change the torrent\'s state', async () => {
    await downloadsKind.act!(ctx, integration, 'resume', [hash]);
    await eventually(async () => expect(find(await list(integration), hash).state).not.toBe('paused'));
    await downloadsKind.act!(ctx, integration, 'pause', [hash]);
    await eventually(async () => expect(find(await list(integration), hash).state).toBe('paused'));
  });

  it('DL-15: a second read reuses the session; a session the service dropped is replaced by a new login', async () => {
    const { context, seen } = recording();
    await list(integration, context);
    seen.length = 0;
    await list(integration, context);
    expect(seen.map((s) => s.path)).toEqual(['/api/v2/torrents/info']);
    const logout = await fetch(`${daemon.url}/api/v2/auth/logout`, { method: 'POST', headers: { cookie: seen[0]!.cookie!, referer: daemon.url } });
    expect(logout.status).toBe(200);
    seen.length = 0;
    expect(find(await list(integration, context), hash).name).toBe('Tessera.Qbittorrent.Test');
    expect(seen.map((s) => s.path)).toEqual(['/api/v2/torrents/info', '/api/v2/auth/login', '/api/v2/torrents/info']);
  });

  it('DL-2: a wrong password is unauthorized, and the message does not carry it', async () => {
    await expectUnauthorized(bound('qBittorrent', { url: daemon.url, secrets: { username: 'admin', password: 'wrong-qb-password' } }), 'wrong-qb-password');
  });
});

describe('Transmission (transmission-daemon)', () => {
  let daemon: RunningDaemon;
  let integration: BoundIntegration;
  let hash: string;
  beforeAll(async () => {
    daemon = await startTransmission();
    integration = bound('transmission', { url: daemon.url, secrets: transmissionLogin });
    hash = await transmissionAddMagnet(daemon, magnet(hashOf('tessera transmission test'), 'Tessera.Transmission.Test'));
  }, startTimeoutMs + 60_000);
  afterAll(async () => daemon?.stop());

  it('DL-5: a paused magnet is listed with its name, state and progress, through the 409 session handshake', async () => {
    const item = find(await list(integration), hash);
    expect(item).toMatchObject({ name: 'Tessera.Transmission.Test', state: 'paused', progress: 0, type: 'torrent', ratio: null });
  });

  it('DL-9: resume then pause change the torrent\'s state', async () => {
    await downloadsKind.act!(ctx, integration, 'resume', [hash]);
    await eventually(async () => expect(find(await list(integration), hash).state).not.toBe('paused'));
    await downloadsKind.act!(ctx, integration, 'pause', [hash]);
    await eventually(async () => expect(find(await list(integration), hash).state).toBe('paused'));
  });

  it('DL-15: a second read reuses the session id (no 409 round trip)', async () => {
    const { context, seen } = recording();
    await list(integration, context);
    seen.length = 0;
    await list(integration, context);
    expect(seen.map((s) => s.method)).toEqual(['torrent-get']);
  });

  it('DL-2: a wrong password is unauthorized, and the message does not carry it', async () => {
    await expectUnauthorized(bound('transmission', { url: daemon.url, secrets: { username: transmissionLogin.username, password: 'wrong-tr-password' } }), 'wrong-tr-password');
  });
});

describe('Deluge (deluged + deluge-web)', () => {
  let daemon: RunningDaemon;
  let integration: BoundIntegration;
  beforeAll(async () => {
    daemon = await startDeluge();
    integration = bound('deluge', { url: daemon.url, secrets: { password: delugeWebPassword } });
  }, startTimeoutMs + 60_000);
  afterAll(async () => daemon?.stop());

  it('DL-6: the client connects the web UI to its daemon, and a paused magnet is listed with its name, state and progress', async () => {
    // the web UI starts connected to no daemon: the client connects it (web.get_hosts, web.connect)
    expect((await list(integration)).items).toEqual([]);
    const hash = await delugeAddMagnet(daemon, magnet(hashOf('tessera deluge test'), 'Tessera.Deluge.Test'));
    const item = await eventually(async () => find(await list(integration), hash));
    expect(item).toMatchObject({ name: 'Tessera.Deluge.Test', state: 'paused', progress: 0, type: 'torrent' });
  });

  it('DL-15: a second read reuses the web session; a session the web UI dropped is replaced by a new login', async () => {
    const { context, seen } = recording();
    await list(integration, context);
    seen.length = 0;
    await list(integration, context);
    expect(seen.map((s) => s.method)).toEqual(['web.connected', 'core.get_torrents_status']);
    const cookie = seen[0]!.cookie!;
    const dropped = await fetch(`${daemon.url}/json`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ method: 'auth.delete_session', params: [], id: 1 }) });
    expect(((await dropped.json()) as { result: unknown }).result).toBe(true);
    seen.length = 0;
    await list(integration, context);
    expect(seen.map((s) => s.method)).toEqual(['web.connected', 'auth.login', 'web.connected', 'core.get_torrents_status']);
  });

  it('DL-2: a wrong password is unauthorized, and the message does not carry it', async () => {
    await expectUnauthorized(bound('deluge', { url: daemon.url, secrets: { password: 'wrong-deluge-password' } }), 'wrong-deluge-password');
  });

  it('DL-9: pause is not supported for Deluge', async () => {
    await expect(downloadsKind.act!(ctx, integration, 'pause', ['x'])).rejects.toThrow('Deluge: pause is not supported for this client');
  });
});

describe('aria2 (aria2c)', () => {
  let daemon: RunningDaemon;
  let integration: BoundIntegration;
  let files: Server;
  const content = Buffer.alloc(256 * 1024, 7);
  beforeAll(async () => {
    files = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': content.length }).end(content));
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    daemon = await startAria2();
    integration = bound('aria2', { url: daemon.url, secrets: { apiKey: aria2Secret } });
  }, startTimeoutMs + 60_000);
  afterAll(async () => {
    await daemon?.stop();
    await new Promise((resolve) => files?.close(resolve));
  });

  it('DL-7: a paused download and a completed one (from a local HTTP server) are listed with name, state and progress', async () => {
    const port = (files.address() as AddressInfo).port;
    const paused = await aria2AddUri(daemon, `http://127.0.0.1:${port}/Tessera.Aria2.Paused.bin`, { pause: 'true' });
    const done = await aria2AddUri(daemon, `http://127.0.0.1:${port}/Tessera.Aria2.Done.bin`);
    expect(find(await list(integration), paused)).toMatchObject({ name: 'Tessera.Aria2.Paused.bin', state: 'paused', progress: 0, type: 'http' });
    const completed = await eventually(async () => {
      const item = find(await list(integration), done);
      expect(item.state).toBe('completed');
      return item;
    });
    expect(completed).toMatchObject({ name: 'Tessera.Aria2.Done.bin', progress: 1, sizeBytes: content.length, downloadedBytes: content.length });
    // DL-11: completed HTTP downloads hidden on request
    const view = downloadsKind.view!(await list(integration), { showCompletedHttp: false });
    expect(view.items.map((i) => i.id)).toEqual([paused]);
  });

  it('DL-2: a wrong RPC secret is unauthorized, and the message does not carry it', async () => {
    await expectUnauthorized(bound('aria2', { url: daemon.url, secrets: { apiKey: 'wrong-aria2-secret' } }), 'wrong-aria2-secret');
  });
});

describe('NZBGet (nzbget)', () => {
  let daemon: RunningDaemon;
  let integration: BoundIntegration;
  beforeAll(async () => {
    daemon = await startNzbget();
    integration = bound('nzbGet', { url: daemon.url, secrets: nzbgetLogin });
  }, startTimeoutMs + 60_000);
  afterAll(async () => daemon?.stop());

  it('DL-8: an NZB appended paused is listed with its name, state, progress, size and category', async () => {
    const id = await nzbgetAppend(daemon, 'Tessera.Nzbget.Test', 'Movies');
    const item = await eventually(async () => find(await list(integration), String(id)));
    expect(item).toMatchObject({ name: 'Tessera.Nzbget.Test', state: 'paused', progress: 0, sizeBytes: 102400, category: 'Movies', type: 'usenet' });
  });

  it('DL-2: a wrong password is unauthorized, and the message does not carry it', async () => {
    await expectUnauthorized(bound('nzbGet', { url: daemon.url, secrets: { username: nzbgetLogin.username, password: 'wrong-nzbget-password' } }), 'wrong-nzbget-password');
  });
});
