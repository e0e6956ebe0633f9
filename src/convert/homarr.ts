/**
 * Old Homarr (v0.x) to Tessera (CONV-1, CONV-5): one exported JSON config is one board. Its three breakpoint sizes
 * (`sm`, `md`, `lg`) become three layouts with the config's column counts, and tiles keep their explicit positions
 * where they fit; wrappers become empty sections and categories category sections, in their order; apps become app
 * items, widgets Tessera widgets with their options renamed. Integrations are reported by kind, never with secrets.
 */
import type { components } from '../../generated/api';
import { isKnownWidgetKind } from '../widgets/registry';
import { appOptions } from '../widgets/options';
import { buildBoardFile, boardNameOf, type BoardFile, type DraftItem, type DraftLayout, type DraftSection } from './build';
import { appItem, asString, bounded, keepWidget, newContext, reportOtherFields, widgetItem, type Context, type ConvertInput, type ConvertOptions, type ConvertResult } from './common';
import { boardNames } from './names';
import { isRecord } from './report';
import { ConvertError, SourceSet, type PathKey, type SourceFile } from './source';

type FileItem = components['schemas']['FileItem'];
type FileSection = components['schemas']['FileSection'];

const sizes = ['sm', 'md', 'lg'] as const;
type Size = (typeof sizes)[number];

/** Layouts of the three sizes: names, default column counts (old Homarr's), breakpoints. */
const sizeLayouts: Record<Size, { name: string; columns: number; breakpoint: number; setting: string }> = {
  sm: { name: 'Small', columns: 3, breakpoint: 0, setting: 'columnCountSmall' },
  md: { name: 'Medium', columns: 6, breakpoint: 800, setting: 'columnCountMedium' },
  lg: { name: 'Large', columns: 12, breakpoint: 1400, setting: 'columnCountLarge' },
};

/** Old widget types: the Tessera kind and the old option names that map to its options. */
const widgetMap: Record<string, [kind: string, options: Record<string, string>]> = {
  'date': ['clock', { display24HourFormat: 'is24HourFormat', timezone: 'timezone', customTitle: 'customTitle' }],
  'weather': ['weather', { location: 'location', displayInFahrenheit: 'isFormatFahrenheit', displayWeekly: 'hasForecast', forecastDays: 'forecastDayCount', displayCityName: 'showCity' }],
  'rss': ['rssFeed', { rssFeedUrl: 'feedUrls', maximumAmountOfPosts: 'maximumAmountPosts', textLinesClamp: 'textLinesClamp', enableRtl: 'enableRtl' }],
  'iframe': ['iframe', { embedUrl: 'embedUrl', allowFullScreen: 'allowFullScreen', allowScrolling: 'allowScrolling', allowPayment: 'allowPayment', allowAutoPlay: 'allowAutoPlay', allowMicrophone: 'allowMicrophone', allowCamera: 'allowCamera', allowGeolocation: 'allowGeolocation' }],
  'video-stream': ['video', { FeedUrl: 'feedUrl', autoPlay: 'hasAutoPlay', muted: 'isMuted', controls: 'hasControls' }],
  'notebook': ['notebook', { content: 'content', showToolbar: 'showToolbar', allowReadOnlyCheck: 'allowReadOnlyCheck' }],
  'dns-hole-summary': ['dnsHoleSummary', { usePiHoleColors: 'usePiHoleColors', layout: 'layout' }],
  'dns-hole-controls': ['dnsHoleControls', { showToggleAllButtons: 'showToggleAllButtons' }],
  'smart-home/entity-state': ['smartHome-entityState', { entityId: 'entityId', displayName: 'displayName' }],
  'smart-home/trigger-automation': ['smartHome-executeAutomation', { automationId: 'automationId', displayName: 'displayName' }],
  'media-server': ['mediaServer', {}],
  'calendar': ['calendar', {}],
  'torrents-status': ['downloads', {}],
  'usenet': ['downloads', {}],
  'indexer-manager': ['indexerManager', {}],
  'media-requests-list': ['mediaRequests-requestList', {}],
  'media-requests-stats': ['mediaRequests-requestStats', {}],
  'health-monitoring': ['healthMonitoring', {}],
  'media-transcoding': ['mediaTranscoding', {}],
};

interface Tile {
  at: PathKey[];
  fields: Record<string, unknown>;
  /** The section key the tile's area names. */
  section: string;
  fixed: DraftItem['fixed'];
  size: { width: number; height: number };
}

