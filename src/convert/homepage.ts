/**
 * homepage (gethomepage) to Tessera (CONV-1): `services.yaml`, `bookmarks.yaml`, `widgets.yaml` and
 * `settings.yaml` of one instance become one board. Groups become category sections (nested groups follow their
 * parent as `Parent / Child`), services and bookmarks app items, info widgets Tessera widgets where a kind exists.
 */
import path from 'node:path';
import { buildBoardFile, boardNameOf, type DraftItem, type DraftSection } from './build';
import { appItem, asString, keepWidget, newContext, reportOtherFields, widgetItem, type Context, type ConvertInput, type ConvertOptions, type ConvertResult } from './common';
import { isRecord } from './report';
import { customSearch, searchEngines } from './search';
import { ConvertError, SourceSet, type PathKey, type SourceFile } from './source';

const knownFiles = ['services', 'bookmarks', 'widgets', 'settings'] as const;
/** homepage files that describe discovery or styling Tessera does not take over. */
const otherFiles: Record<string, string> = {
  docker: 'Docker discovery: not a file Tessera reads; `tessera discover docker` reads the homepage.* labels themselves (DISC-*)',
  kubernetes: 'Kubernetes discovery (gethomepage.dev/* annotations): not a file Tessera reads',
  proxmox: 'Proxmox connection for status: configure a proxmox integration in Tessera',
  custom: 'custom CSS/JS: set customCss in the board settings by hand',
};

/** homepage service widget types and what Tessera offers instead (an integration kind and a widget kind). */
export const serviceWidgets: Record<string, [integration: string, widget: string]> = {
  emby: ['emby', 'mediaServer'],
  jellyfin: ['jellyfin', 'mediaServer'],
  plex: ['plex', 'mediaServer'],
  sonarr: ['sonarr', 'calendar'],
  radarr: ['radarr', 'calendar'],
  lidarr: ['lidarr', 'calendar'],
  readarr: ['readarr', 'calendar'],
  sabnzbd: ['sabNzbd', 'downloads'],
  nzbget: ['nzbGet', 'downloads'],
  qbittorrent: ['qBittorrent', 'downloads'],
  transmission: ['transmission', 'downloads'],
  deluge: ['deluge', 'downloads'],
  pihole: ['piHole', 'dnsHoleSummary'],
  adguard: ['adGuardHome', 'dnsHoleSummary'],
  uptimekuma: ['uptimeKuma', 'uptimeKuma'],
  prowlarr: ['prowlarr', 'indexerManager'],
  overseerr: ['overseerr', 'mediaRequests-requestList'],
  jellyseerr: ['jellyseerr', 'mediaRequests-requestList'],
  tdarr: ['tdarr', 'mediaTranscoding'],
  proxmox: ['proxmox', 'healthMonitoring'],
  glances: ['glances', 'systemResources'],
  homeassistant: ['homeAssistant', 'smartHome-entityState'],
  unifi: ['unifiController', 'networkControllerSummary'],
  opnsense: ['opnsense', 'firewall'],
  gluetun: ['gluetun', 'vpn'],
  immich: ['immich', 'immich-serverStats'],
  paperlessngx: ['paperlessNgx', 'paperlessNgx'],
  speedtest: ['speedtestTracker', 'speedtestTracker'],
  traefik: ['traefik', 'traefik'],
};

const discovery: Record<string, string> = {
  server: 'Docker discovery (docker.yaml server): `tessera discover docker` reads the engine at DOCKER_HOST instead',
  container: 'Docker container status: Tessera does not read Docker',
  showStats: 'Docker container stats: Tessera does not read Docker',
  namespace: 'Kubernetes discovery: Tessera does not read Kubernetes',
  app: 'Kubernetes discovery: Tessera does not read Kubernetes',
  podSelector: 'Kubernetes discovery: Tessera does not read Kubernetes',
  statusStyle: 'status display style: Tessera shows one status dot',
  weight: 'ordering weight: items keep the order of the file',
  ping: 'host ping (ICMP): Tessera pings http(s) addresses only (siteMonitor maps)',
};

