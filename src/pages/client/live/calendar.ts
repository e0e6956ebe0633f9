/**
 * LIVEVIEW-7 `calendar`: the coming events of every bound iCal integration, merged and grouped by day ("Today",
 * "Tomorrow", then the date), each with its time or "All day", title (a link when it has an http(s) URL) and place.
 */
import type { components } from '../../../../generated/api';
import { el } from '../dom';
import { safeLink } from '../widgets/sanitize';
import type { LiveView } from './controller';
import { resultError } from './parts';
import { comingEvents, dayLabel } from './rules';

type Calendar = components['schemas']['CalendarData'];

export const calendarView: LiveView = {
  empty: () => 'No calendar bound: bind an iCal integration to this widget.',
  draw: (results) => {
    const now = new Date();
    const errors = results.filter((result) => result.status === 'error' || result.data === null);
    const events = results.flatMap((result) => (result.status === 'ok' && result.data !== null ? (result.data as Calendar).events : []));
    const coming = comingEvents(events, now);
    const list: HTMLElement[] = [];
    let heading = '';
    for (const { event, start } of coming) {
      const label = dayLabel(start, now);
      if (label !== heading) {
        heading = label;
        list.push(el('li', { className: 'live-day', text: label }));
      }
      const href = safeLink(event.url);
      const title = href ? el('a', { href, text: event.title, target: '_blank', rel: 'noopener noreferrer' }) : el('span', { text: event.title });
      const when = event.allDay ? 'All day' : start.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
      list.push(
        el('li', { className: 'live-event' }, [
          el('span', { className: 'live-when', text: when }),
          el('span', { className: 'live-what' }, [title, ...(event.location ? [el('span', { className: 'live-where', text: event.location })] : [])]),
        ]),
      );
    }
    return [
      ...errors.map(resultError),
      coming.length > 0 ? el('ul', { className: 'live-events' }, list) : el('p', { className: 'live-state', text: 'No coming events.' }),
    ];
  },
};
