/**
 * PWA-1: a board's web app manifest, so that a browser can install the board page as an app. Pure: the board's stored
 * settings and the addresses of Tessera's own icons in, the manifest out. No service worker goes with it (PWA-3).
 */

export interface ManifestBoard {
  name: string;
  pageTitle: string | null;
  logoImageUrl: string | null;
  primaryColor: string | null;
}

export interface ManifestIcon {
  src: string;
  sizes: string;
  type?: string;
  purpose: 'any';
}

export interface WebAppManifest {
  name: string;
  short_name: string;
  start_url: '/';
  scope: '/';
  display: 'standalone';
  theme_color: string;
  background_color: string;
  icons: ManifestIcon[];
}

/** The page's own primary colour and background (board.css), used when the board's are not of the stored shape. */
export const defaultThemeColor = '#0969da';
export const pageBackground = '#f6f8fa';

const hexColor = /^#[0-9a-fA-F]{6}$/;

/** An icon address the manifest may name: an absolute http(s) URL, or a path on this instance. */
function iconAddress(value: string | null): string | null {
  if (!value) return null;
  if (value.startsWith('/') && !value.startsWith('//')) return value;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * PWA-1: name from `pageTitle`, else the board's name; short name the board's name; the board's logo as the first
 * icon (size unknown: `any`), then Tessera's own at 192 and 512 px (the sizes browsers ask for to install); theme
 * colour the board's `primaryColor`; `display: standalone`; start URL `/` (PAGE-6: the caller's home board).
 */
export function boardManifest(board: ManifestBoard, tesseraIcons: { src192: string; src512: string }): WebAppManifest {
  const logo = iconAddress(board.logoImageUrl);
  return {
    name: board.pageTitle?.trim() || board.name,
    short_name: board.name,
    start_url: '/',
    scope: '/',
    display: 'standalone',
    theme_color: board.primaryColor && hexColor.test(board.primaryColor) ? board.primaryColor.toLowerCase() : defaultThemeColor,
    background_color: pageBackground,
    icons: [
      ...(logo ? [{ src: logo, sizes: 'any', purpose: 'any' as const }] : []),
      { src: tesseraIcons.src192, sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: tesseraIcons.src512, sizes: '512x512', type: 'image/png', purpose: 'any' },
    ],
  };
}
