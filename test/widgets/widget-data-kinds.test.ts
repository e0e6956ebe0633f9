import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startHttpFixture, type HttpFixture } from '../support/httpFixture';
import { startPodman, type PodmanService } from '../support/podman';
import { startRadicale, type Radicale } from '../support/radicale';
import { startTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

/**
 * The live kinds written against the LiveKind interface, each proven THROUGH the widget request path
 * (`GET /api/boards/{id}/items/{itemId}/data`, WDATA-1) on the real app and database: calendar against a real
 * Radicale, rssFeed and customApi against local HTTP servers, dockerContainers against a real Podman socket, and weather
 * against a local stand-in for Open-Meteo (these machines have no internet: the stand-in serves the recorded answer
 * test/widgets/live/fixtures/open-meteo-forecast.json and counts the requests it was sent).
 */
const fixtures = path.join(__dirname, 'live', 'fixtures');
const forecast = readFileSync(path.join(fixtures, 'open-meteo-forecast.json'), 'utf8');
const rss = (title: string, description: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>${title}</title><link>https://feed.example/</link>` +
  `<item><title>${title} post</title><link>https://feed.example/post</link><description>${description}</description></item></channel></rss>`;

let feeds: HttpFixture;
let meteo: HttpFixture;
let api: HttpFixture;
/** The server with FEED_ALLOW_LOCAL and OPEN_METEO_URL at the stand-in, and no DOCKER_HOST. */
let server: TestServer;
/** A server with the defaults: no local feeds, no DOCKER_HOST. */
let plain: TestServer;
const apiSecret = `capi-${unique('secret')}`;

beforeAll(async () => {
  feeds = await startHttpFixture({
    '/one.xml': { headers: { 'content-type': 'application/rss+xml' }, body: rss('Feed One', 'plain words') },
    '/two.xml': { headers: { 'content-type': 'application/rss+xml' }, body: rss('Feed Two', '&lt;script&gt;alert(1)&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt; text') },
    '/broken.xml': { headers: { 'content-type': 'application/rss+xml' }, body: '<rss><channel><title>cut off' },
  });
  meteo = await startHttpFixture({ '/v1/forecast': { headers: { 'content-type': 'application/json; charset=utf-8' }, body: forecast } });
  api = await startHttpFixture({
    '/stats': { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ uptime: 4242, name: 'stand-alone' }) },
    '/svc/status': { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ up: 'yes-through-integration' }) },
  });
  server = await startTestServer({ FEED_ALLOW_LOCAL: 'true', OPEN_METEO_URL: meteo.url });
  plain = await startTestServer();
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await plain?.stop();
  await feeds?.close();
  await meteo?.close();
  await api?.close();
}, 120_000);

async function integration(on: TestServer, kind: string, url: string, secrets: { kind: string; value: string }[] = []): Promise<string> {
  return expectOk(await on.call('POST', '/api/integrations', { body: { name: unique(kind), kind, url, ...(secrets.length > 0 ? { secrets } : {}) } }), 201).integrationId;
}

/** A board with one item per entry; answers the board and item ids. */
async function board(on: TestServer, items: { kind: string; options?: Record<string, unknown>; integrationIds?: string[] }[]): Promise<{ boardId: string; itemIds: string[] }> {
  const { boardId } = expectOk(await on.call('POST', '/api/boards', { body: { name: unique('kinds-'), columnCount: 12, isPublic: false } }), 201);
  const doc = expectOk(await on.call('GET', `/api/boards/${boardId}`));
  const itemIds = items.map(() => unique('it'));
  expectOk(
    await on.call('PUT', `/api/boards/${boardId}`, {
      body: {
        sections: doc.sections,
        items: items.map((entry, index) =>
          item(itemIds[index], [position(doc.layouts[0].id, doc.sections[0].id, (index % 6) * 2, Math.floor(index / 6) * 2, 2, 2)], {
            kind: entry.kind,
            options: entry.options ?? {},
            integrationIds: entry.integrationIds ?? [],
          }),
        ),
      },
    }),
  );
  return { boardId, itemIds };
}

const data = async (on: TestServer, boardId: string, itemId: string) => {
  const answer = await on.call('GET', `/api/boards/${boardId}/items/${itemId}/data`);
  return { status: answer.status, body: answer.body, text: JSON.stringify(answer.body) };
};

