/**
 * A board of live tiles over the real services these machines run, shared by the page's live test
 * (test/pages/live-widgets.test.ts) and `npm run screenshots:live`: qBittorrent with a paused torrent, Glances,
 * Radicale with one coming event, Podman with one created container, and a local HTTP server for a feed, a custom
 * API's JSON and a stand-in for Open-Meteo (no internet here: it serves the recorded answer in
 * test/widgets/live/fixtures/).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startGlances, type GlancesServer } from './glances';
import { startHttpFixture, type HttpFixture } from './httpFixture';
import { startPodman, type PodmanService } from './podman';
import { startRadicale, type Radicale } from './radicale';
import { qbittorrentAddMagnet, qbittorrentLogin, startQbittorrent, type RunningDaemon } from './services/downloads';

export const liveTorrentName = 'ubuntu-26.04-desktop-amd64.iso';
export const liveEventTitle = 'Release party';
export const liveFeedPost = 'Backups that restore';
export const torrentMagnet = (hash: string, name: string) => `magnet:?xt=urn:btih:${hash}&dn=${encodeURIComponent(name)}`;

const forecast = readFileSync(path.join(__dirname, '..', 'widgets', 'live', 'fixtures', 'open-meteo-forecast.json'), 'utf8');
const feedXml =
  '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Homelab weekly</title><link>https://feed.example/</link>' +
  `<item><title>${liveFeedPost}</title><link>https://feed.example/backups</link><description>&lt;img src=x onerror="window.__xss=1"&gt;Test your restores, not only your backups.</description></item>` +
  '<item><title>A quieter start page</title><link>https://feed.example/start-page</link><description>Descriptions, dark mode and search.</description></item></channel></rss>';

export interface LiveServices {
  qbt: RunningDaemon;
  glances: GlancesServer;
  radicale: Radicale;
  podman: PodmanService;
  /** The feed (`/feed.xml`), the custom API (`/stats`) and the Open-Meteo stand-in (`/v1/forecast`). */
  fixtures: HttpFixture;
  calendarUrl: string;
  containerName: string;
  /** The environment a Tessera server needs to reach them. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts every service; when one fails to start, the others are stopped before the failure is thrown. */
export async function startLiveServices(containerName: string): Promise<LiveServices> {
  const up: Partial<LiveServices> = {};
  const stop = async () => {
    await Promise.all([up.qbt?.stop(), up.glances?.stop(), up.radicale?.stop(), up.podman?.stop(), up.fixtures?.close()]);
  };
  const started = await Promise.allSettled([
    startQbittorrent().then((value) => (up.qbt = value)),
    startGlances().then((value) => (up.glances = value)),
    startRadicale().then((value) => (up.radicale = value)),
    startPodman().then((value) => (up.podman = value)),
    startHttpFixture({
      '/feed.xml': { headers: { 'content-type': 'application/rss+xml' }, body: feedXml },
      '/stats': { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ uptime: 4242, name: 'stand-alone', requests: 1834 }) },
      '/v1/forecast': { headers: { 'content-type': 'application/json; charset=utf-8' }, body: forecast },
    }).then((value) => (up.fixtures = value)),
  ]);
  const failed = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const { qbt, radicale, podman, fixtures } = up as Required<Pick<LiveServices, 'qbt' | 'radicale' | 'podman' | 'fixtures'>>;
  await qbittorrentAddMagnet(qbt, torrentMagnet('1111111111111111111111111111111111111111', liveTorrentName));
  await podman.createContainer(containerName);
  const calendarUrl = await radicale.createCalendar('home');
  const start = new Date(Date.now() + 2 * 86_400_000);
  const utc = (date: Date) => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const event = ['UID:party@tessera.test', `DTSTAMP:${utc(new Date())}`, `DTSTART:${utc(start)}`, `DTEND:${utc(new Date(start.getTime() + 3_600_000))}`, `SUMMARY:${liveEventTitle}`, 'LOCATION:Room 4'];
  await radicale.put(calendarUrl, 'party.ics', ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Tessera tests//EN', 'BEGIN:VEVENT', ...event, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n'));
  return {
    ...(up as LiveServices),
    calendarUrl,
    containerName,
    env: { FEED_ALLOW_LOCAL: 'true', OPEN_METEO_URL: fixtures.url, DOCKER_HOST: `unix://${podman.socketPath}` },
    stop,
  };
}

/** Calls the API as the admin and answers the body; a status of 300 or more throws. */
export type AdminCall = (method: string, path: string, body?: unknown) => Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface LiveBoardIds {
  downloads: string;
  resources: string;
  disks: string;
  calendar: string;
  feed: string;
  containers: string;
  custom: string;
  weather: string;
  down: string;
}

