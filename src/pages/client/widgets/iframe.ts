/** VIEW-1, VIEW-4 `iframe`: the embed URL (http(s), another origin) in a sandboxed frame with the options' permissions. */
import { el } from '../dom';
import { renderPlaceholder } from './placeholder';
import { safeFrameUrl } from './sanitize';
import { flag, type WidgetItem } from './types';

/** The frame's `sandbox` and `allow` attributes from the item's options. Pure. */
export function framePolicy(options: Record<string, unknown>): { sandbox: string; allow: string } {
  const sandbox = ['allow-scripts', 'allow-same-origin', 'allow-forms', 'allow-popups', 'allow-popups-to-escape-sandbox'];
  if (flag(options, 'allowModals', false)) sandbox.push('allow-modals');
  const allow: string[] = [];
  if (flag(options, 'allowFullScreen', false)) allow.push('fullscreen');
  if (flag(options, 'allowPayment', false)) allow.push('payment');
  if (flag(options, 'allowAutoPlay', false)) allow.push('autoplay');
  if (flag(options, 'allowMicrophone', false)) allow.push('microphone');
  if (flag(options, 'allowCamera', false)) allow.push('camera');
  if (flag(options, 'allowGeolocation', false)) allow.push('geolocation');
  return { sandbox: sandbox.join(' '), allow: allow.join('; ') };
}

export function renderIframe(item: WidgetItem): HTMLElement[] {
  const url = safeFrameUrl(item.options.embedUrl);
  if (!url) return renderPlaceholder(item, 'Only http(s) addresses of another site are embedded.');
  const { sandbox, allow } = framePolicy(item.options);
  const frame = el('iframe', { className: 'embed', src: url.href, sandbox, referrerpolicy: 'no-referrer', title: url.hostname, loading: 'lazy' });
  if (allow) frame.setAttribute('allow', allow);
  if (!flag(item.options, 'allowScrolling', true)) frame.setAttribute('scrolling', 'no');
  return [frame];
}