interface GroupLayout {
  span: number | null;
  tab: string | null;
  /** `style: row`: a group across the page rather than a column beside others (CONV-19). */
  row?: boolean;
}

interface Walk {
  ctx: Context;
  sections: DraftSection[];
  layouts: Record<string, unknown>;
  /** Names of `layout:` that a group took. */
  laidOut: Set<string>;
  defaultNewTab: boolean;
  /** CONV-18: the web search the first search widget gave. */
  webSearchUrl?: string;
}

function groupLayout(walk: Walk, settings: SourceFile | null, name: string): GroupLayout {
  const entry = walk.layouts[name];
  if (!settings || !(name in walk.layouts)) return { span: null, tab: null };
  const at = ['layout', name];
  // One entry lays out every group of that name (services and bookmarks alike); it is reported once.
  const first = !walk.laidOut.has(name);
  walk.laidOut.add(name);
  if (!isRecord(entry)) {
    if (first && entry !== null) walk.ctx.report.add(settings, at, name, '', 'unmapped', 'not a map of layout options');
    return { span: null, tab: null };
  }
  // CONV-15: a row shows `columns` services a row (4 unless told); a column (homepage's default) one under another in
  // a column of the page, beside the other groups (CONV-19: a dynamic section beside its neighbours).
  const columns = typeof entry.columns === 'number' && entry.columns >= 1 ? Math.floor(entry.columns) : null;
  const span = entry.style === 'row' ? columns ?? 4 : columns;
  const row = entry.style === 'row';
  if (!first) return { span, tab: typeof entry.tab === 'string' ? entry.tab : null, row };
  if (columns !== null) walk.ctx.report.add(settings, [...at, 'columns'], name, 'columns', 'mapped', `${columns} app tiles a row on the desktop layout (2 on the phone's)`);
  else if (entry.columns !== undefined) walk.ctx.report.add(settings, [...at, 'columns'], name, 'columns', 'unmapped', `not a number from 1: ${span ?? 4} app tiles a row`);
  if (entry.style !== undefined) {
    walk.ctx.report.add(settings, [...at, 'style'], name, 'style', 'mapped', entry.style === 'row'
      ? `a row: a section across the board, ${span} app tiles a row on the desktop layout`
      : `a column: beside the column groups next to it on the desktop layout (CONV-19), ${span ?? 4} app tiles a row where it is a section of its own`);
  }
  reportOtherFields(walk.ctx, settings, at, name, entry, ['style', 'columns'], (field) =>
    field === 'tab' ? 'tabs: Tessera has no tabs, the group is on the same board' : field === 'header' || field === 'icon' || field === 'iconsOnly' || field === 'initiallyCollapsed' ? 'group display option: no Tessera equivalent' : null,
  );
  return { span, tab: typeof entry.tab === 'string' ? entry.tab : null, row };
}

/** A one-key map `{name: value}` of homepage's lists, or null. */
function oneKey(value: unknown): [string, unknown] | null {
  if (!isRecord(value)) return null;
  const keys = Object.keys(value);
  return keys.length === 1 ? [keys[0], value[keys[0]]] : null;
}

function serviceWidget(walk: Walk, source: SourceFile, at: PathKey[], object: string, widget: unknown): void {
  if (!isRecord(widget) || typeof widget.type !== 'string') {
    walk.ctx.report.add(source, at, object, 'widget', 'unmapped', 'a widget without a type');
    return;
  }
  const offer = serviceWidgets[widget.type.toLowerCase()];
  const why = offer
    ? `needs an integration: create an integration of kind ${offer[0]} (url, key), then add a ${offer[1]} widget bound to it`
    : 'Tessera has no widget of this kind';
  if (Array.isArray(widget.fields)) walk.ctx.report.add(source, [...at, 'fields'], object, 'widget.fields', 'unmapped', 'field selection: Tessera widgets choose their own fields');
  if (isRecord(widget.headers)) walk.ctx.report.add(source, [...at, 'headers'], object, 'widget.headers', 'unmapped', 'request headers of the status or API call: no Tessera equivalent');
  keepWidget(walk.ctx, source, at, object, widget.type, widget, why);
}

