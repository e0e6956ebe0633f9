/**
 * LIVEVIEW-4: how the page writes live values: units, temperatures, speeds, durations and dates, as text. Pure (no
 * DOM; `now` and the time zone are given), tested in Node (test/pages/live-rules.test.ts).
 */

const binaryUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/** Bytes in binary units, one decimal from KiB on: `1536` → "1.5 KiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '–';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < binaryUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${binaryUnits[unit]}`;
}

/** A transfer rate: bytes per second in binary units. */
export const formatSpeed = (bytesPerSecond: number): string => `${formatBytes(bytesPerSecond)}/s`;

/** A percentage as given (not a fraction): one decimal below 10, whole above. */
export function formatPercent(percent: number): string {
  if (!Number.isFinite(percent)) return '–';
  return `${percent < 10 && percent !== Math.round(percent) ? percent.toFixed(1) : Math.round(percent)}%`;
}

/** A number grouped, at most two decimals. */
export const formatNumber = (value: number): string => (Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: 2 }) : '–');

/** Seconds as the two largest units: `3725` → "1 h 2 min", `42` → "42 s", `90061` → "1 d 1 h". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  const units: [string, number][] = [['d', 86_400], ['h', 3_600], ['min', 60], ['s', 1]];
  const parts: string[] = [];
  let left = Math.floor(seconds);
  for (const [name, size] of units) {
    const count = Math.floor(left / size);
    left -= count * size;
    if (count > 0 || (parts.length === 0 && size === 1)) parts.push(`${count} ${name}`);
    if (parts.length === 2) break;
  }
  // a larger unit followed by nothing in the next one reads better alone ("2 h", not "2 h 0 min")
  return parts.join(' ');
}

/** °C as the viewer asked: Fahrenheit when `fahrenheit`, no decimals when `whole`. */
export function formatTemperature(celsius: number, fahrenheit: boolean, whole = false): string {
  const value = fahrenheit ? (celsius * 9) / 5 + 32 : celsius;
  return `${whole ? Math.round(value) : value.toFixed(1)} °${fahrenheit ? 'F' : 'C'}`;
}

/** Wind speed from km/h: mph when `imperial`. */
export const formatWind = (kmh: number, imperial: boolean): string => (imperial ? `${Math.round(kmh / 1.609344)} mph` : `${Math.round(kmh)} km/h`);

/** A date or date-time from ISO 8601 text or Unix seconds, or null when it is neither. */
export function parseWhen(value: unknown): Date | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value * 1000);
  if (typeof value !== 'string' || value.trim() === '') return null;
  // an all-day date ("2026-12-24") is that day where the viewer is, not midnight UTC
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  const date = day ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])) : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** How long ago or ahead `when` is from `now`, in the largest whole unit: "3 min ago", "in 2 days", "just now". */
export function formatRelative(when: Date, now: Date): string {
  const seconds = Math.round((when.getTime() - now.getTime()) / 1000);
  const size = Math.abs(seconds);
  if (size < 45) return 'just now';
  const units: [string, number][] = [['year', 31_536_000], ['month', 2_592_000], ['day', 86_400], ['hour', 3_600], ['min', 60]];
  const [name, length] = units.find(([, length]) => size >= length) ?? ['min', 60];
  const count = Math.max(1, Math.round(size / length));
  const label = name === 'min' ? 'min' : `${name}${count === 1 ? '' : 's'}`;
  return seconds < 0 ? `${count} ${label} ago` : `in ${count} ${label}`;
}

/** The ETA of a download: "–" when unknown (null), else a duration. */
export const formatEta = (seconds: number | null): string => (seconds === null ? '–' : formatDuration(seconds));

/** A ratio with two decimals, or "–". */
export const formatRatio = (ratio: number | null): string => (ratio === null || !Number.isFinite(ratio) ? '–' : ratio.toFixed(2));

/** A value a custom API picked, formatted as its definition says (CAPI-5); lists joined, null as "–". */
export function formatPicked(value: unknown, format: string, now: Date): string {
  if (Array.isArray(value)) return value.map((entry) => formatPicked(entry, format, now)).join(', ');
  if (value === null || value === undefined) return '–';
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  switch (format) {
    case 'number':
      return Number.isFinite(number) ? formatNumber(number) : String(value);
    case 'percent':
      return Number.isFinite(number) ? `${formatNumber(number)}%` : String(value);
    case 'bytes':
      return Number.isFinite(number) ? formatBytes(number) : String(value);
    case 'duration':
      return Number.isFinite(number) ? formatDuration(number) : String(value);
    case 'date':
    case 'relativeDate': {
      const when = parseWhen(value);
      if (!when) return String(value);
      return format === 'date' ? when.toLocaleString() : formatRelative(when, now);
    }
    default:
      return String(value);
  }
}
