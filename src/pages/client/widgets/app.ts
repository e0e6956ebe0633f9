/** VIEW-1 `app`: the app's icon (a letter badge when the image fails), name, description, link and ping dot. */
import { el } from '../dom';
import { safeIcon, safeLink } from './sanitize';
import { flag, text, type AppStatusView, type AppView, type WidgetContext, type WidgetItem } from './types';

/** A letter badge: the first letter of the name, set as text. */
export function letterBadge(name: string, className = 'icon'): HTMLElement {
  return el('span', { className: `${className} letter`, text: (name.trim()[0] ?? '?').toUpperCase(), ariaLabel: name, role: 'img' }); // A11Y-2
}

/** An app's icon; replaced by its letter badge when the image does not load (missing, refused by the CSP, broken). */
export function appIcon(app: AppView, className = 'icon'): HTMLElement {
  const src = safeIcon(app.iconUrl);
  if (!src) return letterBadge(app.name, className);
  const image = el('img', { className, src, alt: '', referrerpolicy: 'no-referrer', draggable: 'false' }) as HTMLImageElement;
  image.addEventListener('error', () => image.replaceWith(letterBadge(app.name, className)), { once: true });
  return image;
}

/** PING-5: the label; PING-7: an anonymous viewer is told no status code (null), so the label has none then. */
const stateLabel = (status: AppStatusView | undefined) =>
  !status || status.state === 'unknown'
    ? 'Not checked yet'
    : `${status.state === 'up' ? 'Up' : 'Down'}${status.httpStatus === null ? '' : ` (HTTP ${status.httpStatus})`}`;

/** PING-5: the dot shows the server's last check; `updatePingDots` redraws the dots in place when statuses arrive. */
function pingDot(appId: string, status: AppStatusView | undefined): HTMLElement {
  const label = stateLabel(status);
  return el('span', { className: 'ping', role: 'img', dataset: { appId, state: status?.state ?? 'unknown' }, title: label, ariaLabel: label }); // A11Y-2
}

export function updatePingDots(statuses: Map<string, AppStatusView>): void {
  for (const dot of Array.from(document.querySelectorAll<HTMLElement>('.ping[data-app-id]'))) {
    const status = statuses.get(dot.dataset.appId!);
    const label = stateLabel(status);
    dot.dataset.state = status?.state ?? 'unknown';
    dot.title = label;
    dot.setAttribute('aria-label', label);
  }
}

/** A link to `href` (http(s) or relative only), in a new tab when asked; a plain box when there is no usable link. */
export function appLink(href: string | null, newTab: boolean, className: string, children: HTMLElement[]): HTMLElement {
  const target = safeLink(href);
  if (!target) return el('div', { className }, children);
  return el('a', { className, href: target, ...(newTab ? { target: '_blank', rel: 'noopener noreferrer' } : {}) }, children);
}

export function renderApp(item: WidgetItem, ctx: WidgetContext): HTMLElement[] {
  const appId = text(item.options, 'appId');
  const app = ctx.apps.get(appId);
  if (!app) return [el('span', { className: 'widget-title', text: 'App' }), el('span', { className: 'placeholder-note', text: 'This app is not available to you.' })];
  const mode = text(item.options, 'descriptionDisplayMode', 'hidden');
  const layout = text(item.options, 'layout', 'column');
  // PAGE-11: name and description in one box beside or under the icon; the style sheet wraps the name and clamps the
  // description to whole lines ending in an ellipsis.
  const words: HTMLElement[] = [];
  if (flag(item.options, 'showTitle', true)) words.push(el('span', { className: 'app-name', text: app.name }));
  if (mode === 'normal' && app.description) words.push(el('span', { className: 'app-description', text: app.description }));
  const parts: HTMLElement[] = [appIcon(app), ...(words.length ? [el('span', { className: 'app-text' }, words)] : [])];
  const link = appLink(app.href, flag(item.options, 'openInNewTab', true), `app-link layout-${['row', 'row-reverse', 'column-reverse'].includes(layout) ? layout : 'column'}`, parts);
  // A11Y-2: a link showing the name is named by what it shows; an icon alone is named by the app's name.
  if (!flag(item.options, 'showTitle', true)) link.setAttribute('aria-label', app.name);
  link.dataset.appId = app.id; // SEARCH-2
  if (mode === 'tooltip' && app.description) link.title = app.description;
  return flag(item.options, 'pingEnabled', false) ? [link, pingDot(app.id, ctx.statuses.get(app.id))] : [link];
}