function tileOf(ctx: Context, source: SourceFile, at: PathKey[], fields: Record<string, unknown>, object: string, layouts: Record<Size, DraftLayout>): Tile {
  const area = isRecord(fields.area) ? fields.area : null;
  if (!area || typeof area.type !== 'string') throw source.fail(at, `${object}: a tile needs an area {type, properties}`);
  const properties = isRecord(area.properties) ? area.properties : {};
  let section: string;
  if (area.type === 'wrapper' || area.type === 'category') {
    if (typeof properties.id !== 'string') throw source.fail([...at, 'area'], `${object}: the area needs properties.id`);
    section = `${area.type}:${properties.id}`;
  } else if (area.type === 'sidebar') {
    section = 'sidebar';
    ctx.report.add(source, [...at, 'area'], object, 'area', 'mapped', `the ${asString(properties.location) ?? ''} sidebar: Tessera has none, the tile is placed at the top of the board`);
  } else throw source.fail([...at, 'area', 'type'], `${object}: unknown area type "${area.type}"`);
  if (section !== 'sidebar') ctx.report.add(source, [...at, 'area'], object, 'area', 'mapped', `in the ${area.type} ${String(properties.id)}`);
  const shape = isRecord(fields.shape) ? fields.shape : {};
  const fixed: NonNullable<DraftItem['fixed']> = {};
  let size = { width: 1, height: 1 };
  for (const key of sizes) {
    const sized = shape[key];
    if (!isRecord(sized) || !isRecord(sized.location) || !isRecord(sized.size)) continue;
    const [x, y, width, height] = [sized.location.x, sized.location.y, sized.size.width, sized.size.height].map((n) => (typeof n === 'number' && Number.isFinite(n) ? Math.max(0, Math.floor(n)) : null));
    if (x === null || y === null || width === null || height === null) throw source.fail([...at, 'shape', key], `${object}: a shape needs numeric location {x, y} and size {width, height}`);
    const cells = { width: Math.max(1, width), height: Math.max(1, height) };
    // Sidebar positions are in the sidebar's own grid: only the size is kept.
    fixed[layouts[key].name] = section === 'sidebar' ? { x: -1, y: -1, ...cells } : { x, y, ...cells };
    size = cells;
  }
  if (Object.keys(fixed).length > 0) ctx.report.add(source, [...at, 'shape'], object, 'shape', 'mapped', `positions on the ${Object.keys(fixed).join(', ')} layouts${section === 'sidebar' ? ' (sizes only)' : ''}; a tile that overlaps another is moved to the first free place`);
  for (const key of Object.keys(shape)) if (!(sizes as readonly string[]).includes(key)) ctx.report.add(source, [...at, 'shape', key], object, `shape.${key}`, 'unmapped', 'not one of the sizes sm, md, lg');
  return { at, fields, section, fixed, size };
}

function appTile(ctx: Context, source: SourceFile, tile: Tile): DraftItem {
  const { fields, at } = tile;
  const name = asString(fields.name);
  if (!name) throw source.fail(at, 'an app needs a name');
  const object = `app ${name}`;
  const behaviour = isRecord(fields.behaviour) ? fields.behaviour : {};
  const network = isRecord(fields.network) ? fields.network : {};
  const appearance = isRecord(fields.appearance) ? fields.appearance : {};
  const url = asString(fields.url);
  const href = asString(behaviour.externalUrl) || url;
  const item = appItem(ctx, source, at, object, `app:${asString(fields.id) ?? at.join('/')}`, {
    name,
    href,
    description: asString(behaviour.tooltipDescription),
    // Homarr 0.x shows the tooltip description on hover.
    descriptionShown: 'tooltip',
    icon: asString(appearance.iconUrl),
    pingUrl: network.enabledStatusChecker !== false ? url : null,
    openInNewTab: behaviour.isOpeningNewTab !== false,
  });
  if (appearance.appNameStatus === 'hidden') item.options.showTitle = false;
  if (appearance.appNameStatus === 'hover') item.options.descriptionDisplayMode = 'tooltip';
  if (typeof appearance.positionAppName === 'string') item.options.layout = appearance.positionAppName;
  if (Array.isArray(network.statusCodes) && network.statusCodes.length > 0) ctx.report.add(source, [...at, 'network', 'statusCodes'], object, 'network.statusCodes', 'unmapped', 'accepted status codes: Tessera counts any answer below 500 as up');
  ctx.report.mappedFields(source, at, object, fields, { id: 'the item id derives from it', url: 'the link (without behaviour.externalUrl) and the ping URL' });
  ctx.report.mappedFields(source, [...at, 'behaviour'], object, behaviour, { externalUrl: behaviour.externalUrl ? 'the link' : 'empty: the url is the link', isOpeningNewTab: 'openInNewTab', tooltipDescription: 'the description' }, 'behaviour.');
  ctx.report.mappedFields(source, [...at, 'network'], object, network, { enabledStatusChecker: 'whether the app pings its url' }, 'network.');
  ctx.report.mappedFields(source, [...at, 'appearance'], object, appearance, { iconUrl: 'the icon', appNameStatus: 'showTitle (hidden) or the description as a tooltip (hover)', positionAppName: 'the tile layout' }, 'appearance.');
  const subFields = (name: string, record: Record<string, unknown>, handled: string[], why?: (field: string) => string | null) =>
    reportOtherFields(ctx, source, [...at, name], object, record, handled, why, `${name}.`);
  subFields('behaviour', behaviour, ['externalUrl', 'tooltipDescription', 'isOpeningNewTab']);
  subFields('network', network, ['enabledStatusChecker', 'statusCodes']);
  subFields('appearance', appearance, ['iconUrl', 'appNameStatus', 'positionAppName'], (field) =>
    field === 'appNameFontSize' || field === 'lineClampAppName' ? 'text display option: no Tessera equivalent' : null,
  );
  const integration = isRecord(fields.integration) ? fields.integration : null;
  if (integration && typeof integration.type === 'string') {
    const properties = Array.isArray(integration.properties) ? integration.properties.filter(isRecord).map((p) => asString(p.field)).filter(Boolean) : [];
    ctx.report.add(source, [...at, 'integration'], object, 'integration', 'unmapped', `a ${integration.type} integration at ${url ?? '(no url)'}: create it in Tessera${properties.length ? ` with its ${properties.join(', ')} (values not copied)` : ''}`);
  }
  reportOtherFields(ctx, source, at, object, fields, ['id', 'name', 'url', 'behaviour', 'network', 'appearance', 'integration', 'area', 'shape']);
  return { ...item, width: tile.size.width, height: tile.size.height, fixed: tile.fixed };
}

