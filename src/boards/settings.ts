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
}

/** Picks the settings columns out of a (camelCased) boards row. */
export function boardSettingsFromRow(row: Record<string, unknown>): BoardSettings {
  const settings: Record<string, unknown> = {};
  for (const column of boardSettingsColumns) settings[column] = row[column];
  return settings as unknown as BoardSettings;
}
