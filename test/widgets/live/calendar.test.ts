/**
 * The calendar widget's live data (CAL-1..CAL-5): the window and the iCal parsing as pure functions, then the kind
 * against a real Radicale (Debian's package, started here on a free port with htpasswd auth) and against a static
 * .ics served by a local HTTP server. Dates are relative to now, so the assertions hold on any day.
 */
import { calendarWindow, calendarKind, maxMonths } from '../../../src/widgets/data/kinds/calendar';
import { eventsFromIcs, maxOccurrencesPerEvent, calendarUrl } from '../../../src/integrations/clients/ical';
import { ServiceError, type ClientContext } from '../../../src/integrations/clients/types';
import { outboundFetch } from '../../../src/outbound/fetch';
import type { BoundIntegration } from '../../../src/widgets/data/types';
import { startRadicale, type Radicale } from '../../support/radicale';
import { startHttpFixture, type HttpFixture } from '../../support/httpFixture';

const day = 24 * 3600 * 1000;
const now = new Date();
const at = (offsetDays: number, hour = 10) => {
  const date = new Date(now.getTime() + offsetDays * day);
  date.setUTCHours(hour, 0, 0, 0);
  return date;
};
const utc = (date: Date) => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
const dateOnly = (date: Date) => date.toISOString().slice(0, 10).replace(/-/g, '');

function vevent(lines: string[]): string {
  return ['BEGIN:VEVENT', `DTSTAMP:${utc(now)}`, ...lines, 'END:VEVENT'].join('\r\n');
}
function vcalendar(...events: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Tessera tests//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
}

const single = vevent(['UID:single@tessera.test', `DTSTART:${utc(at(3))}`, `DTEND:${utc(at(3, 11))}`, 'SUMMARY:Team sync', 'LOCATION:Room 4', 'URL:https://example.test/sync']);
// Daily from two days ago, ten times: all ten within the default window of two months either side.
const recurring = vevent(['UID:standup@tessera.test', `DTSTART:${utc(at(-2, 9))}`, `DTEND:${utc(at(-2, 10))}`, 'RRULE:FREQ=DAILY;COUNT=10', 'SUMMARY:Standup']);
// Six months ahead: outside the default window.
const far = vevent(['UID:far@tessera.test', `DTSTART:${utc(at(183))}`, `DTEND:${utc(at(183, 11))}`, 'SUMMARY:Far away']);
const ctx: ClientContext = { fetch: outboundFetch, timeoutMs: 30_000, maxBytes: 1024 * 1024, now: () => now };
const defaultQuery = calendarKind.query({});

function ical(url: string, secrets: BoundIntegration['target']['secrets'] = {}): BoundIntegration {
  return { id: 'i1', name: 'Calendar', kind: 'ical', target: { url, secrets } };
}