function service(walk: Walk, source: SourceFile, at: PathKey[], group: string, name: string, fields: Record<string, unknown>, items: DraftItem[]): void {
  const object = `${group} / ${name}`;
  const href = asString(fields.href);
  const target = asString(fields.target);
  const siteMonitor = asString(fields.siteMonitor);
  items.push(
    appItem(walk.ctx, source, at, object, `service:${group}/${name}`, {
      name,
      href,
      description: asString(fields.description),
      icon: asString(fields.icon),
      pingUrl: siteMonitor,
      openInNewTab: target ? target === '_blank' : walk.defaultNewTab,
      tile: true,
    }),
  );
  if (siteMonitor) walk.ctx.report.add(source, [...at, 'siteMonitor'], object, 'siteMonitor', 'mapped', 'the app ping URL');
  const widgets = [...(fields.widget !== undefined ? [[['widget'], fields.widget] as const] : []), ...(Array.isArray(fields.widgets) ? fields.widgets.map((w, i) => [['widgets', i], w] as const) : [])];
  for (const [where, widget] of widgets) serviceWidget(walk, source, [...at, ...where], object, widget);
  reportOtherFields(walk.ctx, source, at, object, fields, ['href', 'description', 'icon', 'target', 'siteMonitor', 'widget', 'widgets'], (field) => discovery[field] ?? null);
}

/** A group of services.yaml (and its nested groups, which follow it). */
function group(walk: Walk, source: SourceFile, settings: SourceFile | null, at: PathKey[], name: string, entries: unknown, kind: 'services' | 'bookmarks', parent: string | null): void {
  const title = parent ? `${parent} / ${name}` : name;
  if (!Array.isArray(entries)) throw source.fail(at, `group "${title}" must be a list of ${kind === 'services' ? 'services' : 'bookmarks'}`);
  const layout = groupLayout(walk, settings, name);
  // CONV-19: homepage sets column groups (its default) of one file and tab side by side; a row group stands alone.
  const section: DraftSection = { key: `${kind}:${title}`, name: title, span: layout.span, row: layout.row ? null : `${kind}:${layout.tab ?? ''}`, items: [] };
  walk.sections.push(section);
  if (parent) walk.ctx.report.add(source, at, title, '', 'mapped', `nested group: a section after its parent "${parent}"`);
  else walk.ctx.report.add(source, at, title, '', 'mapped', 'a category section, or a dynamic section titled with its name beside the column groups next to it (CONV-19)');
  entries.forEach((entry, index) => {
    const where = [...at, index];
    const pair = oneKey(entry);
    if (!pair) throw source.fail(where, `each entry of group "${title}" must be a map with one key (the ${kind === 'services' ? 'service' : 'bookmark'} name)`);
    const [entryName, value] = pair;
    const inner = [...where, entryName];
    if (kind === 'services') {
      if (Array.isArray(value)) group(walk, source, settings, inner, entryName, value, kind, title);
      else if (isRecord(value)) service(walk, source, inner, title, entryName, value, section.items);
      else throw source.fail(inner, `service "${entryName}" must be a map of fields (or a list: a nested group)`);
      return;
    }
    // bookmarks: each name maps to a one-element list holding the fields.
    const fields = Array.isArray(value) && value.length === 1 && isRecord(value[0]) ? value[0] : null;
    if (!fields) throw source.fail(inner, `bookmark "${entryName}" must be a list of one map with href`);
    const fieldsAt = [...inner, 0];
    const href = asString(fields.href);
    if (!href) throw source.fail(fieldsAt, `bookmark "${entryName}" needs href`);
    const object = `${title} / ${entryName}`;
    section.items.push(
      appItem(walk.ctx, source, fieldsAt, object, `bookmark:${title}/${entryName}`, {
        name: entryName,
        href,
        description: asString(fields.description),
        icon: asString(fields.icon),
        openInNewTab: walk.defaultNewTab,
        tile: true,
      }),
    );
    reportOtherFields(walk.ctx, source, fieldsAt, object, fields, ['href', 'description', 'icon'], (field) =>
      field === 'abbr' ? 'abbreviation: the page shows the first letter of the name when it cannot show the icon' : null,
    );
  });
}

