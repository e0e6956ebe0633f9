import { badRequest } from '../core/errors';

/** The board settings columns (SET-1), as they appear at the top level of the board document. */
export const boardSettingsColumns = [
  'pageTitle',
  'metaTitle',
  'logoImageUrl',
  'faviconImageUrl',
  'backgroundImageUrl',
  'backgroundImageAttachment',
  'backgroundImageRepeat',
  'backgroundImageSize',
  'primaryColor',
  'secondaryColor',
  'opacity',
  'customCss',
  'iconColor',
  'itemRadius',
  'disableStatus',
  'colorScheme',
  'webSearchUrl',
] as const;

export type BoardSettingsColumn = (typeof boardSettingsColumns)[number];

export interface BoardSettings {
  pageTitle: string | null;
  metaTitle: string | null;
  logoImageUrl: string | null;
  faviconImageUrl: string | null;
  backgroundImageUrl: string | null;
  backgroundImageAttachment: 'fixed' | 'scroll';
  backgroundImageRepeat: 'repeat' | 'repeat-x' | 'repeat-y' | 'no-repeat';
  backgroundImageSize: 'cover' | 'contain';
  primaryColor: string;
  secondaryColor: string;
  opacity: number;
  customCss: string | null;
  iconColor: string | null;
  itemRadius: 'xs' | 'sm' | 'md' | 'lg' | 'xl';
  disableStatus: boolean;
  /** THEME-1: `auto` follows the viewer's system (`prefers-color-scheme`). */
  colorScheme: 'light' | 'dark' | 'auto';
  /** THEME-2: the web search of the board page's search box, a URL template with `{query}`; null for none. */
  webSearchUrl: string | null;
}

/** The settings of a new board (the columns' defaults, migrations 0001 and 0019). */
export const defaultBoardSettings: BoardSettings = {
  pageTitle: null,
  metaTitle: null,
  logoImageUrl: null,
  faviconImageUrl: null,
  backgroundImageUrl: null,
  backgroundImageAttachment: 'fixed',
  backgroundImageRepeat: 'no-repeat',
  backgroundImageSize: 'cover',
  primaryColor: '#fa5252',
  secondaryColor: '#fd7e14',
  opacity: 100,
  customCss: null,
  iconColor: null,
  itemRadius: 'lg',
  disableStatus: false,
  colorScheme: 'auto',
  webSearchUrl: null,
};

/**
 * THEME-2: why `value` is no web search URL template (an http(s) URL with a host once `{query}` is filled in, and
 * `{query}` in it), or null when it is one. The OpenAPI schema checks the shape; this checks that it parses.
 */
export function webSearchUrlProblem(value: string): string | null {
  if (!value.includes('{query}')) return 'must contain {query}, the place of the search terms';
  let url: URL;
  try {
    url = new URL(value.split('{query}').join('test'));
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  if (url.hostname === '') return 'needs a host';
  return null;
}

/** Picks the settings columns out of a (camelCased) boards row. */
export function boardSettingsFromRow(row: Record<string, unknown>): BoardSettings {
  const settings: Record<string, unknown> = {};
  for (const column of boardSettingsColumns) settings[column] = row[column];
  return settings as unknown as BoardSettings;
}

/** THEME-2: a 400 naming the field when the settings given hold a web search URL that is none. */
export function assertBoardSettings(settings: Partial<Record<string, unknown>>, at = ''): void {
  const value = settings.webSearchUrl;
  if (typeof value !== 'string') return;
  const problem = webSearchUrlProblem(value);
  if (problem) throw badRequest('Input validation failed', { issues: [{ instancePath: `${at}/webSearchUrl`, message: `webSearchUrl ${problem}` }] });
}