function widgetTile(ctx: Context, source: SourceFile, tile: Tile, bookmarks: DraftItem[]): DraftItem | null {
  const { fields, at } = tile;
  const type = asString(fields.type);
  if (!type) throw source.fail(at, 'a widget needs a type');
  const object = `widget ${type}`;
  const properties = isRecord(fields.properties) ? fields.properties : {};
  const key = `widget:${asString(fields.id) ?? at.join('/')}`;
  ctx.report.mappedFields(source, at, object, fields, { id: 'the item id derives from it' });
  reportOtherFields(ctx, source, at, object, fields, ['id', 'type', 'properties', 'area', 'shape']);
  if (type === 'bookmark') {
    const items = Array.isArray(properties.items) ? properties.items : [];
    items.forEach((entry, index) => {
      const itemAt = [...at, 'properties', 'items', index];
      if (!isRecord(entry) || !asString(entry.name)) {
        ctx.report.add(source, itemAt, object, `properties.items[${index}]`, 'unmapped', 'a link without a name: left out');
        return;
      }
      const name = `${object} / ${asString(entry.name)}`;
      bookmarks.push(appItem(ctx, source, itemAt, name, `${key}/${index}`, { name: asString(entry.name)!, href: asString(entry.href), icon: asString(entry.iconUrl) }));
      ctx.report.mappedFields(source, itemAt, name, entry, { id: 'the item id derives from it', href: 'the link', iconUrl: 'the icon' });
      reportOtherFields(ctx, source, itemAt, name, entry, ['id', 'name', 'href', 'iconUrl']);
    });
    ctx.report.add(source, [...at, 'type'], object, 'type', 'mapped', 'a bookmark widget: each link is an app item in the same section, placed after the tiles');
    reportOtherFields(ctx, source, [...at, 'properties'], object, properties, ['items']);
    return null;
  }
  const mapping = widgetMap[type];
  if (!mapping) {
    keepWidget(ctx, source, at, object, type, properties, 'Tessera has no widget of this kind');
    return null;
  }
  const [kind, renames] = mapping;
  const options: Record<string, unknown> = {};
  for (const [old, value] of Object.entries(properties)) if (renames[old]) options[renames[old]] = value;
  if (type === 'date' && typeof properties.timezone === 'string' && properties.timezone !== '') options.useCustomTimezone = true;
  if (type === 'date' && properties.dateFormat === 'hide') options.showDate = false;
  if (type === 'date' && typeof properties.titleState === 'string') options.customTitleToggle = properties.titleState !== 'none';
  ctx.report.add(source, [...at, 'type'], object, 'type', 'mapped', `widget kind ${kind}${Object.keys(renames).length === 0 ? ' (bind an integration to it in Tessera)' : ''}`);
  const renamed: Record<string, string> = Object.fromEntries(Object.entries(renames).map(([old, name]) => [old, `options.${name}`]));
  if (type === 'date') Object.assign(renamed, { dateFormat: 'showDate (hide: false)', titleState: 'customTitleToggle' });
  ctx.report.mappedFields(source, [...at, 'properties'], object, properties, renamed, 'properties.');
  reportOtherFields(ctx, source, [...at, 'properties'], object, properties, [...Object.keys(renames), ...(type === 'date' ? ['dateFormat', 'titleState'] : [])]);
  return { ...widgetItem(key, kind, options), width: tile.size.width, height: tile.size.height, fixed: tile.fixed };
}

const customizationMap: Record<string, string> = {
  pageTitle: 'pageTitle',
  metaTitle: 'metaTitle',
  logoImageUrl: 'logoImageUrl',
  faviconUrl: 'faviconImageUrl',
  backgroundImageUrl: 'backgroundImageUrl',
  backgroundImageAttachment: 'backgroundImageAttachment',
  backgroundImageSize: 'backgroundImageSize',
  backgroundImageRepeat: 'backgroundImageRepeat',
  customCss: 'customCss',
};

