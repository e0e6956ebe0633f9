/**
 * Glance to Tessera (CONV-1): each page of `glance.yml` becomes a board. The page's columns stand side by side as
 * dynamic sections (CONV-21), each holding its widgets and, as titled dynamic sections, its bookmarks groups and
 * monitors, one under another; a page with one column shows it as category sections. `group` and `split-column`
 * widgets are flattened into their column. `$include` is followed only inside the input directory (CONV-6).
 */
import { buildBoardFile, boardNameOf, columnWidths, defaultLayouts, type BoardFile, type DraftColumn, type DraftItem, type DraftSection } from './build';
import { appItem, asString, entryFile, keepWidget, newContext, reportOtherFields, widgetItem, type Context, type ConvertInput, type ConvertOptions, type ConvertResult } from './common';
import { glanceHsl } from './colors';
import { boardNames } from './names';
import { customSearch, searchEngines } from './search';
import { isRecord } from './report';
import { convertLimits, SourceSet, type PathKey, type SourceFile } from './source';

/** A value with the file and path it was written at (includes move values between files). */
interface Located {
  source: SourceFile;
  at: PathKey[];
  value: unknown;
}

const includeOf = (value: unknown): string | null => (isRecord(value) && Object.keys(value).length === 1 && typeof value.$include === 'string' ? value.$include : null);

/** Follows `$include` (possibly chained) to the value it names. */
function follow(ctx: Context, located: Located, depth = 0): Located {
  const include = includeOf(located.value);
  if (include === null) return located;
  if (depth >= convertLimits.depth) throw located.source.fail(located.at, `$include nested deeper than ${convertLimits.depth} levels`);
  const source = ctx.sources.load(include, { file: located.source, at: [...located.at, '$include'] });
  ctx.report.add(located.source, located.at, include, '$include', 'mapped', `included from ${source.name}`);
  return follow(ctx, { source, at: [], value: source.data }, depth + 1);
}

/** The entries of a list, an included file's list spliced in where an entry is an `$include`. */
function entries(ctx: Context, located: Located, what: string): Located[] {
  const list = follow(ctx, located);
  if (list.value === undefined || list.value === null) return [];
  if (!Array.isArray(list.value)) throw list.source.fail(list.at, `${what} must be a list`);
  return list.value.flatMap((value, index) => {
    const entry: Located = { source: list.source, at: [...list.at, index], value };
    if (includeOf(value) === null) return [entry];
    const included = follow(ctx, entry);
    return Array.isArray(included.value) ? entries(ctx, included, what) : [included];
  });
}

function record(located: Located, what: string): Record<string, unknown> {
  if (!isRecord(located.value)) throw located.source.fail(located.at, `${what} must be a map`);
  return located.value;
}

const commonWidgetFields: Record<string, string> = {
  'title': 'widget title: Tessera widgets have none',
  'title-url': 'widget title link: no Tessera equivalent',
  'cache': 'cache duration: Tessera widgets refresh on their own',
  'css-class': 'CSS class: use the board\'s custom CSS',
  'hide-header': 'header display: no Tessera equivalent',
};

/** What the widget fields that map became. */
const optionDetails: Record<string, string> = {
  'hour-format': 'is24HourFormat',
  'feeds': 'feedUrls (each feed\'s url)',
  'limit': 'maximumAmountPosts',
  'source': 'embedUrl (iframe) or content (html)',
};

interface Walk {
  ctx: Context;
  sections: DraftSection[];
  /** CONV-18: the web search the page's first search widget gave. */
  webSearchUrl?: string;
}

