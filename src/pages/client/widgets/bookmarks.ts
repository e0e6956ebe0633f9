/** VIEW-1 `bookmarks`: the listed apps as links with icons, in a row, a column or a grid, with the widget's title. */
import { el } from '../dom';
import { appIcon, appLink } from './app';
import { safeLink } from './sanitize';
import { flag, text, type WidgetContext, type WidgetItem } from './types';

function hostname(href: string | null): string {
  const link = safeLink(href);
  if (!link) return '';
  try {
    return new URL(link).hostname;
  } catch {
    return '';
  }
}

export function renderBookmarks(item: WidgetItem, ctx: WidgetContext): HTMLElement[] {
  const o = item.options;
  const layout = text(o, 'layout', 'column');
  const ids = Array.isArray(o.items) ? o.items.filter((id): id is string => typeof id === 'string') : [];
  const links = ids.flatMap((id) => {
    const app = ctx.apps.get(id);
    // VIEW-2: an app the viewer may not read (or one deleted) shows as "not available", never by its name.
    if (!app) return [el('div', { className: 'bookmark unavailable', text: 'Not available' })];
    const host = flag(o, 'hideHostname', false) ? '' : hostname(app.href);
    const parts = [
      ...(flag(o, 'hideIcon', false) ? [] : [appIcon(app, 'icon small')]),
      el('span', { className: 'bookmark-name', text: app.name }),
      ...(host ? [el('span', { className: 'bookmark-host', text: host })] : []),
    ];
    const link = appLink(app.href, flag(o, 'openNewTab', true), 'bookmark', parts);
    link.dataset.appId = app.id; // SEARCH-2
    return [link];
  });
  const title = text(o, 'title').trim();
  const list = el('div', { className: `bookmarks layout-${['row', 'grid', 'gridHorizontal'].includes(layout) ? layout : 'column'}${flag(o, 'withBorder', false) ? ' bordered' : ''}` }, links);
  return [
    ...(title && !flag(o, 'hideTitle', false) ? [el('span', { className: 'widget-title', text: title })] : []),
    links.length ? list : el('span', { className: 'placeholder-note', text: 'No bookmarks.' }),
  ];
}
