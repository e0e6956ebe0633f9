/**
 * The page's checks of addresses that come from a board (VIEW-1, VIEW-3, VIEW-4): links, images and frames are
 * checked here before they are set, and a frame's sandbox is decided here. Pure (no DOM). Markup is made only in
 * markdown.ts, which uses these checks too; every other string is set as text.
 */
import { flag } from './types';

const scheme = /^([a-z][a-z0-9+.-]*):/i;

/** A link target: an absolute http(s) URL or a relative one (no scheme at all), else null. */
export function safeLink(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '' || /[\u0000-\u001f\u007f\s]/.test(value.trim())) return null;
  const url = value.trim();
  const found = scheme.exec(url);
  if (!found) return url.startsWith('//') ? null : url;
  return found[1].toLowerCase() === 'http' || found[1].toLowerCase() === 'https' ? url : null;
}

/** An image address in markdown (VIEW-3): what safeLink allows, or a `data:image/` URL that is not SVG. */
export function safeImage(value: unknown): string | null {
  if (typeof value === 'string' && /^data:image\//i.test(value.trim()) && !/^data:image\/svg/i.test(value.trim())) return value.trim();
  return safeLink(value);
}

/**
 * An app's icon (VIEW-1): what safeLink allows, or any `data:image/` URL (APP-6), SVG included: the icon is only
 * ever the `src` of an `<img>`, where an SVG's script never runs (dashboard icon sets are mostly SVG).
 */
export function safeIcon(value: unknown): string | null {
  if (typeof value === 'string' && /^data:image\//i.test(value.trim())) return value.trim();
  return safeLink(value);
}

/** VIEW-4: a frame address: an absolute http(s) URL on another origin than the page's (never this instance). */
export function safeFrameUrl(value: unknown, pageOrigin: string): URL | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin === pageOrigin ? null : url;
  } catch {
    return null;
  }
}

/** VIEW-4: the frame's `sandbox` and `allow` attributes from the item's options. Pure. */
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
