/**
 * VIEW-1, LIVEVIEW-1: the live widget kinds: the kind's title over a body the live controller fills from the widget
 * request path and refreshes (src/pages/client/live/).
 */
import { el } from '../dom';
import { liveBody } from '../live/controller';
import { clockWeatherView, liveViews } from '../live/views';
import { renderClock } from './clock';
import { kindTitle } from './titles';
import { flag, type WidgetContext, type WidgetItem } from './types';

/** The kinds drawn from live data. */
export const liveKinds = Object.keys(liveViews);

export function renderLive(item: WidgetItem, ctx: WidgetContext): HTMLElement[] {
  return [el('span', { className: 'widget-title', text: kindTitle(item.kind) }), liveBody(ctx.boardId, item, liveViews[item.kind])];
}

/** `clock`, with the weather at its location under the time when `showWeather` (WX-5). */
export function renderClockWithWeather(item: WidgetItem, ctx: WidgetContext): HTMLElement[] {
  const clock = renderClock(item);
  return flag(item.options, 'showWeather', false) ? [...clock, liveBody(ctx.boardId, item, clockWeatherView)] : clock;
}
