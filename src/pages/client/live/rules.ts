/**
 * The live views' rules that need no DOM (LIVEVIEW-6, LIVEVIEW-7): which download columns are drawn, which calendar
 * events are listed under which day. Pure, tested in Node (test/pages/live-rules.test.ts).
 */
import type { components } from '../../../../generated/api';
import { parseWhen } from './format';

type CalendarEvent = components['schemas']['CalendarData']['events'][number];

/** The download columns the page knows, and Homarr's default set, used when the options name none of them. */
export const downloadColumnNames = ['integration', 'name', 'progress', 'state', 'time', 'downSpeed', 'upSpeed', 'size', 'received', 'ratio', 'category', 'type', 'id', 'actions'] as const;
export const defaultDownloadColumns = ['integration', 'name', 'progress', 'time', 'actions'];

/** LIVEVIEW-6: the columns to draw: the options' known ones in their order, once each, else the default set. */
export function downloadColumns(option: unknown): string[] {
  const known: readonly string[] = downloadColumnNames;
  const named = Array.isArray(option) ? option.filter((name): name is string => typeof name === 'string' && known.includes(name)) : [];
  return named.length > 0 ? [...new Set(named)] : defaultDownloadColumns;
}

/** The most events the tile lists. */
const shownEvents = 50;

/** LIVEVIEW-7: the events not over at `now`, sorted by start, at most `limit`. Pure. */
export function comingEvents(events: CalendarEvent[], now: Date, limit = shownEvents): { event: CalendarEvent; start: Date }[] {
  return events
    .map((event) => ({ event, start: parseWhen(event.start), end: parseWhen(event.end) }))
    .filter((entry): entry is { event: CalendarEvent; start: Date; end: Date | null } => entry.start !== null && (entry.end ?? entry.start).getTime() > now.getTime())
    .sort((a, b) => a.start.getTime() - b.start.getTime())
    .slice(0, limit)
    .map(({ event, start }) => ({ event, start }));
}

/** LIVEVIEW-7: "Today", "Tomorrow" or the date, for the day of `start` seen from `now` (the viewer's time zone). Pure. */
export function dayLabel(start: Date, now: Date): string {
  const day = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
  const days = Math.round((day(start) - day(now)) / 86_400_000);
  if (days <= 0) return 'Today';
  if (days === 1) return 'Tomorrow';
  return start.toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long' });
}