/**
 * A public board `name` with one live tile per kind, bound to the services, on a 12-column desktop layout (from 800 px)
 * and a 4-column phone layout; plus a health tile bound to an integration nobody answers (`down`).
 */
export async function seedLiveBoard(call: AdminCall, services: LiveServices, name: string): Promise<{ boardId: string; ids: LiveBoardIds }> {
  const integration = async (kind: string, label: string, url: string, secrets: { kind: string; value: string }[] = []) =>
    (await call('POST', '/api/integrations', { name: label, kind, url, ...(secrets.length ? { secrets } : {}) })).integrationId as string;
  const suffix = name.slice(-6);
  const qbtId = await integration('qBittorrent', `qBittorrent ${suffix}`, services.qbt.url, [{ kind: 'username', value: qbittorrentLogin.username }, { kind: 'password', value: qbittorrentLogin.password }]);
  const glancesId = await integration('glances', `Home server ${suffix}`, services.glances.url);
  const deadId = await integration('glances', `Old NAS ${suffix}`, 'http://127.0.0.1:9');
  const icalId = await integration('ical', `Family calendar ${suffix}`, services.calendarUrl, [{ kind: 'username', value: services.radicale.user }, { kind: 'password', value: services.radicale.password }]);
  const customApi = await call('POST', '/api/custom-apis', {
    name: `Proxy stats ${suffix}`,
    url: `${services.fixtures.url}/stats`,
    fields: [{ label: 'Uptime', path: '$.uptime', format: 'duration' }, { label: 'Requests', path: '$.requests', format: 'number' }],
  });
  const { boardId } = await call('POST', '/api/boards', { name, columnCount: 4, isPublic: true });
  const start = await call('GET', `/api/boards/${boardId}`);
  await call('PATCH', `/api/boards/${boardId}/layouts`, { layouts: [...start.layouts, { id: `${suffix}-desktop`, name: 'Desktop', columnCount: 12, breakpoint: 800 }] });
  await call('PATCH', `/api/boards/${boardId}/settings`, { pageTitle: 'Home lab, live' });
  const doc = await call('GET', `/api/boards/${boardId}`);
  const [phone, desktop] = doc.layouts;
  const section = doc.sections[0].id;
  const ids: LiveBoardIds = { downloads: `${suffix}-dl`, resources: `${suffix}-res`, disks: `${suffix}-disks`, calendar: `${suffix}-cal`, feed: `${suffix}-feed`, containers: `${suffix}-box`, custom: `${suffix}-capi`, weather: `${suffix}-wx`, down: `${suffix}-down` };
  const at = (p: [number, number, number, number], d: [number, number, number, number]) => [
    { layoutId: phone.id, sectionId: section, xOffset: p[0], yOffset: p[1], width: p[2], height: p[3] },
    { layoutId: desktop.id, sectionId: section, xOffset: d[0], yOffset: d[1], width: d[2], height: d[3] },
  ];
  const tile = (id: string, kind: string, layouts: unknown[], options: Record<string, unknown> = {}, integrationIds: string[] = []) => ({
    id,
    kind,
    options,
    integrationIds,
    advancedOptions: { title: null, customCssClasses: [], borderColor: '' },
    layouts,
  });
  await call('PUT', `/api/boards/${boardId}`, {
    sections: doc.sections,
    items: [
      tile(ids.downloads, 'downloads', at([0, 0, 4, 2], [0, 0, 8, 2]), { columns: ['name', 'state', 'progress', 'size', 'actions'] }, [qbtId]),
      tile(ids.resources, 'systemResources', at([0, 2, 4, 2], [8, 0, 4, 2]), {}, [glancesId]),
      tile(ids.calendar, 'calendar', at([0, 4, 4, 2], [0, 2, 4, 2]), {}, [icalId]),
      tile(ids.feed, 'rssFeed', at([0, 6, 4, 2], [4, 2, 4, 2]), { feedUrls: [`${services.fixtures.url}/feed.xml`], textLinesClamp: 2 }),
      tile(ids.containers, 'dockerContainers', at([0, 8, 4, 2], [8, 2, 4, 2])),
      tile(ids.custom, 'customApi', at([0, 10, 2, 2], [0, 4, 4, 2]), { definitionId: customApi.id }),
      tile(ids.weather, 'weather', at([2, 10, 2, 2], [4, 4, 4, 2]), { location: { name: 'Berlin', latitude: 52.52, longitude: 13.405 }, showCity: true, isFormatFahrenheit: true, forecastDayCount: 3 }),
      tile(ids.disks, 'systemDisks', at([0, 12, 2, 2], [8, 4, 2, 2]), {}, [glancesId]),
      tile(ids.down, 'healthMonitoring', at([2, 12, 2, 2], [10, 4, 2, 2]), {}, [deadId]),
    ],
  });
  return { boardId, ids };
}
