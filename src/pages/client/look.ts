/**
 * The board's look (NAV-6): page and tab title, primary and secondary colours, item opacity and radius, background
 * image, custom CSS. Values go in through the CSSOM (custom properties, one declaration each), never as style sheet
 * text, and only when they have the stored shape (`#rrggbb`, 0..100, xs..xl, an http(s) or same-origin image
 * address); the custom CSS is the instance's style sheet `/boards/{name}/custom.css`, so the CSP governs it.
 */
export interface Look {
  name: string;
  pageTitle: string | null;
  metaTitle?: string | null;
  primaryColor?: string;
  secondaryColor?: string;
  opacity?: number;
  itemRadius?: string;
  backgroundImageUrl?: string | null;
  backgroundImageAttachment?: string;
  backgroundImageRepeat?: string;
  backgroundImageSize?: string;
  customCss?: string | null;
}

const radii: Record<string, string> = { xs: '2px', sm: '4px', md: '8px', lg: '16px', xl: '32px' };
const hex = /^#[0-9a-fA-F]{6}$/;

/** An image address the page may use: http(s), or this instance's own; nothing else (no `javascript:`, no `data:`). */
export function imageAddress(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value, location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** A short, stable fingerprint of the custom CSS, so that a changed sheet is asked for again. */
function fingerprint(text: string): string {
  let hash = 5381;
  for (let i = 0; i < text.length; i++) hash = ((hash * 33) ^ text.charCodeAt(i)) >>> 0;
  return `${hash.toString(36)}-${text.length}`;
}

export function applyLook(board: Look): void {
  document.title = board.metaTitle || board.pageTitle || board.name;
  const style = document.documentElement.style;
  const set = (name: string, value: string | null) => (value === null ? style.removeProperty(name) : style.setProperty(name, value));
  set('--primary', board.primaryColor && hex.test(board.primaryColor) ? board.primaryColor : null);
  set('--secondary', board.secondaryColor && hex.test(board.secondaryColor) ? board.secondaryColor : null);
  set('--tile-opacity', typeof board.opacity === 'number' && board.opacity >= 0 && board.opacity <= 100 ? String(board.opacity / 100) : null);
  set('--item-radius', board.itemRadius && radii[board.itemRadius] ? radii[board.itemRadius] : null);

  const body = document.body.style;
  const image = imageAddress(board.backgroundImageUrl);
  body.backgroundImage = image ? `url(${JSON.stringify(image)})` : '';
  body.backgroundAttachment = image && board.backgroundImageAttachment === 'fixed' ? 'fixed' : '';
  body.backgroundRepeat = image && board.backgroundImageRepeat ? board.backgroundImageRepeat : '';
  body.backgroundSize = image && board.backgroundImageSize ? board.backgroundImageSize : '';
  document.body.classList.toggle('with-background', image !== null);

  const css = board.customCss ?? '';
  const href = css.trim() ? `/boards/${encodeURIComponent(board.name)}/custom.css?v=${fingerprint(css)}` : null;
  const current = document.getElementById('custom-css') as HTMLLinkElement | null;
  if (current?.getAttribute('href') === href) return;
  current?.remove();
  if (href === null) return;
  const link = document.createElement('link');
  link.id = 'custom-css';
  link.rel = 'stylesheet';
  link.href = href;
  document.head.append(link);
}