function links(walk: Walk, list: Located, section: DraftSection, object: string, kind: 'link' | 'site'): void {
  for (const entry of entries(walk.ctx, list, `${object}: ${kind === 'link' ? 'links' : 'sites'}`)) {
    const fields = record(entry, `a ${kind} of ${object}`);
    const title = asString(fields.title);
    if (!title) throw entry.source.fail(entry.at, `a ${kind} of ${object} needs a title`);
    const url = asString(fields.url);
    if (!url) throw entry.source.fail(entry.at, `${kind} "${title}" of ${object} needs a url`);
    const name = `${object} / ${title}`;
    section.items.push(
      appItem(walk.ctx, entry.source, entry.at, name, `${section.key}/${section.items.length}`, {
        name: title,
        href: url,
        description: asString(fields.description),
        icon: asString(fields.icon),
        pingUrl: kind === 'site' ? asString(fields['check-url']) ?? url : null,
        openInNewTab: fields['same-tab'] !== true,
        tile: true,
      }),
    );
    reportOtherFields(walk.ctx, entry.source, entry.at, name, fields, ['title', 'url', 'description', 'icon', 'check-url', 'same-tab'], (field) =>
      field === 'basic-auth' ? 'status-check credentials: Tessera pings without them (nothing copied)' : ['allow-insecure', 'alt-status-codes', 'timeout'].includes(field) ? 'status-check option: Tessera pings with a plain GET' : null,
    );
  }
}

/**
 * CONV-21: a widget item goes into the column's run of widgets after the last section its bookmarks or monitors
 * made (a new run when such a section came last), so that the column keeps Glance's order top to bottom.
 */
function place(walk: Walk, column: DraftSection, item: DraftItem): void {
  const last = walk.sections[walk.sections.length - 1];
  if (last && last.name === null) {
    last.items.push(item);
    return;
  }
  const runs = walk.sections.filter((section) => section.name === null).length;
  walk.sections.push({ key: runs === 0 ? column.key : `${column.key}/widgets:${runs}`, name: null, span: column.span, items: [item] });
}