/**
 * The groups of services.yaml or bookmarks.yaml, in homepage's order: the groups `layout:` names first, in its
 * order, then the others in the file's order.
 */
function groupList(walk: Walk, source: SourceFile, settings: SourceFile | null, kind: 'services' | 'bookmarks'): void {
  if (source.data === null || source.data === undefined) return;
  if (!Array.isArray(source.data)) throw source.fail([], `${kind}.yaml must be a list of groups ({Group name: [...]})`);
  const order = Object.keys(walk.layouts);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const groups = source.data.map((entry, index) => {
    const pair = oneKey(entry);
    if (!pair) throw source.fail([index], `each group of ${kind}.yaml must be a map with one key (the group name)`);
    return { index, pair };
  });
  groups.sort((a, b) => rank(a.pair[0]) - rank(b.pair[0]) || a.index - b.index);
  for (const { index, pair } of groups) group(walk, source, settings, [index, pair[0]], pair[0], pair[1], kind, null);
}

const number = (value: unknown) => (typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)) ? Number(value) : null);

/** An info widget of widgets.yaml as a Tessera widget, or kept in the report. */
function infoWidget(walk: Walk, source: SourceFile, at: PathKey[], type: string, options: Record<string, unknown>, top: DraftItem[]): void {
  const key = `widget:${at.join('/')}`;
  const { ctx } = walk;
  const mapped = (item: DraftItem, handled: string[], why: (field: string) => string | null = () => null) => {
    top.push(item);
    ctx.report.add(source, at, type, '', 'mapped', `widget kind ${item.kind}`);
    reportOtherFields(ctx, source, at, type, options, handled, why);
  };
  switch (type) {
    case 'datetime': {
      const format = isRecord(options.format) ? options.format : {};
      const timeStyle = asString(format.timeStyle);
      mapped(widgetItem(key, 'clock', { is24HourFormat: format.hour12 !== true, showSeconds: timeStyle === 'medium' || timeStyle === 'long', showDate: format.dateStyle !== undefined }, { width: 2, height: 1 }), ['format'], (field) =>
        field === 'locale' ? 'locale: the page uses the browser language' : null,
      );
      const formatAt = [...at, 'format'];
      ctx.report.mappedFields(source, formatAt, type, format, { hour12: 'is24HourFormat (its opposite)', timeStyle: 'showSeconds (medium or long)', dateStyle: 'showDate' }, 'format.');
      reportOtherFields(ctx, source, formatAt, type, format, ['hour12', 'timeStyle', 'dateStyle'], () => 'date and time format option: the page formats with the browser language', 'format.');
      return;
    }
    case 'openmeteo':
    case 'openweathermap':
    case 'weatherapi': {
      const latitude = number(options.latitude);
      const longitude = number(options.longitude);
      if (latitude === null || longitude === null) {
        keepWidget(ctx, source, at, type, type, options, 'a weather widget needs latitude and longitude');
        return;
      }
      const location = { name: asString(options.label) ?? 'Weather', latitude, longitude };
      mapped(widgetItem(key, 'weather', { location, isFormatFahrenheit: options.units === 'imperial', hasForecast: false }, { width: 2, height: 2 }), ['label', 'latitude', 'longitude', 'units'], (field) =>
        field === 'apiKey' ? 'weather API key: Tessera needs none (placeholder or secret not copied)' : null,
      );
      ctx.report.mappedFields(source, at, type, options, { label: 'location.name', latitude: 'location.latitude', longitude: 'location.longitude', units: 'isFormatFahrenheit (imperial)' });
      return;
    }
    case 'greeting':
      mapped(widgetItem(key, 'notebook', { content: asString(options.text) ?? '', showToolbar: false }, { width: 2, height: 1 }), ['text']);
      return;
    case 'search': {
      // CONV-18: the board's own search box takes the widget's engine for what matches no app.
      const provider = Array.isArray(options.provider) ? asString(options.provider[0]) : asString(options.provider);
      const custom = asString(options.url);
      const template = provider === 'custom' ? (custom ? customSearch(custom, 'append') : null) : provider ? searchEngines[provider.toLowerCase()] ?? null : null;
      if (!template || walk.webSearchUrl) {
        keepWidget(ctx, source, at, type, type, options, template ? 'a second search widget: the board has one web search (the first)' : 'a search provider Tessera cannot turn into a web search URL');
        return;
      }
      walk.webSearchUrl = template;
      ctx.report.add(source, at, type, '', 'mapped', `the board's web search (webSearchUrl ${template}): the board page's search box, for terms no app matches`);
      reportOtherFields(ctx, source, at, type, options, ['provider', ...(provider === 'custom' ? ['url'] : [])], (field) =>
        field === 'provider' ? 'further providers: the board has one web search (the first)' : 'search box option: the board page\'s search box has its own behaviour',
      );
      return;
    }
    default:
      keepWidget(ctx, source, at, type, type, options, 'Tessera has no widget of this kind (or it needs an integration)');
  }
}

