/**
 * VIEW-1 `clock`, its pure part: the formats an item's options ask for, and a date formatted with day.js-style tokens
 * in a timezone (Intl only, no DOM: unit-tested in Node).
 */
import { flag, text } from './types';

export interface ClockOptions {
  timeZone: string | undefined;
  timeFormat: string;
  dateFormat: string | null;
}

interface Parts {
  year: number;
  month: number;
  day: number;
  weekday: number;
  hour: number;
  minute: number;
  second: number;
}

const numericFormatters = new Map<string, Intl.DateTimeFormat>();

/** Month and weekday names in the viewer's language, computed once: [long months, short months, long days, short days]. */
let names: [string[], string[], string[], string[]] | null = null;
function nameTables(): [string[], string[], string[], string[]] {
  if (!names) {
    const name = (options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(undefined, { ...options, timeZone: 'UTC' });
    const [monthLong, monthShort, dayLong, dayShort] = [name({ month: 'long' }), name({ month: 'short' }), name({ weekday: 'long' }), name({ weekday: 'short' })];
    // 2023-01-01 was a Sunday: month m on day 1 of 2023, weekday w on January 1 + w.
    const months = Array.from({ length: 12 }, (_, m) => new Date(Date.UTC(2023, m, 1)));
    const days = Array.from({ length: 7 }, (_, w) => new Date(Date.UTC(2023, 0, 1 + w)));
    names = [months.map((d) => monthLong.format(d)), months.map((d) => monthShort.format(d)), days.map((d) => dayLong.format(d)), days.map((d) => dayShort.format(d))];
  }
  return names;
}

/** The timezone when the runtime knows it, else undefined (the viewer's own). */
export function knownTimeZone(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  try {
    numericFormatter(value);
    return value;
  } catch {
    return undefined;
  }
}

function numericFormatter(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let found = numericFormatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric', weekday: 'short', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' });
    numericFormatters.set(key, found);
  }
  return found;
}

/** The parts of one second in one timezone, shared by every clock drawing that second there. */
let partsCache: { second: number; byZone: Map<string, Parts> } = { second: NaN, byZone: new Map() };
const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function partsOf(date: Date, timeZone: string | undefined): Parts {
  const second = Math.floor(date.getTime() / 1000);
  if (partsCache.second !== second) partsCache = { second, byZone: new Map() };
  const cached = partsCache.byZone.get(timeZone ?? '');
  if (cached) return cached;
  const values: Record<string, string> = {};
  for (const part of numericFormatter(timeZone).formatToParts(date)) values[part.type] = part.value;
  const parts = {
    year: Number(values.year),
    month: Number(values.month),
    day: Number(values.day),
    weekday: Math.max(0, weekdays.indexOf(values.weekday)),
    hour: Number(values.hour) % 24,
    minute: Number(values.minute),
    second: Number(values.second),
  };
  partsCache.byZone.set(timeZone ?? '', parts);
  return parts;
}

const two = (n: number) => String(n).padStart(2, '0');

/** Formats `date` in `timeZone` with day.js-style tokens (YYYY MMMM MMM MM M DD D dddd ddd HH H hh h mm ss A a, [text] kept). Pure. */
export function formatDate(date: Date, format: string, timeZone: string | undefined): string {
  const p = partsOf(date, timeZone);
  const [months, monthsShort, days, daysShort] = nameTables();
  const [monthLong, monthShort, dayLong, dayShort] = [months[p.month - 1], monthsShort[p.month - 1], days[p.weekday], daysShort[p.weekday]];
  const h12 = p.hour % 12 === 0 ? 12 : p.hour % 12;
  const tokens: Record<string, string> = {
    YYYY: String(p.year), YY: two(p.year % 100), MMMM: monthLong, MMM: monthShort, MM: two(p.month), M: String(p.month),
    DD: two(p.day), D: String(p.day), dddd: dayLong, ddd: dayShort, HH: two(p.hour), H: String(p.hour),
    hh: two(h12), h: String(h12), mm: two(p.minute), ss: two(p.second), A: p.hour < 12 ? 'AM' : 'PM', a: p.hour < 12 ? 'am' : 'pm',
  };
  return format.replace(/\[([^\]]*)]|YYYY|YY|MMMM|MMM|MM|M|DD|D|dddd|ddd|HH|H|hh|h|mm|ss|A|a/g, (match, literal: string | undefined) => literal ?? tokens[match]);
}

/** The clock's formats from its options (the reference's defaults: 24 h, no seconds, date shown as `dddd, MMMM D`). Pure. */
export function clockOptions(options: Record<string, unknown>): ClockOptions {
  const seconds = flag(options, 'showSeconds', false);
  const timeFormat = text(options, 'customTimeFormat').trim() || (flag(options, 'is24HourFormat', true) ? (seconds ? 'HH:mm:ss' : 'HH:mm') : seconds ? 'h:mm:ss A' : 'h:mm A');
  const dateFormat = flag(options, 'showDate', true) ? text(options, 'customDateFormat').trim() || text(options, 'dateFormat', 'dddd, MMMM D') : null;
  return { timeZone: flag(options, 'useCustomTimezone', false) ? knownTimeZone(options.timezone) : undefined, timeFormat, dateFormat };
}