/** One widget of a column: into the column's runs of widgets, or sections of its own (bookmarks, monitor). */
function widget(walk: Walk, located: Located, column: DraftSection, page: string): void {
  const { ctx } = walk;
  const fields = record(located, 'a widget');
  const type = asString(fields.type);
  if (!type) throw located.source.fail(located.at, 'a widget needs a type');
  const { source, at } = located;
  const object = `${page} / ${asString(fields.title) ?? type}`;
  const key = `${column.key}|${source.name}#${at.join('/')}`;
  const others = (handled: string[], why: (field: string) => string | null = () => null) =>
    reportOtherFields(ctx, source, at, object, fields, ['type', ...handled], (field) => why(field) ?? commonWidgetFields[field] ?? null);
  const mapped = (item: DraftItem, handled: string[], why?: (field: string) => string | null) => {
    place(walk, column, item);
    ctx.report.add(source, [...at, 'type'], object, 'type', 'mapped', `widget kind ${item.kind}`);
    ctx.report.mappedFields(source, at, object, fields, Object.fromEntries(handled.map((field) => [field, optionDetails[field] ?? 'mapped'])));
    others(handled, why);
  };
  switch (type) {
    case 'group':
    case 'split-column':
      ctx.report.add(source, [...at, 'type'], object, 'type', 'mapped', `${type}: its widgets are placed in the column's section`);
      for (const inner of entries(ctx, { source, at: [...at, 'widgets'], value: fields.widgets }, `${object}: widgets`)) widget(walk, inner, column, page);
      others(['widgets'], (field) => (field === 'max-columns' ? 'columns of a split column: the column\'s span applies' : null));
      return;
    case 'bookmarks':
      entries(ctx, { source, at: [...at, 'groups'], value: fields.groups }, `${object}: groups`).forEach((group, index) => {
        const groupFields = record(group, `a group of ${object}`);
        const name = asString(groupFields.title) ?? asString(fields.title) ?? 'Bookmarks';
        const section: DraftSection = { key: `${key}/group:${index}`, name, span: column.span, items: [] };
        walk.sections.push(section);
        ctx.report.add(group.source, group.at, name, '', 'mapped', 'a bookmarks group: a category section of apps');
        if (index === 0) ctx.report.add(source, [...at, 'type'], object, 'type', 'mapped', 'bookmarks: one category section of apps per group');
        links(walk, { source: group.source, at: [...group.at, 'links'], value: groupFields.links }, section, name, 'link');
        reportOtherFields(ctx, group.source, group.at, name, groupFields, ['title', 'links'], (field) => (field === 'color' ? 'group colour: no Tessera equivalent' : null));
      });
      others(['groups']);
      return;
    case 'monitor': {
      const name = asString(fields.title) ?? 'Monitor';
      const section: DraftSection = { key: `${key}/monitor`, name, span: column.span, items: [] };
      walk.sections.push(section);
      ctx.report.add(source, [...at, 'type'], object, 'type', 'mapped', 'a monitor: a category section of apps with their status check');
      links(walk, { source, at: [...at, 'sites'], value: fields.sites }, section, name, 'site');
      others(['sites', 'title'], (field) => (field === 'style' ? 'monitor style: no Tessera equivalent' : null));
      return;
    }
    case 'clock': {
      const hourFormat = asString(fields['hour-format']);
      mapped(widgetItem(key, 'clock', { is24HourFormat: hourFormat !== '12h' }, { width: 2, height: 1 }), ['hour-format'], (field) =>
        field === 'timezones' ? 'extra time zones: add one clock widget per zone' : null,
      );
      return;
    }
    case 'rss': {
      const listed = entries(ctx, { source, at: [...at, 'feeds'], value: fields.feeds }, `${object}: feeds`);
      const feeds = listed.map((feed) => (isRecord(feed.value) ? asString(feed.value.url) : null)).filter((url): url is string => url !== null);
      if (feeds.length === 0) break;
      for (const feed of listed) {
        const feedFields = isRecord(feed.value) ? feed.value : {};
        if (asString(feedFields.url) === null) ctx.report.add(feed.source, feed.at, object, 'feeds', 'unmapped', 'a feed without a url: left out');
        reportOtherFields(ctx, feed.source, feed.at, object, feedFields, ['url'], (field) =>
          field === 'title' ? 'feed title: Tessera shows the titles the feed gives' : 'feed option: no Tessera equivalent',
        );
      }
      const limit = typeof fields.limit === 'number' ? { maximumAmountPosts: fields.limit } : {};
      mapped(widgetItem(key, 'rssFeed', { feedUrls: feeds, ...limit }, { width: 3, height: 3 }), ['feeds', 'limit'], (field) =>
        field === 'style' || field === 'collapse-after' ? 'display option: no Tessera equivalent' : null,
      );
      return;
    }
    case 'iframe': {
      const url = asString(fields.source);
      if (!url) break;
      mapped(widgetItem(key, 'iframe', { embedUrl: url }, { width: 4, height: 3 }), ['source'], (field) => (field === 'height' ? 'height: the item\'s grid height sets it' : null));
      return;
    }
    case 'html': {
      const html = asString(fields.source);
      if (html === null) break;
      mapped(widgetItem(key, 'notebook', { content: html, showToolbar: false }, { width: 2, height: 2 }), ['source']);
      return;
    }
    case 'search': {
      // CONV-18: the board's own search box takes the widget's engine for what matches no app.
      const engine = asString(fields['search-engine']) ?? 'duckduckgo';
      const template = /^https?:/i.test(engine) ? customSearch(engine, 'glance') : searchEngines[engine.toLowerCase()] ?? null;
      if (!template || walk.webSearchUrl) break;
      walk.webSearchUrl = template;
      ctx.report.add(source, [...at, 'type'], object, 'type', 'mapped', `the board's web search (webSearchUrl ${template}${fields['search-engine'] === undefined ? ', Glance\'s default engine' : ''}): the board page's search box, for terms no app matches`);
      if (fields['search-engine'] !== undefined) ctx.report.add(source, [...at, 'search-engine'], object, 'search-engine', 'mapped', 'webSearchUrl');
      others(['search-engine'], (field) => (field === 'bangs' ? 'bangs (shortcuts to other engines): no Tessera equivalent' : 'search box option: the board page\'s search box has its own behaviour'));
      return;
    }
    case 'docker-containers':
      mapped(widgetItem(key, 'dockerContainers', {}, { width: 4, height: 3 }), [], (field) =>
        ['sock-path', 'hide-by-default', 'running-only', 'category'].includes(field) ? 'Docker option: Tessera\'s widget reads its own Docker configuration' : null,
      );
      return;
  }
  keepWidget(ctx, source, at, object, type, fields, type === 'weather' ? 'a location by name: Tessera\'s weather widget needs latitude and longitude' : 'Tessera has no widget of this kind (or it needs an integration)');
}

