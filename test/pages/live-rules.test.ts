/**
 * The live tiles' rules that need no browser (LIVEVIEW-2, LIVEVIEW-4, LIVEVIEW-6, LIVEVIEW-7), run in Node on the same
 * modules the page bundles: when a tile asks again, how values are written, which download columns are drawn, which
 * calendar events are listed under which day.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { liveKinds } from '../../src/widgets/data/kinds';
import { comingEvents, dayLabel } from '../../src/pages/client/live/rules';
import { defaultDownloadColumns, downloadColumns } from '../../src/pages/client/live/rules';
import {
  formatBytes,
  formatDuration,
  formatEta,
  formatPercent,
  formatPicked,
  formatRelative,
  formatSpeed,
  formatTemperature,
  formatWind,
  parseWhen,
} from '../../src/pages/client/live/format';
import { liveTimes, nextLiveAsk } from '../../src/pages/client/live/schedule';

const now = Date.parse('2026-11-29T12:00:00Z');
const ok = (ttlSeconds: number) => ({ status: 200, retryAfter: null, ttlSeconds, allFailed: false });

describe('LIVEVIEW-2: when a live tile asks again', () => {
  it('LIVEVIEW-2: a good answer is asked again after its TTL, at least 5 s, or after the item\'s longer refreshInterval', () => {
    expect(nextLiveAsk(ok(10), 0, now)).toEqual({ delayMs: 10_000, failures: 0 });
    expect(nextLiveAsk(ok(1), 0, now)).toEqual({ delayMs: liveTimes.minMs, failures: 0 });
    expect(nextLiveAsk(ok(30), 0, now, 120)).toEqual({ delayMs: 120_000, failures: 0 });
    expect(nextLiveAsk(ok(30), 0, now, 5)).toEqual({ delayMs: 30_000, failures: 0 });
  });

  it('LIVEVIEW-2: a kind without live data (TTL 0) and an item that left the board (404) are not asked again', () => {
    expect(nextLiveAsk(ok(0), 0, now).delayMs).toBeNull();
    expect(nextLiveAsk({ status: 404, retryAfter: null, ttlSeconds: 0, allFailed: false }, 3, now)).toEqual({ delayMs: null, failures: 0 });
  });

  it('LIVEVIEW-2: failures back off, doubling from the regular wait per failure in a row up to 5 min; a good answer resets them', () => {
    const failed = { status: 0, retryAfter: null, ttlSeconds: 10, allFailed: true };
    expect(nextLiveAsk(failed, 0, now)).toEqual({ delayMs: 20_000, failures: 1 });
    expect(nextLiveAsk(failed, 1, now)).toEqual({ delayMs: 40_000, failures: 2 });
    expect(nextLiveAsk(failed, 9, now)).toEqual({ delayMs: liveTimes.backoffMaxMs, failures: 10 });
    // every service failing is a failure too, though the operation answered 200
    expect(nextLiveAsk({ ...ok(5), allFailed: true }, 0, now)).toEqual({ delayMs: 10_000, failures: 1 });
    expect(nextLiveAsk({ status: 503, retryAfter: null, ttlSeconds: 0, allFailed: true }, 0, now)).toEqual({ delayMs: 10_000, failures: 1 });
    expect(nextLiveAsk(ok(5), 4, now)).toEqual({ delayMs: 5_000, failures: 0 });
  });

  it('LIVEVIEW-2: a Retry-After is obeyed (at least 5 s, at most an hour)', () => {
    expect(nextLiveAsk({ status: 429, retryAfter: '30', ttlSeconds: 0, allFailed: true }, 0, now)).toEqual({ delayMs: 30_000, failures: 1 });
    expect(nextLiveAsk({ status: 429, retryAfter: '0', ttlSeconds: 0, allFailed: true }, 0, now).delayMs).toBe(liveTimes.minMs);
    expect(nextLiveAsk({ status: 503, retryAfter: '999999', ttlSeconds: 0, allFailed: true }, 0, now).delayMs).toBe(liveTimes.retryAfterMaxMs);
    expect(nextLiveAsk({ status: 503, retryAfter: new Date(now + 60_000).toUTCString(), ttlSeconds: 0, allFailed: true }, 0, now).delayMs).toBe(60_000);
  });
});

describe('LIVEVIEW-4: values as text', () => {
  it('LIVEVIEW-4: bytes in binary units, speeds per second, percentages', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(8 * 1024 ** 3)).toBe('8.0 GiB');
    expect(formatBytes(-1)).toBe('–');
    expect(formatSpeed(2 * 1024 ** 2)).toBe('2.0 MiB/s');
    expect(formatPercent(12.46)).toBe('12%');
    expect(formatPercent(4.25)).toBe('4.3%');
    expect(formatPercent(100)).toBe('100%');
  });

  it('LIVEVIEW-4: durations in their two largest units; an unknown ETA is a dash', () => {
    expect(formatDuration(42)).toBe('42 s');
    expect(formatDuration(3725)).toBe('1 h 2 min');
    expect(formatDuration(90061)).toBe('1 d 1 h');
    expect(formatDuration(0)).toBe('0 s');
    expect(formatEta(null)).toBe('–');
  });

  it('LIVEVIEW-4: temperatures in °C or °F, whole when asked; wind in km/h or mph', () => {
    expect(formatTemperature(3.44, false)).toBe('3.4 °C');
    expect(formatTemperature(100, true)).toBe('212.0 °F');
    expect(formatTemperature(-0.4, false, true)).toBe('0 °C');
    expect(formatWind(16.09344, true)).toBe('10 mph');
    expect(formatWind(11.2, false)).toBe('11 km/h');
  });

  it('LIVEVIEW-4: relative dates; an all-day date is that day where the viewer is', () => {
    const at = new Date(now);
    expect(formatRelative(new Date(now - 10_000), at)).toBe('just now');
    expect(formatRelative(new Date(now - 3 * 60_000), at)).toBe('3 min ago');
    expect(formatRelative(new Date(now + 2 * 86_400_000), at)).toBe('in 2 days');
    expect(formatRelative(new Date(now - 3_600_000), at)).toBe('1 hour ago');
    const day = parseWhen('2026-12-24')!;
    expect([day.getFullYear(), day.getMonth(), day.getDate(), day.getHours()]).toEqual([2026, 11, 24, 0]);
    expect(parseWhen(1_700_000_000)!.toISOString()).toBe('2023-11-14T22:13:20.000Z');
    expect(parseWhen('not a date')).toBeNull();
  });

  it('LIVEVIEW-4, CAPI-5: a picked value formatted as its definition says; lists joined; null and objects never break it', () => {
    const at = new Date(now);
    expect(formatPicked(1234567.891, 'number', at)).toBe('1,234,567.89');
    expect(formatPicked('42', 'percent', at)).toBe('42%');
    expect(formatPicked(2048, 'bytes', at)).toBe('2.0 KiB');
    expect(formatPicked(4242, 'duration', at)).toBe('1 h 10 min');
    expect(formatPicked((now - 120_000) / 1000, 'relativeDate', at)).toBe('2 min ago');
    expect(formatPicked([1, 2, null], 'number', at)).toBe('1, 2, –');
    expect(formatPicked('<b>x</b>', 'text', at)).toBe('<b>x</b>');
    expect(formatPicked('n/a', 'bytes', at)).toBe('n/a');
    expect(formatPicked(null, 'text', at)).toBe('–');
  });
});

describe('LIVEVIEW-6: download columns', () => {
  it('LIVEVIEW-6: the known columns the options name, in their order, once each; else the default set', () => {
    expect(downloadColumns(['name', 'state', 'ratio', 'name', 'nonsense'])).toEqual(['name', 'state', 'ratio']);
    expect(downloadColumns(undefined)).toEqual(defaultDownloadColumns);
    expect(downloadColumns(['nonsense'])).toEqual(defaultDownloadColumns);
    expect(downloadColumns('name')).toEqual(defaultDownloadColumns);
  });
});

describe('LIVEVIEW-7: calendar events', () => {
  const event = (title: string, start: string, end: string, allDay = false) => ({ title, start, end, allDay, location: null, description: null, url: null });
  it('LIVEVIEW-7: events not yet over, by start; past ones left out', () => {
    const at = new Date(now);
    const listed = comingEvents(
      [event('later', '2026-11-30T09:00:00Z', '2026-11-30T10:00:00Z'), event('over', '2026-11-28T09:00:00Z', '2026-11-28T10:00:00Z'), event('running', '2026-11-29T11:00:00Z', '2026-11-29T13:00:00Z'), event('bad', 'x', 'y')],
      at,
    );
    expect(listed.map((entry) => entry.event.title)).toEqual(['running', 'later']);
    expect(comingEvents([event('a', '2026-12-01T00:00:00Z', '2026-12-01T01:00:00Z'), event('b', '2026-12-02T00:00:00Z', '2026-12-02T01:00:00Z')], at, 1)).toHaveLength(1);
  });

  it('LIVEVIEW-7: days are "Today", "Tomorrow", then the date', () => {
    const at = new Date(2026, 10, 29, 12);
    expect(dayLabel(new Date(2026, 10, 29, 23), at)).toBe('Today');
    expect(dayLabel(new Date(2026, 10, 30, 1), at)).toBe('Tomorrow');
    expect(dayLabel(new Date(2026, 11, 3, 9), at)).toContain('3');
  });
});

describe('LIVEVIEW-1: the page has a view for each live kind of the server, and the docs list them', () => {
  // views.ts imports the DOM modules, so its table is read as text here (its keys are plain identifiers).
  const viewsSource = readFileSync(path.join(__dirname, '../../src/pages/client/live/views.ts'), 'utf8');
  const table = viewsSource.slice(viewsSource.indexOf('liveViews'));
  const viewed = [...table.matchAll(/^\s+([A-Za-z]+): [A-Za-z]+View,$/gm)].map((match) => match[1]).sort();

  it('LIVEVIEW-1: every server live kind but the clock (drawn by the clock widget with its weather line) has a view, and no other kind', () => {
    const server = liveKinds.map((kind) => kind.widgetKind).filter((kind) => kind !== 'clock').sort();
    expect(viewed).toEqual(server);
  });

  it('LIVEVIEW-1: docs/board-page.md lists each live kind as live', () => {
    const docs = readFileSync(path.join(__dirname, '../../docs/board-page.md'), 'utf8');
    const section = docs.slice(docs.indexOf('### Live kinds'));
    for (const kind of viewed) expect(section).toMatch(new RegExp(`^\\| [^|]*\`${kind}\`[^|]*\\|[^|]*\\| yes \\|$`, 'm'));
  });
});
