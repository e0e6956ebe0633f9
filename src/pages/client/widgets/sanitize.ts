/**
 * The page's checks of addresses that come from a board (VIEW-1, VIEW-3, VIEW-4): links, images and frames are
 * checked here before they are set. Markup is made only in markdown.ts, which uses these checks too; every other
 * string is set as text.
 */

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