function page(ctx: Context, located: Located, index: number): { title: string; board: Omit<Parameters<typeof buildBoardFile>[0], 'name'> } {
  const fields = record(located, 'a page');
  const title = asString(fields.name);
  if (!title) throw located.source.fail(located.at, 'a page needs a name');
  const walk: Walk = { ctx, sections: [] };
  const top: DraftSection = { key: `page:${index}/head`, name: null, items: [] };
  for (const head of entries(ctx, { source: located.source, at: [...located.at, 'head-widgets'], value: fields['head-widgets'] }, `${title}: head-widgets`)) {
    widget(walk, head, top, title);
  }
  // The head widgets' items are the top area's; the sections their bookmarks and monitors made follow it.
  const sections: DraftSection[] = [{ ...top, items: walk.sections.flatMap((part) => (part.name === null ? part.items : [])) }, ...walk.sections.filter((part) => part.name !== null)];
  const columnsAt = { source: located.source, at: [...located.at, 'columns'], value: fields.columns };
  const columns = entries(ctx, columnsAt, `${title}: columns`);
  if (columns.length === 0) throw located.source.fail(located.at, `page "${title}" needs columns`);
  // Glance refuses a page of more than three columns (its documentation: one to three, at most two of them full).
  if (columns.length > 3) throw located.source.fail(columns[3].at, `page "${title}" has ${columns.length} columns: Glance allows at most 3`);
  const walked = columns.map((columnAt, columnIndex) => {
    const column = record(columnAt, 'a column');
    const size: 'small' | 'full' = asString(column.size) === 'small' ? 'small' : 'full';
    const section: DraftSection = { key: `page:${index}/column:${columnIndex}`, name: `${title} column ${columnIndex + 1}`, span: null, items: [] };
    walk.sections = [];
    for (const entry of entries(ctx, { source: columnAt.source, at: [...columnAt.at, 'widgets'], value: column.widgets }, `${section.name}: widgets`)) widget(walk, entry, section, title);
    reportOtherFields(ctx, columnAt.source, columnAt.at, section.name!, column, ['size', 'widgets']);
    return { columnAt, column, size, section, parts: walk.sections };
  });
  const shown = walked.filter((column) => column.parts.length > 0);
  const wide = defaultLayouts[defaultLayouts.length - 1].columnCount;
  const widths = columnWidths(wide, shown.map((column) => column.size));
  for (const { columnAt, column, size, section, parts } of walked) {
    const at = column.size === undefined ? columnAt.at : [...columnAt.at, 'size'];
    const field = column.size === undefined ? '' : 'size';
    const odd = column.size !== undefined && column.size !== 'small' && column.size !== 'full' ? ` (${JSON.stringify(column.size)} taken as full)` : '';
    const detail =
      parts.length === 0
        ? `a ${size} column: nothing in it has a Tessera counterpart (left out)`
        : shown.length === 1
          ? `a ${size} column, the page's only one shown: its widgets a category section across the board, its bookmarks groups and monitors categories of their own`
          : `a ${size} column: a dynamic section beside the page's other columns (${widths[shown.findIndex((c) => c.section === section)]} of ${wide} columns on the desktop layout, the whole width one under another on the phone's), its widgets, bookmarks groups and monitors one under another inside it`;
    ctx.report.add(columnAt.source, at, section.name!, field, 'mapped', `${detail}${odd}`);
  }
  if (shown.length === 1) {
    // A lone column: its widgets one category section across the board, before the sections its bookmarks and monitors made.
    const [{ section, parts }] = shown;
    const items = parts.flatMap((part) => (part.name === null ? part.items : []));
    if (items.length > 0) sections.push({ ...section, items });
    sections.push(...parts.filter((part) => part.name !== null));
  } else if (shown.length > 1) {
    // CONV-21: Glance's columns side by side, each its widgets and sections one under another.
    const row: DraftColumn[] = shown.map(({ section, size, parts }) => ({ key: `${section.key}/column`, size, parts }));
    sections.push({ key: `page:${index}/columns`, name: null, items: [], columns: row });
  }
  const settings: Record<string, unknown> = { pageTitle: title, ...(walk.webSearchUrl ? { webSearchUrl: walk.webSearchUrl } : {}) };
  reportOtherFields(ctx, located.source, located.at, title, fields, ['name', 'columns', 'head-widgets'], (field) =>
    ['width', 'center-vertically', 'hide-desktop-navigation', 'show-mobile-header', 'expand-mobile-page-navigation', 'desktop-navigation-width'].includes(field) ? 'page display option: no Tessera equivalent' : field === 'slug' ? 'page address: the board name is made from the page name' : null,
  );
  return { title, board: { settings, sections } };
}