const enumSettings: Record<string, readonly string[]> = {
  backgroundImageAttachment: ['fixed', 'scroll'],
  backgroundImageRepeat: ['repeat', 'repeat-x', 'repeat-y', 'no-repeat'],
  backgroundImageSize: ['cover', 'contain'],
};

function settingsOf(ctx: Context, source: SourceFile, config: Record<string, unknown>): { settings: Record<string, unknown>; columns: Partial<Record<Size, number>> } {
  const settings: Record<string, unknown> = {};
  const columns: Partial<Record<Size, number>> = {};
  const all = isRecord(config.settings) ? config.settings : {};
  const customization = isRecord(all.customization) ? all.customization : {};
  const at = ['settings', 'customization'];
  const unmappable = new Set<string>();
  for (const [old, name] of Object.entries(customizationMap)) {
    const value = asString(customization[old]);
    if (!value) continue;
    if (enumSettings[name] && !enumSettings[name].includes(value)) unmappable.add(old);
    else {
      settings[name] = value.slice(0, name === 'customCss' ? 16384 : 2048);
      ctx.report.add(source, [...at, old], 'settings', old, 'mapped', `the board setting ${name}`);
    }
  }
  for (const [old, name] of Object.entries(customizationMap)) {
    if (customization[old] === '') ctx.report.add(source, [...at, old], 'settings', old, 'mapped', `empty: the board setting ${name} is left unset`);
  }
  if (typeof customization.appOpacity === 'number') {
    settings.opacity = Math.max(0, Math.min(100, Math.round(customization.appOpacity)));
    ctx.report.add(source, [...at, 'appOpacity'], 'settings', 'appOpacity', 'mapped', 'the board setting opacity');
  }
  const gridstack = isRecord(customization.gridstack) ? customization.gridstack : {};
  for (const size of sizes) {
    const value = gridstack[sizeLayouts[size].setting];
    if (typeof value === 'number' && value >= 1 && value <= 24) {
      columns[size] = Math.floor(value);
      ctx.report.add(source, [...at, 'gridstack', sizeLayouts[size].setting], 'settings', `gridstack.${sizeLayouts[size].setting}`, 'mapped', `the column count of the ${sizeLayouts[size].name} layout`);
    }
  }
  const columnSettings = sizes.filter((size) => columns[size] !== undefined).map((size) => sizeLayouts[size].setting);
  reportOtherFields(ctx, source, [...at, 'gridstack'], 'settings', gridstack, columnSettings, () => 'not a column count from 1 to 24', 'gridstack.');
  reportOtherFields(ctx, source, at, 'settings', customization, [...Object.keys(customizationMap).filter((field) => !unmappable.has(field)), 'appOpacity', 'gridstack'], (field) =>
    unmappable.has(field) ? `not one of ${enumSettings[customizationMap[field]].join(', ')}` : field === 'colors' ? 'Mantine colour names: set primaryColor and secondaryColor as #rrggbb in Tessera' : field === 'layout' ? 'sidebars, Docker and search bar switches: no Tessera equivalent' : null,
  );
  if (isRecord(all.access)) ctx.report.add(source, ['settings', 'access'], 'settings', 'access', 'unmapped', 'guest access: make the board public in Tessera (isPublic) if it should be');
  if (isRecord(all.common)) ctx.report.add(source, ['settings', 'common'], 'settings', 'common', 'unmapped', 'search engine: Tessera has no search bar');
  return { settings, columns };
}

