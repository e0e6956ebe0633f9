/** CAL-1..CAL-5: the `calendar` widget's live data, from `ical` integrations (other calendar sources are not read yet). */
import { fetchCalendar, type CalendarData, type CalendarWindow } from '../../../integrations/clients/ical';
import { ServiceError } from '../../../integrations/clients/types';
import type { LiveKind, WidgetOptions } from '../types';

/** CAL-4: the months before and after now the calendar shows (the options' defaults, and the most it expands). */
export const defaultMonths = 2;
export const maxMonths = 120;

function months(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return defaultMonths;
  return Math.min(maxMonths, Math.max(1, Math.floor(value)));
}

/** CAL-4: the window of `filterPastMonths` before and `filterFutureMonths` after `now`. Pure. */
export function calendarWindow(query: Record<string, unknown>, now: Date): CalendarWindow {
  const start = new Date(now);
  start.setUTCMonth(start.getUTCMonth() - months(query.pastMonths));
  const end = new Date(now);
  end.setUTCMonth(end.getUTCMonth() + months(query.futureMonths));
  return { start, end };
}

export const calendarKind: LiveKind<CalendarData> = {
  widgetKind: 'calendar',
  ttlMs: 5 * 60_000,
  integrationKinds: ['sonarr', 'radarr', 'lidarr', 'readarr', 'homeAssistant', 'nextcloud', 'ical', 'mock'],
  query: (options: WidgetOptions) => ({ pastMonths: months(options.filterPastMonths), futureMonths: months(options.filterFutureMonths) }),
  async fromIntegration(ctx, integration, query) {
    // CAL-5: only iCal is read so far; the others answer so rather than showing an empty calendar.
    if (integration.kind !== 'ical') throw new ServiceError('failed', `calendar data from ${integration.kind} integrations is not supported yet (only ical)`);
    return fetchCalendar(ctx, integration.target, calendarWindow(query, ctx.now()));
  },
};