const themeWhy: Record<string, string> = {
  'background-color': 'background colour: Tessera\'s light and dark schemes draw their own background',
  'positive-color': 'status colour: Tessera\'s schemes draw their own',
  'negative-color': 'status colour: Tessera\'s schemes draw their own',
  'contrast-multiplier': 'contrast adjustment: no Tessera equivalent',
  'text-saturation-multiplier': 'text colour adjustment: no Tessera equivalent',
  'custom-css-file': 'a custom style sheet file: not read; put its rules in the board\'s customCss by hand',
  'presets': 'theme presets the viewer picks from: Tessera offers light, dark and the system\'s scheme',
  'disable-picker': 'the viewer may always choose light or dark on the board page',
};

/**
 * CONV-16: Glance's `theme` (every page's) as colorScheme (`light: true` is light, any other theme Glance's dark) and
 * its `primary-color` (`H S L`) as primaryColor; the rest reported.
 */
function themeSettings(ctx: Context, located: Located): Record<string, unknown> {
  const { source, at } = located;
  if (!isRecord(located.value)) {
    ctx.report.placeholders(source, at, 'theme', '', located.value);
    ctx.report.add(source, at, 'theme', '', 'unmapped', 'not a map of theme fields: the board follows the viewer\'s system (colorScheme auto)');
    return {};
  }
  const fields = located.value;
  const out: Record<string, unknown> = { colorScheme: fields.light === true ? 'light' : 'dark' };
  ctx.report.add(source, fields.light === undefined ? at : [...at, 'light'], 'theme', fields.light === undefined ? '' : 'light', 'mapped', `colorScheme: ${out.colorScheme}${fields.light === undefined ? ' (Glance\'s themes are dark unless light is set)' : ''}`);
  const primary = asString(fields['primary-color']);
  if (primary !== null) {
    const hex = glanceHsl(primary);
    if (hex) {
      out.primaryColor = hex;
      ctx.report.add(source, [...at, 'primary-color'], 'theme', 'primary-color', 'mapped', `primaryColor ${hex}`);
    } else {
      ctx.report.add(source, [...at, 'primary-color'], 'theme', 'primary-color', 'unmapped', `${primary}: not Glance's "hue saturation lightness"`);
    }
  }
  reportOtherFields(ctx, source, at, 'theme', fields, ['light', 'primary-color'], (field) => themeWhy[field] ?? null);
  return out;
}

/** Converts a Glance `glance.yml` (with its includes): one board per page. */
export function convertGlance(input: ConvertInput, options: ConvertOptions = {}): ConvertResult {
  const ctx = newContext(new SourceSet(input.read), options);
  const entry = entryFile(input, 'glance', 'glance');
  const main = ctx.sources.load(entry, null);
  const root = follow(ctx, { source: main, at: [], value: main.data });
  const fields = record(root, 'glance.yml');
  const pages = entries(ctx, { source: root.source, at: [...root.at, 'pages'], value: fields.pages }, 'pages');
  if (pages.length === 0) throw root.source.fail(root.at, 'glance.yml needs pages');
  const drafts = pages.map((located, index) => page(ctx, located, index));
  if (fields.theme !== undefined) {
    const theme = themeSettings(ctx, follow(ctx, { source: root.source, at: [...root.at, 'theme'], value: fields.theme }));
    for (const draft of drafts) draft.board.settings = { ...draft.board.settings, ...theme };
  }
  reportOtherFields(ctx, root.source, root.at, 'glance.yml', fields, ['pages', 'theme'], (field) =>
    field === 'auth' ? 'authentication: Tessera has its own users, groups and API keys (nothing of it copied)' : field === 'server' ? 'server settings: configure Tessera\'s own' : null,
  );
  const names = boardNames(drafts.map((draft) => boardNameOf(draft.title, 'glance')), options.name);
  const boards: BoardFile[] = drafts.map((draft, index) => buildBoardFile({ name: names[index], ...draft.board }));
  return { boards, report: { format: 'glance', files: ctx.sources.names(), boards: names.map((name) => ({ name, file: `${name}.yaml` })), entries: ctx.report.entries } };
}
