/**
 * VIEW-1, VIEW-4 `iframe`: the embed URL (http(s), another origin) in a sandboxed frame with the options' permissions.
 * VIEW-7: the frame goes into the page only once its tile comes near the window. Chromium builds a frame when it is
 * inserted, whether or not `loading="lazy"` holds back its request (about 8 ms each on the development machine): on a
 * board with many embeds that was most of the first drawing, for frames nobody could see yet.
 */
import { el } from '../dom';
import { renderPlaceholder } from './placeholder';
import { framePolicy, safeFrameUrl } from './sanitize';
import { flag, type WidgetItem } from './types';

export { framePolicy };

/** Each waiting slot's frame, inserted in place of the slot when the slot comes within a screen of the window. */
const frames = new Map<Element, HTMLElement>();
let observer: IntersectionObserver | undefined;

function insertNear(entries: IntersectionObserverEntry[]): void {
  for (const entry of entries) {
    const frame = entry.isIntersecting ? frames.get(entry.target) : undefined;
    if (!frame) continue;
    observer!.unobserve(entry.target);
    frames.delete(entry.target);
    entry.target.replaceWith(frame);
  }
  // Slots a redraw took out of the page are not waited for any more (the observer calls this once for every new slot).
  for (const slot of frames.keys()) {
    if (slot.isConnected) continue;
    observer!.unobserve(slot);
    frames.delete(slot);
  }
}

export function renderIframe(item: WidgetItem): HTMLElement[] {
  const url = safeFrameUrl(item.options.embedUrl, location.origin);
  if (!url) return renderPlaceholder(item, 'Only http(s) addresses of another site are embedded.');
  const { sandbox, allow } = framePolicy(item.options);
  const frame = el('iframe', { className: 'embed', src: url.href, sandbox, referrerpolicy: 'no-referrer', title: url.hostname, loading: 'lazy' });
  if (allow) frame.setAttribute('allow', allow);
  if (!flag(item.options, 'allowScrolling', true)) frame.setAttribute('scrolling', 'no');
  // The slot takes the frame's place in the tile (same class, same size) until then.
  const slot = el('div', { className: 'embed embed-slot' });
  frames.set(slot, frame);
  observer ??= new IntersectionObserver(insertNear, { rootMargin: '100% 0px' });
  observer.observe(slot);
  return [slot];
}