describe('calendar: pure parts', () => {
  it('CAL-4: the window is filterPastMonths before and filterFutureMonths after now (2 each by default, at most 120)', () => {
    const base = new Date('2026-06-15T12:00:00Z');
    expect(calendarWindow(calendarKind.query({}), base)).toEqual({ start: new Date('2026-04-15T12:00:00Z'), end: new Date('2026-08-15T12:00:00Z') });
    expect(calendarWindow(calendarKind.query({ filterPastMonths: 3, filterFutureMonths: 12 }), base)).toEqual({
      start: new Date('2026-03-15T12:00:00Z'),
      end: new Date('2027-06-15T12:00:00Z'),
    });
    const widest = calendarWindow(calendarKind.query({ filterFutureMonths: 9999 }), base);
    expect(widest.end).toEqual(new Date(`${2026 + maxMonths / 12}-06-15T12:00:00Z`));
  });

  it('CAL-2: a recurring event expands within the window; EXDATE and RECURRENCE-ID apply; an event outside is left out', () => {
    const weekly = vevent([
      'UID:weekly@tessera.test',
      `DTSTART:${utc(at(-70))}`,
      `DTEND:${utc(at(-70, 11))}`,
      'RRULE:FREQ=WEEKLY',
      `EXDATE:${utc(at(7))}`,
      'SUMMARY:Weekly review',
    ]);
    const moved = vevent(['UID:weekly@tessera.test', `RECURRENCE-ID:${utc(at(14))}`, `DTSTART:${utc(at(15))}`, `DTEND:${utc(at(15, 11))}`, 'SUMMARY:Weekly review (moved)']);
    const window = { start: at(-1, 0), end: at(29, 0) };
    const { events, truncated } = eventsFromIcs(vcalendar(weekly, moved, far), window);
    expect(truncated).toBe(false);
    // Occurrences at +0, +7 (excluded), +14 (moved to +15), +21, +28.
    expect(events.map((event) => [event.title, event.start])).toEqual([
      ['Weekly review', at(0).toISOString()],
      ['Weekly review (moved)', at(15).toISOString()],
      ['Weekly review', at(21).toISOString()],
      ['Weekly review', at(28).toISOString()],
    ]);
    expect(events.some((event) => event.title === 'Far away')).toBe(false);
  });

  it('CAL-2: all-day events are dates; text fields are plain text; only http(s) URLs', () => {
    const allDay = vevent([
      'UID:holiday@tessera.test',
      `DTSTART;VALUE=DATE:${dateOnly(at(5))}`,
      `DTEND;VALUE=DATE:${dateOnly(at(6))}`,
      'SUMMARY:Holiday',
      'DESCRIPTION:<p>Office <b>closed</b></p><script>alert(1)</script>',
      'URL:javascript:alert(1)',
    ]);
    const [event] = eventsFromIcs(vcalendar(allDay), { start: at(0), end: at(30) }).events;
    expect(event).toEqual({
      title: 'Holiday',
      start: at(5).toISOString().slice(0, 10),
      end: at(6).toISOString().slice(0, 10),
      allDay: true,
      location: null,
      description: 'Office closed',
      url: null,
    });
  });

  it('CAL-3: an event recurring every second is bounded: at most the cap of occurrences is looked at, and the answer says so', () => {
    const flood = vevent(['UID:flood@tessera.test', `DTSTART:${utc(at(-1))}`, 'DURATION:PT1S', 'RRULE:FREQ=SECONDLY', 'SUMMARY:Flood']);
    const { events, truncated } = eventsFromIcs(vcalendar(flood), { start: at(-2), end: at(30) });
    expect(truncated).toBe(true);
    expect(events.length).toBeLessThanOrEqual(Math.min(500, maxOccurrencesPerEvent));
    expect(events[0].title).toBe('Flood');
  });

  it('CAL-3: a daily event begun twenty years ago still reaches the window (occurrences before it are stepped over)', () => {
    const old = vevent(['UID:old@tessera.test', `DTSTART:${utc(at(-20 * 365))}`, 'DURATION:PT1H', 'RRULE:FREQ=DAILY', 'SUMMARY:Backup check']);
    const { events, truncated } = eventsFromIcs(vcalendar(old), { start: at(0, 0), end: at(3, 0) });
    expect(truncated).toBe(false);
    expect(events.map((event) => event.start)).toEqual([at(0), at(1), at(2)].map((date) => date.toISOString()));
  });

  it('CAL-2: a TZID is read with the document\'s own VTIMEZONE, and one calendar\'s zone definition does not change another\'s', () => {
    const zone = (offset: string) =>
      ['BEGIN:VTIMEZONE', 'TZID:Europe/Berlin', 'BEGIN:STANDARD', 'DTSTART:19701025T030000', `TZOFFSETFROM:${offset}`, `TZOFFSETTO:${offset}`, 'TZNAME:X', 'END:STANDARD', 'END:VTIMEZONE'].join('\r\n');
    const meeting = vevent(['UID:tz@tessera.test', 'DTSTART;TZID=Europe/Berlin:20261201T100000', 'DTEND;TZID=Europe/Berlin:20261201T110000', 'SUMMARY:Zoned']);
    const window = { start: new Date('2026-11-01T00:00:00Z'), end: new Date('2027-01-01T00:00:00Z') };
    // A hostile calendar defines "Europe/Berlin" as UTC+12 first; the honest one's +01:00 still applies to its own events.
    expect(eventsFromIcs(vcalendar(zone('+1200'), meeting), window).events[0].start).toBe('2026-11-30T22:00:00.000Z');
    expect(eventsFromIcs(vcalendar(zone('+0100'), meeting), window).events[0].start).toBe('2026-12-01T09:00:00.000Z');
  });

  it('CAL-2: an answer that is not iCalendar is a bad-answer ServiceError', () => {
    expect(() => eventsFromIcs('<html>login</html>', { start: at(0), end: at(1) })).toThrow(ServiceError);
    expect(() => eventsFromIcs('BEGIN:VCARD\r\nVERSION:4.0\r\nEND:VCARD\r\n', { start: at(0), end: at(1) })).toThrow('not an iCalendar document');
  });

  it('CAL-1: webcal:// links are fetched over https', () => {
    expect(calendarUrl('webcal://calendar.example/feed.ics')).toBe('https://calendar.example/feed.ics');
    expect(calendarUrl('http://calendar.example/feed.ics')).toBe('http://calendar.example/feed.ics');
  });

  it('CAL-5: calendar integrations other than ical answer that they are not supported yet', async () => {
    const sonarr: BoundIntegration = { id: 'i2', name: 'Sonarr', kind: 'sonarr', target: { url: 'http://127.0.0.1:9/', secrets: {} } };
    await expect(calendarKind.fromIntegration!(ctx, sonarr, defaultQuery)).rejects.toThrow('calendar data from sonarr integrations is not supported yet (only ical)');
  });
});

