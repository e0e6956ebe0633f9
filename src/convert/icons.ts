/**
 * Icons of other dashboards as icon URLs (CONV-4): dashboard-icons names (`emby.png`), selfh.st icons (`sh-*`),
 * Material Design (`mdi-*`), Simple Icons (`si-*`), Font Awesome (`fas fa-*`), emoji, URLs. Each icon set's base
 * URL is configurable (`tessera convert --icon-base set=url`), so that icons can be served from the instance's own
 * origin; the board page shows https:, data: and same-origin icons (its content security policy allows those).
 */

export const iconSets = ['dashboard-icons', 'selfhst', 'mdi', 'simple-icons', 'font-awesome'] as const;
export type IconSet = (typeof iconSets)[number];
export type IconBases = Record<IconSet, string>;

export const defaultIconBases: IconBases = {
  'dashboard-icons': 'https://cdn.jsdelivr.net/gh/homarr-labs/dashboard-icons',
  'selfhst': 'https://cdn.jsdelivr.net/gh/selfhst/icons',
  'mdi': 'https://cdn.jsdelivr.net/npm/@mdi/svg/svg',
  'simple-icons': 'https://cdn.jsdelivr.net/npm/simple-icons/icons',
  'font-awesome': 'https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free/svgs',
};

export interface IconResult {
  /** The icon URL (always set: an app needs one). */
  url: string;
  /** How it was mapped, for the report. */
  how: 'url' | IconSet | 'emoji' | 'favicon' | 'placeholder';
  /** Why the icon is a placeholder, or what was lost on the way. */
  note?: string;
  /** CONV-4: a part of the notation Tessera has no equivalent for, said as an unmapped report line. */
  dropped?: string;
  /** CONV-4: a notation Tessera does not support: the icon is the fallback (favicon or generic), reported unmapped. */
  unsupported?: string;
}

const trimSlash = (base: string) => base.replace(/\/+$/, '');
const imageExtensions = ['png', 'svg', 'webp', 'jpg', 'jpeg', 'ico', 'gif'];

function withExtension(name: string, fallback: string): { name: string; extension: string } {
  const match = /^(.*)\.([a-z]+)$/i.exec(name);
  if (match && imageExtensions.includes(match[2].toLowerCase())) return { name: match[1], extension: match[2].toLowerCase() };
  return { name, extension: fallback };
}

/** One letter-free emoji (with its modifiers and joiners), drawn as an inline SVG. */
function emojiIcon(icon: string): string | null {
  if (!/^(\p{Extended_Pictographic}|\p{Regional_Indicator})[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u200d\ufe0f\u20e3]*$/u.test(icon)) return null;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><text x="32" y="52" font-size="52" text-anchor="middle">${icon}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** The favicon of an http(s) address, or null. */
export function faviconOf(href: string | null | undefined): string | null {
  if (!href || !/^https?:\/\//i.test(href)) return null;
  try {
    return `${new URL(href).origin}/favicon.ico`;
  } catch {
    return null;
  }
}

const fontAwesomeStyles: Record<string, string> = { fas: 'solid', 'fa-solid': 'solid', far: 'regular', 'fa-regular': 'regular', fab: 'brands', 'fa-brands': 'brands' };

/** The icon URL for `icon` as the source dashboard wrote it; `href` gives the favicon when there is no icon. */
export function mapIcon(icon: string | null | undefined, href: string | null | undefined, bases: IconBases = defaultIconBases): IconResult {
  // Dashy's `generative` draws an icon from the link's hash on the fly: no file of that name exists anywhere.
  if ((icon ?? '').trim().toLowerCase() === 'generative') {
    return { ...mapIcon(null, href, bases), unsupported: "Dashy's generated icon (generative): Tessera has no such icons" };
  }
  // Glance writes `si:github`, `di:jellyfin`, `mdi:home`, `sh:sonarr`, optionally after `auto-invert `.
  const glance = /^(auto-invert\s+)?(si|di|mdi|sh):(.+)$/i.exec((icon ?? '').trim());
  const value = glance ? `${glance[2].toLowerCase() === 'di' ? 'hl' : glance[2].toLowerCase()}-${glance[3]}` : (icon ?? '').trim();
  if (glance?.[1]) return { ...mapIcon(value, href, bases), dropped: 'auto-invert: Tessera does not invert icons for dark themes' };
  if (value === '' || value === 'favicon' || value === 'favicon-local') {
    const favicon = faviconOf(href);
    if (favicon) return { url: favicon, how: 'favicon', note: value === '' ? 'no icon in the source: the favicon of the link' : undefined };
    return { url: `${trimSlash(bases.mdi)}/application.svg`, how: 'placeholder', note: 'no icon and no http(s) link: a generic icon' };
  }
  if (/^(https?:\/\/|data:image\/)/i.test(value)) return { url: value, how: 'url' };
  const emoji = emojiIcon(value);
  if (emoji) return { url: emoji, how: 'emoji' };
  const fontAwesome = /^(fas|far|fab|fa-solid|fa-regular|fa-brands)\s+fa-([a-z0-9-]+)$/i.exec(value);
  if (fontAwesome) {
    return { url: `${trimSlash(bases['font-awesome'])}/${fontAwesomeStyles[fontAwesome[1].toLowerCase()]}/${fontAwesome[2].toLowerCase()}.svg`, how: 'font-awesome' };
  }
  const prefixed = /^(mdi|si|sh|hl)-([a-z0-9][a-z0-9._-]*(?:-#[0-9a-f]{3,8})?)$/i.exec(value);
  if (prefixed) {
    const prefix = prefixed[1].toLowerCase();
    // homepage writes a colour after the name (`mdi-home-#f0d453`); the URL sets have no colours.
    const [rawName, color] = prefixed[2].split('-#');
    const note = color ? `colour #${color} not kept` : undefined;
    if (prefix === 'mdi') return { url: `${trimSlash(bases.mdi)}/${withExtension(rawName, 'svg').name}.svg`, how: 'mdi', note };
    if (prefix === 'si') return { url: `${trimSlash(bases['simple-icons'])}/${withExtension(rawName, 'svg').name}.svg`, how: 'simple-icons', note };
    if (prefix === 'sh') {
      const { name, extension } = withExtension(rawName, 'png');
      return { url: `${trimSlash(bases.selfhst)}/${extension}/${name}.${extension}`, how: 'selfhst', note };
    }
    const { name, extension } = withExtension(rawName, 'png');
    return { url: `${trimSlash(bases['dashboard-icons'])}/${extension}/${name}.${extension}`, how: 'dashboard-icons', note };
  }
  if (/^[a-z0-9][a-z0-9._-]*$/i.test(value) && !value.includes('/')) {
    const { name, extension } = withExtension(value.toLowerCase(), 'png');
    return { url: `${trimSlash(bases['dashboard-icons'])}/${extension}/${name}.${extension}`, how: 'dashboard-icons' };
  }
  // A path on the source dashboard's own server (`/icons/x.png`) or something unknown: kept as written.
  return { url: value, how: 'placeholder', note: `kept as written: ${value.startsWith('/') ? "a file on the source dashboard's server" : 'not a known icon notation'}` };
}
