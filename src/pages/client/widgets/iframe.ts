/** VIEW-1, VIEW-4 `iframe`: the embed URL (http(s), another origin) in a sandboxed frame with the options' permissions. */
import { el } from '../dom';
import { renderPlaceholder } from './placeholder';
import { framePolicy, safeFrameUrl } from './sanitize';
import { flag, type WidgetItem } from './types';

export { framePolicy };

export function renderIframe(item: WidgetItem): HTMLElement[] {
  const url = safeFrameUrl(item.options.embedUrl, location.origin);
  if (!url) return renderPlaceholder(item, 'Only http(s) addresses of another site are embedded.');
  const { sandbox, allow } = framePolicy(item.options);
  const frame = el('iframe', { className: 'embed', src: url.href, sandbox, referrerpolicy: 'no-referrer', title: url.hostname, loading: 'lazy' });
  if (allow) frame.setAttribute('allow', allow);
  if (!flag(item.options, 'allowScrolling', true)) frame.setAttribute('scrolling', 'no');
  return [frame];
}