describe('calendar + ical against a real Radicale', () => {
  let radicale: Radicale;
  let collection: string;
  const now = new Date();
  const at = (days: number, hour = 10) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days, hour));
  const utc = (date: Date) => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const vcalendar = (lines: string[]) =>
    ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Tessera tests//EN', 'BEGIN:VEVENT', `DTSTAMP:${utc(now)}`, ...lines, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

  beforeAll(async () => {
    radicale = await startRadicale();
    collection = await radicale.createCalendar('kinds');
    await radicale.put(collection, 'review.ics', vcalendar(['UID:review@tessera.test', `DTSTART:${utc(at(3))}`, `DTEND:${utc(at(3, 11))}`, 'SUMMARY:Quarterly review']));
    await radicale.put(collection, 'standup.ics', vcalendar(['UID:standup@tessera.test', `DTSTART:${utc(at(-2, 9))}`, `DTEND:${utc(at(-2, 10))}`, 'RRULE:FREQ=DAILY;COUNT=5', 'SUMMARY:Daily standup']));
  }, 180_000);
  afterAll(async () => {
    await radicale?.stop();
  }, 60_000);

  it('WDATA-1, CAL-1, CAL-2: an item bound to an ical integration with username/password shows the event and the recurring occurrences; the password is in no answer', async () => {
    const id = await integration(server, 'ical', collection, [{ kind: 'username', value: radicale.user }, { kind: 'password', value: radicale.password }]);
    const { boardId, itemIds } = await board(server, [{ kind: 'calendar', integrationIds: [id] }]);
    const answer = await data(server, boardId, itemIds[0]);
    expect(answer.status).toBe(200);
    expect(answer.body.results).toHaveLength(1);
    const [result] = answer.body.results;
    expect(result).toMatchObject({ integrationId: id, status: 'ok' });
    const titles: string[] = result.data.events.map((event: { title: string }) => event.title);
    expect(titles).toContain('Quarterly review');
    expect(titles.filter((title) => title === 'Daily standup')).toHaveLength(5);
    const starts = result.data.events.filter((event: { title: string }) => event.title === 'Daily standup').map((event: { start: string }) => event.start);
    expect(new Set(starts).size).toBe(5);
    expect(answer.text).not.toContain(radicale.password);
    expect(JSON.stringify((await server.call('GET', `/api/integrations/${id}`)).body)).not.toContain(radicale.password);
  }, 120_000);
});

describe('rssFeed against a local feed server', () => {
  it('WDATA-1, FEED-1, FEED-3, FEED-4: two feed URLs give two results; a <script> description comes back as text only', async () => {
    const { boardId, itemIds } = await board(server, [{ kind: 'rssFeed', options: { feedUrls: [`${feeds.url}/one.xml`, `${feeds.url}/two.xml`] } }]);
    const answer = await data(server, boardId, itemIds[0]);
    expect(answer.status).toBe(200);
    expect(answer.body.results).toHaveLength(2);
    for (const result of answer.body.results) expect(result.status).toBe('ok');
    const byTitle = new Map(answer.body.results.map((result: { data: { title: string } }) => [result.data.title, result.data]));
    expect([...byTitle.keys()].sort()).toEqual(['Feed One', 'Feed Two']);
    const two = byTitle.get('Feed Two') as { items: { title: string; summary: string | null }[] };
    expect(two.items[0].title).toBe('Feed Two post');
    expect(two.items[0].summary).toContain('bold');
    expect(two.items[0].summary).not.toMatch(/[<>]/);
    expect(answer.text).not.toContain('<script');
    expect(answer.text).not.toContain('alert(1)</');
  }, 120_000);

  it('FEED-2: a broken feed is an error result for that feed alone, with HTTP 200', async () => {
    const { boardId, itemIds } = await board(server, [{ kind: 'rssFeed', options: { feedUrls: [`${feeds.url}/one.xml`, `${feeds.url}/broken.xml`] } }]);
    const answer = await data(server, boardId, itemIds[0]);
    expect(answer.status).toBe(200);
    expect(answer.body.results).toHaveLength(2);
    const statuses = answer.body.results.map((result: { status: string }) => result.status).sort();
    expect(statuses[0]).not.toBe('ok');
    expect(statuses[1]).toBe('ok');
    const failed = answer.body.results.find((result: { status: string }) => result.status !== 'ok');
    expect(typeof failed.message).toBe('string');
    expect(answer.body.results.find((result: { status: string }) => result.status === 'ok').data.title).toBe('Feed One');
  }, 120_000);

  it('FEED-3: without FEED_ALLOW_LOCAL a local feed is an error result, and the feed server saw no request', async () => {
    const path = `/one.xml?refused=${unique('q')}`;
    const { boardId, itemIds } = await board(plain, [{ kind: 'rssFeed', options: { feedUrls: [`${feeds.url}${path}`] } }]);
    const answer = await data(plain, boardId, itemIds[0]);
    expect(answer.status).toBe(200);
    expect(answer.body.results).toHaveLength(1);
    expect(answer.body.results[0].status).not.toBe('ok');
    expect(typeof answer.body.results[0].message).toBe('string');
    expect(feeds.requests.map((request) => request.path)).not.toContain(path);
  }, 120_000);
});

