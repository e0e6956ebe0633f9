/**
 * The page's one place for markup and addresses that come from a board (VIEW-3, VIEW-5): every other string is set
 * as text. Markdown goes through DOMPurify (no script, no event handler, no style, no form, no frame, no link or image
 * that is not http(s), mailto or relative); links, images and frames are checked here before they are set.
 */
import DOMPurify from 'dompurify';

const scheme = /^([a-z][a-z0-9+.-]*):/i;

/** A link target: an absolute http(s) URL or a relative one (no scheme at all), else null. */
export function safeLink(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '' || /[\u0000-\u001f\u007f\s]/.test(value.trim())) return null;
  const url = value.trim();
  const found = scheme.exec(url);
  if (!found) return url.startsWith('//') ? null : url;
  return found[1].toLowerCase() === 'http' || found[1].toLowerCase() === 'https' ? url : null;
}

/** An image address: what safeLink allows, or a `data:image/` URL (APP-6). */
export function safeImage(value: unknown): string | null {
  if (typeof value === 'string' && /^data:image\//i.test(value.trim()) && !/^data:image\/svg/i.test(value.trim())) return value.trim();
  return safeLink(value);
}

/** VIEW-4: a frame address: an absolute http(s) URL on another origin than the page's (never this instance). */
export function safeFrameUrl(value: unknown): URL | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin === location.origin ? null : url;
  } catch {
    return null;
  }
}

let configured = false;

/** DOMPurify set up once (a configuration passed on every call is parsed again on every call). */
function configure(): void {
  configured = true;
  DOMPurify.setConfig({
    RETURN_DOM_FRAGMENT: true,
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'option', 'iframe', 'frame', 'object', 'embed', 'link', 'meta', 'base', 'svg', 'math', 'template'],
    FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'xlink:href'],
    ALLOW_DATA_ATTR: false,
  });
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href');
      if (href !== null && !/^mailto:/i.test(href) && safeLink(href) === null) node.removeAttribute('href');
      node.setAttribute('rel', 'noopener noreferrer');
      node.setAttribute('target', '_blank');
    }
    if (node.tagName === 'IMG') {
      const src = node.getAttribute('src');
      if (src !== null && safeImage(src) === null) node.removeAttribute('src');
      node.setAttribute('referrerpolicy', 'no-referrer');
    }
  });
}

/** VIEW-3: HTML made from markdown, as inert elements. */
export function sanitizeHtml(html: string): DocumentFragment {
  if (!configured) configure();
  return DOMPurify.sanitize(html, { RETURN_DOM_FRAGMENT: true }) as unknown as DocumentFragment;
}