function list(source: SourceFile, config: Record<string, unknown>, field: string): Record<string, unknown>[] {
  const value = config[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw source.fail([field], `${field} must be a list`);
  return value.map((entry, index) => {
    if (!isRecord(entry)) throw source.fail([field, index], `each of ${field} must be a map`);
    return entry;
  });
}

function convertConfig(ctx: Context, source: SourceFile): Parameters<typeof buildBoardFile>[0] {
  if (!isRecord(source.data)) throw source.fail([], 'an old Homarr config must be a JSON object');
  const config = source.data;
  if (config.schemaVersion === undefined || !isRecord(config.configProperties)) throw source.fail([], 'not an old Homarr config: schemaVersion and configProperties are missing');
  const { settings, columns } = settingsOf(ctx, source, config);
  const layouts = Object.fromEntries(sizes.map((size) => [size, { name: sizeLayouts[size].name, columnCount: columns[size] ?? sizeLayouts[size].columns, breakpoint: sizeLayouts[size].breakpoint }])) as Record<Size, DraftLayout>;

  const ordered = [
    ...list(source, config, 'wrappers').map((w, index) => ({ key: `wrapper:${asString(w.id)}`, name: null, position: Number(w.position ?? 0), at: ['wrappers', index], fields: w })),
    ...list(source, config, 'categories').map((c, index) => ({ key: `category:${asString(c.id)}`, name: asString(c.name) ?? 'Category', position: Number(c.position ?? 0), at: ['categories', index], fields: c })),
  ].sort((a, b) => a.position - b.position || a.key.localeCompare(b.key));
  const top: DraftSection = { key: 'sidebar', name: null, items: [] };
  const sections: DraftSection[] = ordered.map(({ key, name }) => ({ key, name, items: [] }));
  // The first wrapper is the board's top area; without one, a top area of its own holds sidebar tiles.
  const first = sections[0]?.name === null ? sections[0] : null;
  const byKey = new Map(sections.map((section) => [section.key, section]));
  for (const { key, name, at, fields } of ordered) {
    ctx.report.add(source, at, name ?? key, '', 'mapped', name === null ? 'an empty section' : 'a category section');
    ctx.report.mappedFields(source, at, name ?? key, fields, { id: 'the section id derives from it; tiles name it', position: 'the order of the sections' });
    reportOtherFields(ctx, source, at, name ?? key, fields, ['id', 'position', 'name']);
  }

  const sectionOf = (tile: Tile) => {
    if (tile.section === 'sidebar') return first ?? top;
    const section = byKey.get(tile.section);
    if (!section) throw source.fail([...tile.at, 'area'], `the area names ${tile.section}, which the config does not define`);
    return section;
  };
  const bookmarksBySection = new Map<DraftSection, DraftItem[]>();
  list(source, config, 'apps').forEach((fields, index) => {
    const tile = tileOf(ctx, source, ['apps', index], fields, `app ${asString(fields.name) ?? index}`, layouts);
    sectionOf(tile).items.push(appTile(ctx, source, tile));
  });
  list(source, config, 'widgets').forEach((fields, index) => {
    const tile = tileOf(ctx, source, ['widgets', index], fields, `widget ${asString(fields.type) ?? index}`, layouts);
    const section = sectionOf(tile);
    const links = bookmarksBySection.get(section) ?? [];
    const item = widgetTile(ctx, source, tile, links);
    bookmarksBySection.set(section, links);
    if (item) section.items.push(item);
  });
  for (const [section, links] of bookmarksBySection) section.items.push(...links);
  ctx.report.mappedFields(source, [], 'config', config, { schemaVersion: 'an old Homarr config' });
  ctx.report.mappedFields(source, ['configProperties'], 'config', config.configProperties, { name: 'the board name' }, 'configProperties.');
  reportOtherFields(ctx, source, ['configProperties'], 'config', config.configProperties, ['name'], undefined, 'configProperties.');
  reportOtherFields(ctx, source, [], 'config', config, ['schemaVersion', 'configProperties', 'settings', 'wrappers', 'categories', 'apps', 'widgets']);
  const name = asString(config.configProperties.name) ?? 'homarr';
  return { name: boardNameOf(name, 'homarr'), settings, layouts: sizes.map((size) => layouts[size]), sections: first ? sections : [top, ...sections] };
}

/** Converts old Homarr JSON configs: one board per file. */
export function convertHomarr(input: ConvertInput, options: ConvertOptions = {}): ConvertResult {
  const ctx = newContext(new SourceSet(input.read), options);
  const files = input.files.filter((file) => /\.json$/i.test(file));
  if (files.length === 0) throw new ConvertError(input.files.join(', ') || '(no files)', null, null, 'homarr: no .json config among the input files');
  const drafts = files.map((file) => convertConfig(ctx, ctx.sources.load(file, null)));
  const names = boardNames(drafts.map((draft) => draft.name), options.name);
  drafts.forEach((draft, index) => (draft.name = names[index]));
  const boards = drafts.map(buildBoardFile);
  return { boards, report: { format: 'homarr', files: ctx.sources.names(), boards: drafts.map((d) => ({ name: d.name, file: `${d.name}.yaml` })), entries: ctx.report.entries } };
}

/**
 * A running Homarr v1, as read over its API (CONV-7): the files `tessera convert homarr --url` writes into
 * `<output>/homarr-api/` from the answers, so that the report can point into them. `boards/<n>.json` is one board
 * document (tRPC `board.getBoardByName`), `apps.json` the app list (`GET /api/apps`), `integrations.json` the
 * integration list (tRPC `integration.all`: id, name, kind, url; Homarr never answers secrets there).
 */
export const homarrApiFiles = { apps: 'apps.json', integrations: 'integrations.json', board: (index: number) => `boards/${String(index + 1).padStart(3, '0')}.json` };

/** Homarr v1 board fields that are board settings in Tessera (the same names). */
const v1Settings = ['pageTitle', 'metaTitle', 'logoImageUrl', 'faviconImageUrl', 'backgroundImageUrl', 'backgroundImageAttachment', 'backgroundImageRepeat', 'backgroundImageSize', 'primaryColor', 'secondaryColor', 'opacity', 'customCss', 'iconColor', 'itemRadius', 'disableStatus'];

/** Board document fields that are about the reading user or the instance, not the board. */
const v1Unmapped: Record<string, string> = {
  creatorId: 'the creating user: the importing user creates the board in Tessera',
  creator: 'the creating user: the importing user creates the board in Tessera',
  userPermissions: 'board grants: set them in Tessera (PUT /api/boards/{id}/permissions)',
  groupPermissions: 'board grants: set them in Tessera (PUT /api/boards/{id}/permissions)',
};

/** The grid cells of a Homarr position, or the error naming it. */
function cellsOf(source: SourceFile, at: PathKey[], p: Record<string, unknown>): { xOffset: number; yOffset: number; width: number; height: number } {
  const [xOffset, yOffset, width, height] = [p.xOffset, p.yOffset, p.width, p.height];
  const whole = (n: unknown, min: number): n is number => typeof n === 'number' && Number.isInteger(n) && n >= min;
  if (!whole(xOffset, 0) || !whole(yOffset, 0) || !whole(width, 1) || !whole(height, 1)) throw source.fail(at, 'a position needs whole numbers xOffset, yOffset (from 0), width and height (from 1)');
  return { xOffset, yOffset, width, height };
}

function recordsOf(source: SourceFile, at: PathKey[], value: unknown, what: string): Record<string, unknown>[] {
  if (!Array.isArray(value)) throw source.fail(at, `${what} must be a list`);
  return value.map((entry, index) => {
    if (!isRecord(entry)) throw source.fail([...at, index], `each of ${what} must be a map`);
    return entry;
  });
}

function byId(ctx: Context, file: string, what: string): { source: SourceFile; rows: Map<string, { at: PathKey[]; row: Record<string, unknown> }> } {
  const source = ctx.sources.load(file, null);
  const rows = new Map<string, { at: PathKey[]; row: Record<string, unknown> }>();
  recordsOf(source, [], source.data, what).forEach((row, index) => {
    if (typeof row.id !== 'string') throw source.fail([index], `each of ${what} needs an id`);
    rows.set(row.id, { at: [index], row });
  });
  return { source, rows };
}

/** One Homarr v1 board document as a Tessera board file: ids, layouts, sections and positions kept as they are. */
function convertV1Board(
  ctx: Context,
  source: SourceFile,
  apps: ReturnType<typeof byId>,
  integrations: ReturnType<typeof byId>,
  used: { apps: Set<string>; integrations: Set<string> },
): { name: string; file: BoardFile } {
  if (!isRecord(source.data)) throw source.fail([], 'a Homarr board document must be a JSON object');
  const doc = source.data;
  const title = asString(doc.name);
  if (!title) throw source.fail([], 'not a Homarr board document: name is missing');
  const object = `board ${title}`;
  const layouts = recordsOf(source, ['layouts'], doc.layouts, 'layouts');
  const layoutNameOf = new Map<string, string>();
  const usedNames = new Set<string>();
  const fileLayouts = layouts.map((layout, index) => {
    const [name, columnCount, breakpoint] = [asString(layout.name), layout.columnCount, layout.breakpoint];
    if (typeof layout.id !== 'string' || !name || typeof columnCount !== 'number' || typeof breakpoint !== 'number') throw source.fail(['layouts', index], 'a layout needs id, name, columnCount and breakpoint');
    // Names are not unique on a Homarr board; positions name their layout, so a repeated name gets `~2`, `~3`, … (as FILE-1).
    let unique = name.slice(0, 32);
    for (let n = 2; usedNames.has(unique); n++) unique = `${name.slice(0, 32 - `~${n}`.length)}~${n}`;
    usedNames.add(unique);
    layoutNameOf.set(layout.id, unique);
    return { name: unique, columnCount, breakpoint };
  });
  ctx.report.add(source, ['layouts'], object, 'layouts', 'mapped', `${fileLayouts.length} layouts: ${fileLayouts.map((l) => `${l.name} (${l.columnCount} columns from ${l.breakpoint}px)`).join(', ')}`);

  const sectionIds = new Set<string>();
  const sections = recordsOf(source, ['sections'], doc.sections, 'sections').flatMap((section, index): FileSection[] => {
    const at = ['sections', index];
    if (typeof section.id !== 'string') throw source.fail(at, 'a section needs an id');
    sectionIds.add(section.id);
    const yOffset = typeof section.yOffset === 'number' ? section.yOffset : index;
    const sectionObject = `section ${section.id}`;
    ctx.report.mappedFields(source, at, sectionObject, section, { id: 'kept', kind: 'kept', name: 'kept', yOffset: 'kept', xOffset: 'kept as 0 (a top-level section spans the board)', options: 'kept', layouts: 'positions kept' });
    reportOtherFields(ctx, source, at, sectionObject, section, ['id', 'kind', 'name', 'yOffset', 'xOffset', 'options', 'layouts'], (field) =>
      field === 'collapsed' ? 'collapsed state: per user in Tessera' : null,
    );
    if (section.kind === 'category') return [{ id: section.id, kind: 'category', name: bounded(ctx, source, at, `section ${section.id}`, 'name', asString(section.name) ?? '', 255), xOffset: 0, yOffset }];
    if (section.kind === 'empty') return [{ id: section.id, kind: 'empty', xOffset: 0, yOffset }];
    if (section.kind === 'dynamic') {
      const positions = Array.isArray(section.layouts) ? section.layouts.filter(isRecord) : [];
      return [
        {
          id: section.id,
          kind: 'dynamic',
          ...(isRecord(section.options) ? { options: section.options as FileSection['options'] } : {}),
          layouts: positions.flatMap((p, n) => {
            const layout = typeof p.layoutId === 'string' ? layoutNameOf.get(p.layoutId) : undefined;
            if (!layout || typeof p.parentSectionId !== 'string') {
              ctx.report.add(source, [...at, 'layouts', n], `section ${section.id}`, 'layouts', 'unmapped', `a position on layout ${String(p.layoutId)} without a parent section: left out`);
              return [];
            }
            return [{ layout, parentSectionId: p.parentSectionId, ...cellsOf(source, [...at, 'layouts', n], p) }];
          }),
        },
      ];
    }
    throw source.fail([...at, 'kind'], `unknown section kind "${asString(section.kind) ?? ''}"`);
  });

  const items: FileItem[] = [];
  recordsOf(source, ['items'], doc.items, 'items').forEach((item, index) => {
    const at = ['items', index];
    const kind = asString(item.kind);
    if (typeof item.id !== 'string' || !kind) throw source.fail(at, 'an item needs an id and a kind');
    const itemObject = `item ${item.id} (${kind})`;
    const options = isRecord(item.options) ? { ...item.options } : {};
    if (!isKnownWidgetKind(kind)) {
      keepWidget(ctx, source, at, itemObject, kind, options, 'this Tessera build has no widget of this kind');
      return;
    }
    const fileItem: FileItem = { id: item.id, kind: kind as FileItem['kind'], options: {}, layouts: [] };
    // Options that name apps (FILE-8): the app by its fields, as a board file carries it.
    const appFields = (id: unknown, field: string) => {
      const found = typeof id === 'string' ? apps.rows.get(id) : undefined;
      if (!found) {
        ctx.report.add(source, [...at, 'options', field], itemObject, `options.${field}`, 'unmapped', `app ${String(id)} is not in the instance's app list: left out`);
        return null;
      }
      const row = found.row;
      if (!used.apps.has(id as string)) {
        ctx.report.mappedFields(apps.source, found.at, `app ${asString(row.name) ?? found.at[0]}`, row, { id: 'not kept: items name the app by its fields', description: 'the description', pingUrl: 'the ping URL' });
        reportOtherFields(ctx, apps.source, found.at, `app ${asString(row.name) ?? found.at[0]}`, row, ['id', 'name', 'href', 'description', 'iconUrl', 'pingUrl']);
      }
      used.apps.add(id as string);
      const draft = appItem(ctx, apps.source, found.at, `app ${asString(row.name) ?? found.at[0]}`, `app:${String(id)}`, {
        name: asString(row.name) ?? 'App',
        href: asString(row.href),
        description: asString(row.description),
        icon: asString(row.iconUrl),
        pingUrl: asString(row.pingUrl),
      });
      return draft.app!;
    };
    for (const { name, list } of appOptions(kind)) {
      if (!(name in options)) continue;
      const value = options[name];
      delete options[name];
      if (!list) {
        const app = appFields(value, name);
        if (app && name === 'appId') fileItem.app = app;
        else if (app) fileItem.apps = { ...fileItem.apps, [name]: app };
      } else {
        const named = (Array.isArray(value) ? value : []).map((id) => appFields(id, name)).filter((app): app is NonNullable<typeof app> => app !== null);
        fileItem.apps = { ...fileItem.apps, [name]: named };
      }
    }
    ctx.report.placeholders(source, [...at, 'options'], itemObject, 'options', options);
    for (const [field, value] of Object.entries(options)) {
      if (value !== '<redacted>') continue;
      delete options[field];
      ctx.report.add(source, [...at, 'options', field], itemObject, `options.${field}`, 'unmapped', 'a literal secret: not read, not copied (set it in Tessera)');
    }
    fileItem.options = options;
    if (isRecord(item.advancedOptions)) fileItem.advancedOptions = item.advancedOptions as FileItem['advancedOptions'];
    const bound = Array.isArray(item.integrationIds) ? item.integrationIds : [];
    const refs = bound.flatMap((id): { name: string; kind: string }[] => {
      const found = typeof id === 'string' ? integrations.rows.get(id) : undefined;
      if (!found || !asString(found.row.name) || !asString(found.row.kind)) {
        ctx.report.add(source, [...at, 'integrationIds'], itemObject, 'integrationIds', 'unmapped', `integration ${String(id)} is not in the instance's integration list: left out`);
        return [];
      }
      used.integrations.add(id as string);
      return [{ name: asString(found.row.name)!, kind: asString(found.row.kind)! }];
    });
    if (refs.length > 0) fileItem.integrations = refs as FileItem['integrations'];
    const positions = Array.isArray(item.layouts) ? item.layouts.filter(isRecord) : [];
    fileItem.layouts = positions.flatMap((p, n) => {
      const layout = typeof p.layoutId === 'string' ? layoutNameOf.get(p.layoutId) : undefined;
      if (!layout || typeof p.sectionId !== 'string' || !sectionIds.has(p.sectionId)) {
        ctx.report.add(source, [...at, 'layouts'], itemObject, 'layouts', 'unmapped', `a position on layout ${String(p.layoutId)} in section ${String(p.sectionId)}, which the board does not have: left out`);
        return [];
      }
      return [{ layout, sectionId: p.sectionId, ...cellsOf(source, [...at, 'layouts', n], p) }];
    });
    ctx.report.add(source, at, itemObject, '', 'mapped', `widget kind ${kind}${fileItem.app ? `, app "${fileItem.app.name}"` : ''}${refs.length ? `, bound to ${refs.map((r) => `${r.name} (${r.kind})`).join(', ')}` : ''}`);
    ctx.report.mappedFields(source, at, itemObject, item, { id: 'kept', kind: 'kept', options: 'kept (apps by their fields)', advancedOptions: 'kept', integrationIds: 'integrations by name and kind', layouts: 'positions kept' });
    reportOtherFields(ctx, source, at, itemObject, item, ['id', 'kind', 'options', 'advancedOptions', 'integrationIds', 'layouts']);
    items.push(fileItem);
  });

  const settings: Record<string, unknown> = {};
  for (const field of v1Settings) if (doc[field] !== undefined && doc[field] !== null) settings[field] = doc[field];
  for (const [field, why] of Object.entries(v1Unmapped)) if (doc[field] !== undefined) ctx.report.add(source, [field], object, field, 'unmapped', why);
  ctx.report.mappedFields(source, [], object, doc, {
    id: 'not kept: a board file names its board by name',
    name: 'the board name',
    isPublic: 'isPublic',
    ...Object.fromEntries(v1Settings.map((field) => [field, doc[field] === null ? `null: the board setting ${field} is left unset` : `the board setting ${field}`])),
  });
  reportOtherFields(ctx, source, [], object, doc, ['id', 'name', 'isPublic', 'layouts', 'sections', 'items', ...v1Settings, ...Object.keys(v1Unmapped)]);
  ctx.report.add(source, [], object, '', 'mapped', `board ${title}: ${sections.length} sections, ${items.length} items`);
  const file: BoardFile = {
    apiVersion: 'tessera/v1',
    kind: 'Board',
    name: boardNameOf(title, 'homarr'),
    isPublic: doc.isPublic === true,
    ...(Object.keys(settings).length > 0 ? { settings: settings as BoardFile['settings'] } : {}),
    layouts: fileLayouts,
    sections,
    items,
  };
  return { name: file.name, file };
}

/**
 * Converts a running Homarr v1 as read over its API (CONV-7): one board file per board, ids and positions as they
 * are, apps and integrations named by their fields (integrations without secrets: Homarr's list has none).
 */
export function convertHomarrApi(input: ConvertInput, options: ConvertOptions = {}): ConvertResult {
  const ctx = newContext(new SourceSet(input.read), options);
  const apps = byId(ctx, homarrApiFiles.apps, 'apps');
  const integrations = byId(ctx, homarrApiFiles.integrations, 'integrations');
  const boardFiles = input.files.filter((file) => /^boards\/\d+\.json$/.test(file)).sort();
  const used = { apps: new Set<string>(), integrations: new Set<string>() };
  const converted = boardFiles.map((file) => convertV1Board(ctx, ctx.sources.load(file, null), apps, integrations, used));
  for (const [id, { at, row }] of integrations.rows) {
    const name = asString(row.name) ?? id;
    ctx.report.add(integrations.source, at, `integration ${name}`, '', 'unmapped', `a ${asString(row.kind) ?? '?'} integration at ${asString(row.url) ?? '(no url)'}: create it in Tessera with the same name and kind${used.integrations.has(id) ? ' before applying (items are bound to it by name)' : ''}; its secrets are not read`);
  }
  for (const [id, { at, row }] of apps.rows) {
    if (used.apps.has(id)) continue;
    ctx.report.add(apps.source, at, `app ${asString(row.name) ?? id}`, '', 'unmapped', `used by no item of the boards read: not carried over (a board file brings apps with its items; create it in Tessera if you want it)`);
  }
  const names = boardNames(converted.map((board) => board.name), options.name);
  const boards = converted.map((board, index) => ({ ...board.file, name: names[index] }));
  return { boards, report: { format: 'homarr', files: ctx.sources.names(), boards: boards.map((board) => ({ name: board.name, file: `${board.name}.yaml` })), entries: ctx.report.entries } };
}
