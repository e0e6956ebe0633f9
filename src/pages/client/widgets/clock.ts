/**
 * VIEW-1 `clock`: the time in the item's timezone (or the viewer's), 12/24 h, seconds, date format, custom title.
 * One timer for the whole page redraws every clock on it once a second.
 */
import { el } from '../dom';
import { clockOptions, formatDate, type ClockOptions } from './clockFormat';
import { flag, text, type WidgetItem } from './types';

const faces = new WeakMap<HTMLElement, ClockOptions>();
let timer: number | undefined;

function draw(face: HTMLElement, options: ClockOptions, now: Date): void {
  const time = face.querySelector('.clock-time')!;
  const date = face.querySelector('.clock-date');
  const shown = formatDate(now, options.timeFormat, options.timeZone);
  if (time.textContent !== shown) time.textContent = shown;
  if (date && options.dateFormat) date.textContent = formatDate(now, options.dateFormat, options.timeZone);
}

function tick(): void {
  const now = new Date();
  for (const face of Array.from(document.querySelectorAll<HTMLElement>('.clock-face'))) {
    const options = faces.get(face);
    if (options) draw(face, options, now);
  }
}

export function renderClock(item: WidgetItem): HTMLElement[] {
  const options = clockOptions(item.options);
  const title = flag(item.options, 'customTitleToggle', false) ? text(item.options, 'customTitle').trim() : '';
  const face = el('div', { className: 'clock-face' }, [el('span', { className: 'clock-time' }), ...(options.dateFormat ? [el('span', { className: 'clock-date' })] : [])]);
  if (options.timeZone) face.dataset.timeZone = options.timeZone;
  faces.set(face, options);
  draw(face, options, new Date());
  timer ??= window.setInterval(tick, 1000);
  return [...(title ? [el('span', { className: 'widget-title', text: title })] : []), face];
}
