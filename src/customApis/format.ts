/**
 * CAPI-5: the formats a custom API field is shown in. The server passes each picked value raw with its format and label;
 * the page formats it with `formatFieldValue` (pure, no locale of the server), always as text.
 * - `number`: a finite number with thousands separated by a thin space, at most 2 decimals;
 * - `percent`: the number as is (42.5 is 42.5 %), 1 decimal;
 * - `bytes`: binary units (B, KiB, MiB, GiB, TiB, PiB), 1 decimal past B;
 * - `duration`: a number of seconds as its two largest units (`1 d 2 h`, `3 min 20 s`, `45 s`);
 * - `date`: an ISO 8601 date-time or a Unix time in seconds, shown as `YYYY-MM-DD HH:MM` UTC;
 * - `relativeDate`: the same input, shown against `now` (`5 min ago`, `in 2 h`);
 * - `text`: the value as a string (a number or boolean written out).
 * A value the format cannot read (text where a number is wanted, an unreadable date) is shown as text; null as `–`.
 */
export const fieldFormats = ['number', 'percent', 'bytes', 'duration', 'date', 'relativeDate', 'text'] as const;
export type FieldFormat = (typeof fieldFormats)[number];

export type FieldValue = string | number | boolean | null | readonly (string | number | boolean | null)[];

const asNumber = (value: unknown): number | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
};

function grouped(value: number, decimals: number): string {
  const fixed = String(Number(Math.abs(value).toFixed(decimals)));
  if (fixed.includes('e')) return String(value);
  const [whole, fraction] = fixed.split('.');
  return `${value < 0 ? '-' : ''}${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009')}${fraction ? `.${fraction}` : ''}`;
}

export function asDate(value: unknown): Date | null {
  const seconds = asNumber(value);
  const date = seconds !== null ? new Date(seconds * 1000) : typeof value === 'string' ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date : null;
}

const byteUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
const durationUnits: [string, number][] = [['d', 86_400], ['h', 3_600], ['min', 60], ['s', 1]];

function durationText(totalSeconds: number): string {
  let rest = Math.round(Math.abs(totalSeconds));
  const parts: string[] = [];
  for (const [unit, size] of durationUnits) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || (parts.length === 0 && unit === 's')) parts.push(`${count} ${unit}`);
    if (parts.length === 2) break;
  }
  return `${totalSeconds < 0 ? '-' : ''}${parts.slice(0, 2).join(' ')}`;
}

/** CAPI-5: one picked value (a list's entries each) as the text the page shows. */
export function formatFieldValue(value: FieldValue, format: FieldFormat, now: Date): string {
  if (Array.isArray(value)) return value.map((one) => formatFieldValue(one, format, now)).join(', ');
  if (value === null) return '–';
  const single = value as string | number | boolean;
  const number = asNumber(single);
  switch (format) {
    case 'number':
      return number === null ? String(single) : grouped(number, 2);
    case 'percent':
      return number === null ? String(single) : `${grouped(number, 1)} %`;
    case 'bytes': {
      if (number === null) return String(single);
      let size = Math.abs(number);
      let unit = 0;
      while (size >= 1024 && unit < byteUnits.length - 1) {
        size /= 1024;
        unit++;
      }
      return `${number < 0 ? '-' : ''}${unit === 0 ? size : size.toFixed(1)} ${byteUnits[unit]}`;
    }
    case 'duration':
      return number === null ? String(single) : durationText(number);
    case 'date': {
      const date = asDate(single);
      return date ? date.toISOString().slice(0, 16).replace('T', ' ') : String(single);
    }
    case 'relativeDate': {
      const date = asDate(single);
      if (!date) return String(single);
      const seconds = (date.getTime() - now.getTime()) / 1000;
      if (Math.abs(seconds) < 1) return 'now';
      return seconds < 0 ? `${durationText(-seconds)} ago` : `in ${durationText(seconds)}`;
    }
    default:
      return String(single);
  }
}
