/**
 * The page's widget rules that need no browser (VIEW-1, VIEW-3, VIEW-4, VIEW-6): clock formats, frame policy,
 * placeholder titles and address checks, run in Node on the same modules the page bundles.
 */
import { clockOptions, formatDate, knownTimeZone } from '../../src/pages/client/widgets/clockFormat';
import { framePolicy } from '../../src/pages/client/widgets/sanitize';
import { kindTitle } from '../../src/pages/client/widgets/titles';
import { safeIcon, safeImage, safeLink } from '../../src/pages/client/widgets/sanitize';
import { firstPoll, nextPoll, retryAfterMs } from '../../src/pages/client/statusSchedule';
import { integrationLabel } from '../../src/pages/client/widgets/titles';

const at = new Date('2026-03-04T05:06:07Z'); // a Wednesday

describe('VIEW-1 clock', () => {
  it('VIEW-1: formats day.js tokens in the item timezone, [text] kept', () => {
    expect(formatDate(at, 'YYYY-MM-DD HH:mm:ss', 'UTC')).toBe('2026-03-04 05:06:07');
    expect(formatDate(at, 'YYYY-MM-DD HH:mm', 'Asia/Tokyo')).toBe('2026-03-04 14:06');
    expect(formatDate(at, 'D/M/YY h:mm A', 'America/New_York')).toBe('4/3/26 12:06 AM');
    expect(formatDate(at, '[at] HH[h]', 'UTC')).toBe('at 05h');
    expect(formatDate(new Date('2026-03-04T13:00:00Z'), 'hh a', 'UTC')).toBe('01 pm');
  });

  it('VIEW-1: defaults are 24 h without seconds and the date as `dddd, MMMM D`; custom formats win', () => {
    expect(clockOptions({})).toEqual({ timeZone: undefined, timeFormat: 'HH:mm', dateFormat: 'dddd, MMMM D' });
    expect(clockOptions({ is24HourFormat: false, showSeconds: true, showDate: false })).toEqual({ timeZone: undefined, timeFormat: 'h:mm:ss A', dateFormat: null });
    expect(clockOptions({ useCustomTimezone: true, timezone: 'Europe/Paris', customTimeFormat: 'HH[h]mm', customDateFormat: 'DD/MM', dateFormat: 'MMM D' })).toEqual({
      timeZone: 'Europe/Paris',
      timeFormat: 'HH[h]mm',
      dateFormat: 'DD/MM',
    });
    // A timezone is used only with useCustomTimezone, and only when the runtime knows it.
    expect(clockOptions({ timezone: 'Europe/Paris' }).timeZone).toBeUndefined();
    expect(knownTimeZone('Not/AZone')).toBeUndefined();
    expect(knownTimeZone(42)).toBeUndefined();
  });
});

describe('VIEW-4 iframe', () => {
  it('VIEW-4: the sandbox always holds the base set; allow lists only the permissions the options ask for', () => {
    expect(framePolicy({})).toEqual({ sandbox: 'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox', allow: '' });
    expect(framePolicy({ allowModals: true, allowFullScreen: true, allowPayment: true, allowAutoPlay: true, allowMicrophone: true, allowCamera: true, allowGeolocation: true })).toEqual({
      sandbox: 'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-modals',
      allow: 'fullscreen; payment; autoplay; microphone; camera; geolocation',
    });
    expect(framePolicy({ allowCamera: 'true' }).allow).toBe('');
  });
});

describe('VIEW-6 placeholders', () => {
  it.each([
    ['weather', 'Weather'],
    ['dnsHoleSummary', 'DNS hole summary'],
    ['rssFeed', 'RSS feed'],
    ['smartHome-entityState', 'Smart home: Entity state'],
    ['mediaRequests-requestList', 'Media requests: Request list'],
    ['immich-albumCarousel', 'Immich: Album carousel'],
    ['', 'Widget'],
  ])('VIEW-6: %s is labelled "%s"', (kind, title) => {
    expect(kindTitle(kind)).toBe(title);
  });
});