function widgetsFile(walk: Walk, source: SourceFile, top: DraftItem[]): void {
  if (source.data === null || source.data === undefined) return;
  if (!Array.isArray(source.data)) throw source.fail([], 'widgets.yaml must be a list of widgets ({type: {options}})');
  source.data.forEach((entry, index) => {
    const pair = oneKey(entry);
    if (!pair) throw source.fail([index], 'each widget of widgets.yaml must be a map with one key (the widget type)');
    const options = pair[1] === null ? {} : pair[1];
    if (!isRecord(options)) throw source.fail([index, pair[0]], `the options of widget "${pair[0]}" must be a map`);
    infoWidget(walk, source, [index, pair[0]], pair[0], options, top);
  });
}

const settingsHandled = ['title', 'favicon', 'background', 'layout', 'target', 'theme', 'color'];

/** homepage's `color` palettes (Tailwind's), by the palette's 500 shade: the board's primary colour (CONV-16). */
const palettes: Record<string, string> = {
  slate: '#64748b', gray: '#6b7280', zinc: '#71717a', neutral: '#737373', stone: '#78716c', red: '#ef4444', orange: '#f97316',
  amber: '#f59e0b', yellow: '#eab308', lime: '#84cc16', green: '#22c55e', emerald: '#10b981', teal: '#14b8a6', cyan: '#06b6d4',
  sky: '#0ea5e9', blue: '#3b82f6', indigo: '#6366f1', violet: '#8b5cf6', purple: '#a855f7', fuchsia: '#d946ef', pink: '#ec4899',
  rose: '#f43f5e',
};

/** CONV-16: homepage's `theme` (dark, light) as the board's colour scheme, `color` as its primary colour. */
function themeSettings(ctx: Context, settings: SourceFile, data: Record<string, unknown>, out: Record<string, unknown>): void {
  if (data.theme !== undefined) {
    const theme = asString(data.theme);
    if (theme === 'dark' || theme === 'light') {
      out.colorScheme = theme;
      ctx.report.add(settings, ['theme'], 'settings', 'theme', 'mapped', `colorScheme: ${theme} (a viewer may still choose the other scheme on the page)`);
    } else {
      ctx.report.add(settings, ['theme'], 'settings', 'theme', 'unmapped', `${String(data.theme)}: homepage knows dark and light only; the board follows the viewer's system (colorScheme auto)`);
    }
  }
  if (data.color !== undefined) {
    const color = asString(data.color);
    const shade = color ? palettes[color.toLowerCase()] : undefined;
    if (shade) {
      out.primaryColor = shade;
      ctx.report.add(settings, ['color'], 'settings', 'color', 'mapped', `primaryColor ${shade} (the ${color} palette's middle shade; homepage tints the whole page with it, Tessera its accents)`);
    } else {
      ctx.report.add(settings, ['color'], 'settings', 'color', 'unmapped', `${String(data.color)}: no palette with a colour Tessera can take as its primary colour`);
    }
  }
}