function expectCalendar(events: { title: string; start: string }[]) {
  expect(events.filter((event) => event.title === 'Team sync')).toHaveLength(1);
  expect(events.filter((event) => event.title === 'Standup').map((event) => event.start)).toEqual(Array.from({ length: 10 }, (_, i) => at(i - 2, 9).toISOString()));
  expect(events.some((event) => event.title === 'Far away')).toBe(false);
}

describe('calendar: a real Radicale', () => {
  let radicale: Radicale;
  let collection: string;
  beforeAll(async () => {
    radicale = await startRadicale();
    collection = await radicale.createCalendar('work');
    await radicale.put(collection, 'single.ics', vcalendar(single));
    await radicale.put(collection, 'standup.ics', vcalendar(recurring));
    await radicale.put(collection, 'far.ics', vcalendar(far));
  }, 180_000);
  afterAll(() => radicale?.stop());

  it('CAL-1, CAL-2: the collection read with basic auth: an event title arrives, a recurring event expands, one outside the window is left out', async () => {
    const data = await calendarKind.fromIntegration!(ctx, ical(collection, { username: radicale.user, password: radicale.password }), defaultQuery);
    expectCalendar(data.events);
    expect(data.events.find((event) => event.title === 'Team sync')).toEqual({
      title: 'Team sync',
      start: at(3).toISOString(),
      end: at(3, 11).toISOString(),
      allDay: false,
      location: 'Room 4',
      description: null,
      url: 'https://example.test/sync',
    });
  });

  it('CAL-1: a wrong password or none is an unauthorized ServiceError whose message carries no secret', async () => {
    const wrong = calendarKind.fromIntegration!(ctx, ical(collection, { username: radicale.user, password: 'not-the-password' }), defaultQuery);
    await expect(wrong).rejects.toMatchObject({ reason: 'unauthorized' });
    await expect(wrong).rejects.not.toThrow(/not-the-password/);
    await expect(calendarKind.fromIntegration!(ctx, ical(collection), defaultQuery)).rejects.toMatchObject({ reason: 'unauthorized' });
  });

  it('CAL-4: a wider future window takes in the event six months ahead', async () => {
    const data = await calendarKind.fromIntegration!(
      ctx,
      ical(collection, { username: radicale.user, password: radicale.password }),
      calendarKind.query({ filterFutureMonths: 12 }),
    );
    expect(data.events.filter((event) => event.title === 'Far away')).toHaveLength(1);
  });
});

describe('calendar: a static .ics over HTTP', () => {
  let server: HttpFixture;
  beforeAll(async () => {
    server = await startHttpFixture({
      '/team.ics': { headers: { 'content-type': 'text/calendar; charset=utf-8' }, body: vcalendar(single, recurring, far) },
      '/gone.ics': { status: 404, body: 'gone' },
      '/page.ics': { headers: { 'content-type': 'text/html' }, body: '<html><body>Sign in</body></html>' },
    });
  });
  afterAll(() => server?.close());

  it('CAL-1, CAL-2: an event title arrives, a recurring event expands, one outside the window is left out', async () => {
    const data = await calendarKind.fromIntegration!(ctx, ical(`${server.url}/team.ics`), defaultQuery);
    expectCalendar(data.events);
    expect(data.truncated).toBe(false);
    // No secrets set: no Authorization header is sent.
    expect(server.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  it('CAL-1: an HTTP error and a page that is not iCalendar are ServiceErrors (data, not a crash)', async () => {
    await expect(calendarKind.fromIntegration!(ctx, ical(`${server.url}/gone.ics`), defaultQuery)).rejects.toMatchObject({ reason: 'failed', message: 'the calendar server answered HTTP 404' });
    await expect(calendarKind.fromIntegration!(ctx, ical(`${server.url}/page.ics`), defaultQuery)).rejects.toMatchObject({ reason: 'bad-answer' });
  });
});