describe('weather against a local Open-Meteo stand-in', () => {
  it('WDATA-1, WX-1, WX-2, WX-3: °C and a description come back; two items at one location cost one upstream request', async () => {
    const location = { name: 'Berlin', latitude: 52.52, longitude: 13.405 };
    const { boardId, itemIds } = await board(server, [
      { kind: 'weather', options: { location } },
      { kind: 'weather', options: { location: { ...location, name: 'Berlin again' }, showCity: true } },
    ]);
    const before = meteo.requests.filter((request) => request.path.startsWith('/v1/forecast')).length;
    const first = await data(server, boardId, itemIds[0]);
    expect(first.status).toBe(200);
    expect(first.body.results).toHaveLength(1);
    expect(first.body.results[0].status).toBe('ok');
    expect(first.body.results[0].data.current.temperatureC).toBe(3.4);
    expect(first.body.results[0].data.current.description).toBe('Overcast');
    const second = await data(server, boardId, itemIds[1]);
    expect(second.body.results[0].status).toBe('ok');
    expect(second.body.results[0].data.current.temperatureC).toBe(3.4);
    const asked = meteo.requests.filter((request) => request.path.startsWith('/v1/forecast'));
    expect(asked.length - before).toBe(1);
    expect(new URL(asked[asked.length - 1].path, 'http://x').searchParams.get('temperature_unit')).toBe('celsius');
  }, 120_000);
});

describe('customApi against a local HTTP server', () => {
  it('WDATA-1, CAPI-1, CAPI-8: a definition with an absolute URL shows its picked field through the route', async () => {
    const created = expectOk(
      await server.call('POST', '/api/custom-apis', { body: { name: unique('Stats '), url: `${api.url}/stats`, fields: [{ label: 'Uptime', path: '$.uptime' }] } }),
      201,
    );
    const { boardId, itemIds } = await board(server, [{ kind: 'customApi', options: { definitionId: created.id } }]);
    const answer = await data(server, boardId, itemIds[0]);
    expect(answer.status).toBe(200);
    expect(answer.body.results).toHaveLength(1);
    expect(answer.body.results[0].status).toBe('ok');
    expect(answer.body.results[0].data).toMatchObject({ definitionId: created.id, mode: 'fields', fields: [{ label: 'Uptime', value: 4242 }] });
  }, 120_000);

  it('WDATA-2, CAPI-8: an integration-based definition shows data only where its integration is bound; the {{apiKey}} secret is in no answer', async () => {
    const id = await integration(server, 'gotify', `${api.url}/svc/`, [{ kind: 'apiKey', value: apiSecret }]);
    const created = expectOk(
      await server.call('POST', '/api/custom-apis', {
        body: { name: unique('Svc '), integrationId: id, url: 'status', headers: [{ name: 'X-Api-Key', value: '{{apiKey}}' }], fields: [{ label: 'Up', path: '$.up' }] },
      }),
      201,
    );
    const { boardId, itemIds } = await board(server, [
      { kind: 'customApi', options: { definitionId: created.id }, integrationIds: [id] },
      { kind: 'customApi', options: { definitionId: created.id } },
    ]);
    const bound = await data(server, boardId, itemIds[0]);
    expect(bound.status).toBe(200);
    expect(bound.body.results).toHaveLength(1);
    expect(bound.body.results[0]).toMatchObject({ integrationId: id, status: 'ok' });
    expect(bound.body.results[0].data.fields).toEqual([expect.objectContaining({ label: 'Up', value: 'yes-through-integration' })]);
    const seen = api.requests.filter((request) => request.path === '/svc/status');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[seen.length - 1].headers['x-api-key']).toBe(apiSecret);
    const unbound = await data(server, boardId, itemIds[1]);
    expect(unbound.status).toBe(200);
    expect(unbound.text).not.toContain('yes-through-integration');
    const texts = [bound.text, unbound.text, JSON.stringify((await server.call('GET', `/api/custom-apis/${created.id}`)).body), JSON.stringify((await server.call('GET', `/api/integrations/${id}`)).body)];
    for (const text of texts) expect(text).not.toContain(apiSecret);
  }, 120_000);
});

describe('dockerContainers against a real Podman socket', () => {
  let podman: PodmanService;
  let docker: TestServer;
  const name = unique('tessera-kinds');

  beforeAll(async () => {
    podman = await startPodman();
    await podman.createContainer(name);
    docker = await startTestServer({ DOCKER_HOST: `unix://${podman.socketPath}` });
  }, 300_000);
  afterAll(async () => {
    await docker?.stop();
    await podman?.stop();
  }, 180_000);

  it('WDATA-1, DOCK-1, DOCK-4: a created container\'s name and state come back through the route', async () => {
    const { boardId, itemIds } = await board(docker, [{ kind: 'dockerContainers' }]);
    const answer = await data(docker, boardId, itemIds[0]);
    expect(answer.status).toBe(200);
    expect(answer.body.results).toHaveLength(1);
    expect(answer.body.results[0].status).toBe('ok');
    const container = answer.body.results[0].data.containers.find((entry: { name: string }) => entry.name === name);
    expect(container).toMatchObject({ name, state: 'created' });
  }, 120_000);

  it('DOCK-4: a server without DOCKER_HOST answers one error result and HTTP 200', async () => {
    const { boardId, itemIds } = await board(plain, [{ kind: 'dockerContainers' }]);
    const answer = await data(plain, boardId, itemIds[0]);
    expect(answer.status).toBe(200);
    expect(answer.body.results).toHaveLength(1);
    expect(answer.body.results[0].status).not.toBe('ok');
    expect(answer.body.results[0].message).toContain('DOCKER_HOST is not configured');
  }, 120_000);
});
