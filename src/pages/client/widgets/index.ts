/**
 * The widget renderers of the board page (VIEW-1): one module per kind the page draws (the live kinds: live.ts), a placeholder for every other
 * kind (VIEW-6). Each returns the tile's content; every board string is set as text, markup only through sanitize.ts.
 */
import { renderApp } from './app';
import { renderBookmarks } from './bookmarks';
import { renderIframe } from './iframe';
import { liveKinds, renderClockWithWeather, renderLive } from './live';
import { renderNotebook } from './notebook';
import { kindTitle, renderPlaceholder } from './placeholder';
import type { WidgetContext, WidgetItem } from './types';

export type { AppStatusView, AppView, WidgetContext } from './types';
export { updatePingDots } from './app';
export { loadRenderer as preloadMarkdown } from './notebook';

const renderers: Record<string, (item: WidgetItem, ctx: WidgetContext) => HTMLElement[]> = {
  app: renderApp,
  bookmarks: renderBookmarks,
  clock: renderClockWithWeather,
  notebook: renderNotebook,
  iframe: renderIframe,
  ...Object.fromEntries(liveKinds.map((kind) => [kind, renderLive])),
};

export function renderWidget(item: WidgetItem, ctx: WidgetContext): HTMLElement[] {
  const render = renderers[item.kind];
  return render ? render(item, ctx) : renderPlaceholder(item);
}

/** A tile's accessible label: the kind's title, never its bare name. */
export const widgetLabel = (kind: string) => kindTitle(kind);
