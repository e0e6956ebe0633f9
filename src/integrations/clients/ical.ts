/**
 * CAL-1..CAL-4: the iCal client. Fetches one iCalendar document (a `.ics` URL, a CalDAV collection such as Radicale's,
 * a `webcal:` link) with the integration's optional username/password as HTTP basic auth, and parses it with ical.js,
 * expanding recurring events within the window asked.
 */
import ICAL from 'ical.js';
import type { ClientContext, IntegrationTarget } from './types';
import { ServiceError } from './types';
import { httpUrl, plainTextOf } from './text';

export interface CalendarWindow {
  start: Date;
  end: Date;
}

export interface CalendarEvent {
  title: string;
  /** ISO date-time (UTC) for a timed event, `YYYY-MM-DD` for an all-day one. */
  start: string;
  /** Exclusive end, in the same form as `start`. */
  end: string;
  allDay: boolean;
  location: string | null;
  description: string | null;
  url: string | null;
}

export interface CalendarData {
  events: CalendarEvent[];
  /** Whether events were left out past the caps (CAL-3). */
  truncated: boolean;
}

/**
 * CAL-3: bounds on what one calendar may cost: events passed on, and occurrences stepped through per recurring event
 * (from its first: a daily event begun 50 years ago still reaches today).
 */
export const maxEvents = 500;
export const maxOccurrencesPerEvent = 20_000;

function basicAuth(target: IntegrationTarget): Record<string, string> {
  const { username, password } = target.secrets;
  if (username === undefined && password === undefined) return {};
  return { authorization: `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`, 'utf8').toString('base64')}` };
}

/** CAL-1: `webcal://` is https by convention; everything else is fetched as given (http(s) only, OUT-1). */
export function calendarUrl(url: string): string {
  return url.replace(/^webcals?:\/\//i, 'https://');
}

export async function fetchCalendar(ctx: ClientContext, target: IntegrationTarget, window: CalendarWindow): Promise<CalendarData> {
  const answer = await ctx.fetch(calendarUrl(target.url), {
    headers: { accept: 'text/calendar, */*;q=0.5', ...basicAuth(target) },
    timeoutMs: ctx.timeoutMs,
    maxBytes: ctx.maxBytes,
  });
  if (answer.status === 401 || answer.status === 403) {
    throw new ServiceError('unauthorized', `the calendar server refused access (HTTP ${answer.status}): check the username and password`);
  }
  if (answer.status < 200 || answer.status > 299) throw new ServiceError('failed', `the calendar server answered HTTP ${answer.status}`);
  return eventsFromIcs(answer.text, window);
}

function isoOf(time: ICAL.Time): string {
  return time.isDate ? time.toString() : time.toJSDate().toISOString();
}

function text(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const shown = plainTextOf(value, max);
  return shown === '' ? null : shown;
}

function eventOf(event: ICAL.Event, start: ICAL.Time, end: ICAL.Time): CalendarEvent {
  const url = event.component.getFirstPropertyValue('url');
  return {
    title: text(event.summary, 300) ?? '',
    start: isoOf(start),
    end: isoOf(end),
    allDay: start.isDate,
    location: text(event.location, 300),
    description: text(event.description, 2000),
    url: typeof url === 'string' ? httpUrl(url) : null,
  };
}

const overlaps = (start: ICAL.Time, end: ICAL.Time, window: CalendarWindow) =>
  end.toJSDate() > window.start && start.toJSDate() < window.end;

/**
 * CAL-2: the events of an iCalendar document that overlap `window`, recurring ones expanded (their exceptions by
 * RECURRENCE-ID applied, EXDATEs left out), sorted by start. Pure: unit-tested.
 */
export function eventsFromIcs(ics: string, window: CalendarWindow): CalendarData {
  let root: ICAL.Component;
  try {
    const parsed = ICAL.parse(ics);
    // A document of several VCALENDARs (some servers concatenate) parses to a list.
    const first = Array.isArray(parsed) && Array.isArray(parsed[0]) ? parsed[0] : parsed;
    root = new ICAL.Component(first as unknown as unknown[]);
  } catch {
    throw new ServiceError('bad-answer', 'the answer is not an iCalendar document');
  }
  if (root.name !== 'vcalendar') throw new ServiceError('bad-answer', 'the answer is not an iCalendar document (no VCALENDAR)');
  // A TZID is resolved from the document's own VTIMEZONEs (ical.js does so per document); nothing is registered in
  // ical.js's process-wide TimezoneService, where one calendar's definition would change another's times. A TZID the
  // document does not define leaves the time floating: read in the server's time zone.
  const vevents = root.getAllSubcomponents('vevent');
  const masters = new Map<string, ICAL.Event>();
  const exceptions: ICAL.Event[] = [];
  const singles: ICAL.Event[] = [];
  for (const component of vevents) {
    let event: ICAL.Event;
    try {
      event = new ICAL.Event(component);
    } catch {
      continue;
    }
    if (!event.startDate) continue;
    if (event.isRecurrenceException()) exceptions.push(event);
    else if (event.isRecurring()) masters.set(event.uid, event);
    else singles.push(event);
  }
  for (const exception of exceptions) {
    const master = masters.get(exception.uid);
    if (master) master.relateException(exception);
    else singles.push(exception);
  }

  const events: CalendarEvent[] = [];
  let truncated = false;
  for (const event of singles) {
    if (overlaps(event.startDate, event.endDate, window)) events.push(eventOf(event, event.startDate, event.endDate));
  }
  for (const master of masters.values()) {
    const iterator = master.iterator();
    const durationMs = master.endDate.toJSDate().getTime() - master.startDate.toJSDate().getTime();
    for (let seen = 0; ; seen++) {
      if (seen >= maxOccurrencesPerEvent) {
        truncated = true;
        break;
      }
      let next: ICAL.Time | undefined;
      try {
        next = iterator.next() ?? undefined;
      } catch {
        break;
      }
      if (!next) break;
      const startsAt = next.toJSDate();
      if (startsAt >= window.end) break;
      // Cheap skip of the occurrences long before the window, unless an exception (RECURRENCE-ID) moves one.
      if (startsAt.getTime() + durationMs <= window.start.getTime() && !(master.exceptions as unknown as Record<string, unknown>)[next.toString()]) continue;
      const details = master.getOccurrenceDetails(next);
      if (overlaps(details.startDate, details.endDate, window)) events.push(eventOf(details.item, details.startDate, details.endDate));
      if (events.length > maxEvents * 2) {
        truncated = true;
        break;
      }
    }
  }
  events.sort((a, b) => Date.parse(a.start) - Date.parse(b.start) || a.title.localeCompare(b.title));
  if (events.length > maxEvents) {
    truncated = true;
    events.length = maxEvents;
  }
  return { events, truncated };
}