function boardSettings(ctx: Context, settings: SourceFile | null): Record<string, unknown> {
  if (!settings || !isRecord(settings.data)) return {};
  const data = settings.data;
  const out: Record<string, unknown> = {};
  const title = asString(data.title);
  if (title) {
    out.pageTitle = title.slice(0, 2048);
    ctx.report.add(settings, ['title'], 'settings', 'title', 'mapped', 'the page title');
  }
  const favicon = asString(data.favicon);
  if (favicon) {
    out.faviconImageUrl = favicon.slice(0, 2048);
    ctx.report.add(settings, ['favicon'], 'settings', 'favicon', 'mapped', 'the favicon');
  }
  const background = isRecord(data.background) ? asString(data.background.image) : asString(data.background);
  if (background) {
    out.backgroundImageUrl = background.slice(0, 2048);
    ctx.report.add(settings, ['background'], 'settings', 'background', 'mapped', 'the background image');
  }
  themeSettings(ctx, settings, data, out);
  if (data.target !== undefined) ctx.report.add(settings, ['target'], 'settings', 'target', 'mapped', 'whether apps open in a new tab');
  reportOtherFields(ctx, settings, [], 'settings', data, settingsHandled, (field) =>
    field === 'providers' ? 'provider API keys: configure integrations in Tessera' : field === 'quicklaunch' ? 'quick launch search: no Tessera equivalent' : null,
  );
  return out;
}

/** Converts one homepage configuration directory (or the files named) to one board. */
export function convertHomepage(input: ConvertInput, options: ConvertOptions = {}): ConvertResult {
  const ctx = newContext(new SourceSet(input.read), options);
  const byKind = new Map<string, string>();
  for (const file of input.files) {
    const base = path.posix.basename(file).replace(/\.(ya?ml)$/i, '');
    if ((knownFiles as readonly string[]).includes(base) && /\.ya?ml$/i.test(file)) byKind.set(base, file);
  }
  if (!byKind.has('services') && !byKind.has('bookmarks') && !byKind.has('widgets')) {
    throw new ConvertError(input.files.join(', ') || '(no files)', null, null, 'homepage: none of services.yaml, bookmarks.yaml or widgets.yaml among the input files');
  }
  const load = (kind: string) => (byKind.has(kind) ? ctx.sources.load(byKind.get(kind)!, null) : null);
  const settings = load('settings');
  if (settings && settings.data !== null && !isRecord(settings.data)) throw settings.fail([], 'settings.yaml must be a map');
  const settingsData = isRecord(settings?.data) ? settings.data : {};
  const walk: Walk = {
    ctx,
    sections: [],
    layouts: isRecord(settingsData.layout) ? settingsData.layout : {},
    laidOut: new Set(),
    defaultNewTab: (asString(settingsData.target) ?? '_blank') === '_blank',
  };
  const top: DraftItem[] = [];
  const widgets = load('widgets');
  if (widgets) widgetsFile(walk, widgets, top);
  const services = load('services');
  if (services) groupList(walk, services, settings, 'services');
  const bookmarks = load('bookmarks');
  if (bookmarks) groupList(walk, bookmarks, settings, 'bookmarks');
  const boardSettingsValue = boardSettings(ctx, settings);
  for (const name of Object.keys(walk.layouts)) {
    if (!walk.laidOut.has(name)) ctx.report.add(settings!, ['layout', name], name, '', 'unmapped', 'names no group of services.yaml or bookmarks.yaml: nothing to lay out');
  }

  for (const file of input.files) {
    const base = path.posix.basename(file).replace(/\.[a-z]+$/i, '');
    if (otherFiles[base]) ctx.report.entries.push({ file, at: '', object: file, field: '', status: 'unmapped', detail: otherFiles[base] });
  }
  const name = options.name ?? boardNameOf(asString(settingsData.title) ?? 'homepage', 'homepage');
  if (walk.webSearchUrl) boardSettingsValue.webSearchUrl = walk.webSearchUrl;
  const board = buildBoardFile({ name, settings: boardSettingsValue, sections: [{ key: 'top', name: null, items: top }, ...walk.sections] });
  return { boards: [board], report: { format: 'homepage', files: ctx.sources.names(), boards: [{ name, file: `${name}.yaml` }], entries: ctx.report.entries } };
}