describe('VIEW-3 addresses', () => {
  it('VIEW-3: links are http(s) or relative; images also data:image/ but not SVG', () => {
    expect(['https://a.example.com', 'HTTP://a.example.com', '/local', 'page?x=1', '#top'].map(safeLink)).toEqual(['https://a.example.com', 'HTTP://a.example.com', '/local', 'page?x=1', '#top']);
    expect(['javascript:alert(1)', ' JavaScript:alert(1)', 'java\tscript:alert(1)', 'data:text/html,x', 'vbscript:x', '//evil.example.com', '', null, 3].map(safeLink)).toEqual(Array(9).fill(null));
    expect(safeImage('data:image/png;base64,AA')).toBe('data:image/png;base64,AA');
    expect(safeImage('data:image/svg+xml,<svg onload=alert(1)>')).toBeNull();
    expect(safeImage('javascript:alert(1)')).toBeNull();
    // An app icon is only ever an <img> source, where an SVG's script never runs: SVG data icons are shown.
    expect(safeIcon('data:image/svg+xml,<svg/>')).toBe('data:image/svg+xml,<svg/>');
    expect(safeIcon('javascript:alert(1)')).toBeNull();
    expect(safeIcon('https://cdn.example.com/a.svg')).toBe('https://cdn.example.com/a.svg');
  });
});

describe('PING-5 the page asks for statuses again on a schedule', () => {
  const ok = (unknown: boolean) => ({ status: 200, retryAfter: null, unknown });
  it('PING-5: 5 s while a result is unknown (three times at most), then 60 s', () => {
    let state = firstPoll();
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const next = nextPoll(state, ok(true), 0);
      delays.push(next.delayMs);
      state = next.state;
    }
    expect(delays).toEqual([5_000, 5_000, 5_000, 60_000, 60_000]);
    expect(nextPoll(firstPoll(), ok(false), 0).delayMs).toBe(60_000);
  });

  it('PING-5: a failed answer is retried, never given up: Retry-After (seconds or a date) when sent, else 5 s doubling to 5 min; a success resets it', () => {
    const now = Date.parse('2026-03-04T05:06:07Z');
    expect(nextPoll(firstPoll(), { status: 429, retryAfter: '7', unknown: false }, now).delayMs).toBe(7_000);
    expect(nextPoll(firstPoll(), { status: 503, retryAfter: 'Wed, 04 Mar 2026 05:06:37 GMT', unknown: false }, now).delayMs).toBe(30_000);
    expect(nextPoll(firstPoll(), { status: 429, retryAfter: '999999', unknown: false }, now).delayMs).toBe(3_600_000);
    let state = firstPoll();
    const delays: number[] = [];
    for (let i = 0; i < 9; i++) {
      const next = nextPoll(state, { status: i % 2 ? 0 : 500, retryAfter: i === 0 ? 'soon' : null, unknown: false }, now);
      delays.push(next.delayMs);
      state = next.state;
    }
    expect(delays).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    const recovered = nextPoll(state, ok(false), now);
    expect(recovered).toEqual({ delayMs: 60_000, state: { quickRetries: 3, failures: 0 } });
    expect(nextPoll(recovered.state, { status: 429, retryAfter: null, unknown: false }, now).delayMs).toBe(5_000);
    expect(retryAfterMs(null, now)).toBeNull();
  });
});

describe('VIEW-6 integrations on a tile', () => {
  it('VIEW-6: names where the viewer may list them; the others counted, their ids never shown', () => {
    const names = new Map([['i1', 'Pi-hole']]);
    expect(integrationLabel(['i1'], names)).toBe('Pi-hole');
    expect(integrationLabel(['i1', 'i2'], names)).toBe('Pi-hole, 1 other integration');
    expect(integrationLabel(['i2'], names)).toBe('1 integration');
    expect(integrationLabel(['i2', 'i3'], new Map())).toBe('2 integrations');
  });
});
