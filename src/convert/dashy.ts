/**
 * Dashy to Tessera (CONV-1): `conf.yml` and each of its local sub-pages become one board each. Sections become
 * category sections, items (and their sub-items) app items, nav links app items at the top, widgets Tessera widgets
 * where a kind exists. Sub-pages are read only inside the input directory (CONV-6).
 */
import { buildBoardFile, boardNameOf, type BoardFile, type DraftItem, type DraftSection } from './build';
import { appItem, asString, entryFile, keepWidget, newContext, reportOtherFields, widgetItem, type Context, type ConvertInput, type ConvertOptions, type ConvertResult } from './common';
import { isRecord } from './report';
import { SourceSet, type PathKey, type SourceFile } from './source';
import { boardNames } from './names';
import { customSearch, searchEngines } from './search';

const visibility = ['hideForUsers', 'showForUsers', 'hideForGuests', 'hideForKeycloakUsers', 'showForKeycloakUsers'];
const visibilityWhy = 'per-user visibility: Tessera decides who sees a board with board permissions, not per section or item';

function sectionDisplay(ctx: Context, source: SourceFile, at: PathKey[], object: string, display: unknown): number | null {
  if (!isRecord(display)) return null;
  // CONV-15: itemCountX is how many items a row Dashy shows; the section's own width (cols) has no counterpart:
  // sections side by side share the row equally (CONV-20).
  const perRow = typeof display.itemCountX === 'number' && display.itemCountX >= 1 ? Math.floor(display.itemCountX) : null;
  if (perRow !== null) ctx.report.add(source, [...at, 'itemCountX'], object, 'displayData.itemCountX', 'mapped', `${perRow} app tiles a row on the desktop layout where the section spans the board (2 a row beside other sections and on the phone's)`);
  for (const field of Object.keys(display)) {
    if (field === 'itemCountX' && perRow !== null) continue;
    const why = visibility.includes(field)
      ? visibilityWhy
      : field === 'collapsed'
        ? 'collapsed state: per user in Tessera'
        : field === 'rows' || field === 'itemCountY' || field === 'cutToHeight'
          ? 'section height: Tessera sections grow with their items'
          : field === 'cols'
            ? 'section width: sections side by side share the row equally (CONV-20); a section across the board shows 4 app tiles a row unless itemCountX says otherwise'
            : field === 'itemSize'
              ? 'item size: app tiles are sized by the layout (icon, name and description in one tile)'
              : 'display option: no Tessera equivalent';
    ctx.report.add(source, [...at, field], object, `displayData.${field}`, 'unmapped', why);
  }
  return perRow;
}

/**
 * Dashy's built-in themes by how light their background is (Dashy's own theme style sheet): CONV-16 takes the
 * theme's scheme, not its colours (each theme recolours every part of the page, Tessera a primary colour only).
 */
const darkThemes = ['callisto', 'thebe', 'dracula', 'crayola', 'bee', 'raspberry-jam', 'tiger', 'matrix', 'matrix-red', 'hacker-girl', 'high-contrast-dark', 'nord', 'nord-frost', 'fallout', 'whimsy', 'deep-ocean', 'argon', 'material-dark', 'material-dark-original', 'colorful', 'minimal-dark'];
const lightThemes = ['blue-purple', 'high-contrast-light', 'material-original', 'material', 'minimal-light'];

/** CONV-16: `appConfig.theme` as the board's colour scheme where the theme is known to be light or dark. */
function themeSetting(ctx: Context, source: SourceFile, appConfig: Record<string, unknown>, settings: Record<string, unknown>): void {
  if (appConfig.theme === undefined) return;
  const theme = asString(appConfig.theme)?.toLowerCase() ?? '';
  const scheme = darkThemes.includes(theme) ? 'dark' : lightThemes.includes(theme) ? 'light' : null;
  if (scheme) {
    settings.colorScheme = scheme;
    ctx.report.add(source, ['appConfig', 'theme'], 'appConfig', 'theme', 'mapped', `colorScheme: ${scheme} (the theme's ${scheme} background; its colours and fonts are not taken over)`);
  } else {
    ctx.report.add(source, ['appConfig', 'theme'], 'appConfig', 'theme', 'unmapped', `${String(appConfig.theme)}: not a theme known to be light or dark; the board follows the viewer's system (colorScheme auto)`);
  }
}

/**
 * CONV-18: `appConfig.webSearch` (an engine by name, or `customSearchEngine`, the terms appended) as the board's web
 * search; returns the fields of appConfig it reported.
 */
function webSearchSetting(ctx: Context, source: SourceFile, appConfig: Record<string, unknown>, settings: Record<string, unknown>): string[] {
  const search = appConfig.webSearch;
  if (!isRecord(search)) return [];
  const at = ['appConfig', 'webSearch'];
  const custom = asString(search.customSearchEngine);
  const engine = asString(search.searchEngine);
  const template = search.disableWebSearch === true ? null : custom ? customSearch(custom, 'append') : searchEngines[(engine ?? 'duckduckgo').toLowerCase()] ?? null;
  if (template) {
    settings.webSearchUrl = template;
    ctx.report.add(source, at, 'appConfig', 'webSearch', 'mapped', `the board's web search (webSearchUrl ${template}): the board page's search box, for terms no app matches`);
  } else {
    ctx.report.add(source, at, 'appConfig', 'webSearch', 'unmapped', search.disableWebSearch === true ? 'web search turned off: the board has none' : 'a search engine Tessera cannot turn into a web search URL');
  }
  const handled = template ? (custom ? ['customSearchEngine'] : ['searchEngine']) : [];
  for (const field of handled) ctx.report.add(source, [...at, field], 'appConfig', `webSearch.${field}`, 'mapped', 'webSearchUrl');
  reportOtherFields(ctx, source, at, 'appConfig', search, handled, (field) =>
    field === 'searchBangs' ? 'bangs (shortcuts to other engines): no Tessera equivalent' : 'search option: the board page\'s search box has its own behaviour', 'webSearch.');
  return ['webSearch'];
}

const statusFields = ['statusCheckHeaders', 'statusCheckAllowInsecure', 'statusCheckAcceptCodes', 'statusCheckMaxRedirects'];

function itemWhy(field: string): string | null {
  if (statusFields.includes(field)) return 'status-check option (headers, accepted codes, TLS, redirects): Tessera pings with a plain GET';
  if (field === 'displayData') return visibilityWhy;
  if (field === 'hotkey') return 'keyboard shortcut: no Tessera equivalent';
  if (field === 'tags') return 'tags: no Tessera equivalent';
  return null;
}

function link(ctx: Context, source: SourceFile, at: PathKey[], object: string, key: string, item: Record<string, unknown>, statusDefault: boolean): DraftItem | null {
  const title = asString(item.title);
  if (!title) throw source.fail(at, `${object}: an item needs a title`);
  const url = asString(item.url);
  if (!url?.trim()) {
    // CONV-12: a tile that links nowhere is left out (an item group's sub-items are tiles of their own).
    const subItems = Array.isArray(item.subItems) && item.subItems.length > 0;
    ctx.report.add(source, at, `${object} / ${title}`, 'url', 'unmapped', `no url: a tile would link nowhere, left out${subItems ? ' (its sub-items are tiles of their own)' : ''}`);
    return null;
  }
  const target = asString(item.target);
  const statusCheck = typeof item.statusCheck === 'boolean' ? item.statusCheck : statusDefault;
  const pingUrl = statusCheck ? asString(item.statusCheckUrl) ?? url : null;
  const result = appItem(ctx, source, at, `${object} / ${title}`, key, {
    name: title,
    href: url,
    description: asString(item.description),
    icon: asString(item.icon),
    pingUrl,
    openInNewTab: target === null ? undefined : target === 'newtab',
    // Dashy shows an item's description as a tooltip on hover.
    descriptionShown: 'tooltip',
    tile: true,
  });
  if (target && target !== 'newtab' && target !== 'sametab') ctx.report.add(source, [...at, 'target'], `${object} / ${title}`, 'target', 'unmapped', `opening method "${target}": Tessera opens links in a new or the same tab`);
  else if (target) ctx.report.add(source, [...at, 'target'], `${object} / ${title}`, 'target', 'mapped', `openInNewTab: ${target === 'newtab'}`);
  if (typeof item.statusCheck === 'boolean') ctx.report.add(source, [...at, 'statusCheck'], `${object} / ${title}`, 'statusCheck', 'mapped', item.statusCheck ? 'the app pings its status URL' : 'no ping URL');
  return result;
}

/** What the widget options that map became. */
const optionDetails: Record<string, string> = { timeZone: 'timezone', hideDate: 'showDate (its opposite)', rssUrl: 'feedUrls', limit: 'maximumAmountPosts', url: 'embedUrl' };

function widget(ctx: Context, source: SourceFile, at: PathKey[], object: string, key: string, entry: unknown): DraftItem | null {
  if (!isRecord(entry) || typeof entry.type !== 'string') throw source.fail(at, `${object}: a widget needs a type`);
  const options = isRecord(entry.options) ? entry.options : {};
  const name = `${object} / ${entry.type}`;
  const mapped = (item: DraftItem, handled: string[]) => {
    ctx.report.add(source, [...at, 'type'], name, 'type', 'mapped', `widget kind ${item.kind}`);
    ctx.report.mappedFields(source, [...at, 'options'], name, options, Object.fromEntries(handled.map((field) => [field, optionDetails[field]])), 'options.');
    reportOtherFields(ctx, source, [...at, 'options'], name, options, handled);
    reportOtherFields(ctx, source, at, name, entry, ['type', 'options'], (field) => (field === 'label' ? 'widget label: no Tessera equivalent' : 'widget fetch option: no Tessera equivalent'));
    return item;
  };
  switch (entry.type) {
    case 'clock': {
      const timezone = asString(options.timeZone);
      return mapped(widgetItem(key, 'clock', { showDate: options.hideDate !== true, ...(timezone ? { useCustomTimezone: true, timezone } : {}) }, { width: 2, height: 1 }), ['timeZone', 'hideDate']);
    }
    case 'rss-feed': {
      const feed = asString(options.rssUrl);
      if (!feed) break;
      const limit = typeof options.limit === 'number' ? { maximumAmountPosts: options.limit } : {};
      return mapped(widgetItem(key, 'rssFeed', { feedUrls: [feed], ...limit }, { width: 3, height: 3 }), ['rssUrl', 'limit']);
    }
    case 'iframe': {
      const url = asString(options.url);
      if (!url) break;
      return mapped(widgetItem(key, 'iframe', { embedUrl: url }, { width: 4, height: 3 }), ['url']);
    }
  }
  keepWidget(ctx, source, at, name, entry.type, entry, 'Tessera has no widget of this kind (or it needs an integration or a location by coordinates)');
  return null;
}

interface Page {
  source: SourceFile;
  title: string;
}

function convertPage(ctx: Context, page: Page, isMain: boolean): { board: Omit<Parameters<typeof buildBoardFile>[0], 'name'>; subPages: { name: string; path: string; at: PathKey[] }[] } {
  const { source } = page;
  const data = source.data;
  if (!isRecord(data)) throw source.fail([], 'a Dashy configuration must be a map with sections');
  const sectionsValue = data.sections;
  if (!Array.isArray(sectionsValue)) throw source.fail(sectionsValue === undefined ? [] : ['sections'], 'sections must be a list');
  const appConfig = isRecord(data.appConfig) ? data.appConfig : {};
  const statusDefault = appConfig.statusCheck === true;
  const settings: Record<string, unknown> = {};
  const top: DraftItem[] = [];

  const pageInfo = isRecord(data.pageInfo) ? data.pageInfo : null;
  if (pageInfo) {
    const title = asString(pageInfo.title);
    if (title) {
      settings.pageTitle = title.slice(0, 2048);
      ctx.report.add(source, ['pageInfo', 'title'], 'pageInfo', 'title', 'mapped', 'the page title');
    }
    const logo = asString(pageInfo.logo);
    if (logo) {
      settings.logoImageUrl = logo.slice(0, 2048);
      ctx.report.add(source, ['pageInfo', 'logo'], 'pageInfo', 'logo', 'mapped', 'the logo');
    }
    const favicon = asString(pageInfo.favicon);
    if (favicon) {
      settings.faviconImageUrl = favicon.slice(0, 2048);
      ctx.report.add(source, ['pageInfo', 'favicon'], 'pageInfo', 'favicon', 'mapped', 'the favicon');
    }
    if (Array.isArray(pageInfo.navLinks)) {
      pageInfo.navLinks.forEach((nav, index) => {
        const at = ['pageInfo', 'navLinks', index];
        if (!isRecord(nav) || !asString(nav.title)) throw source.fail(at, 'a nav link needs a title');
        const item = link(ctx, source, at, 'navLinks', `nav:${index}`, { title: nav.title, url: nav.path, target: nav.target }, false);
        if (item) top.push(item);
      });
    }
    reportOtherFields(ctx, source, ['pageInfo'], 'pageInfo', pageInfo, ['title', 'logo', 'favicon', 'navLinks']);
  }
  if (isRecord(data.appConfig)) {
    themeSetting(ctx, source, appConfig, settings);
    const searchHandled = webSearchSetting(ctx, source, appConfig, settings);
    // CONV-19: Dashy's auto (default) and horizontal layouts set sections side by side; vertical stacks them.
    if (appConfig.layout === 'auto' || appConfig.layout === 'horizontal' || appConfig.layout === 'vertical') {
      ctx.report.add(source, ['appConfig', 'layout'], 'appConfig', 'layout', 'mapped', appConfig.layout === 'vertical'
        ? 'sections one under another: category sections across the board'
        : 'sections side by side: titled dynamic sections in a row on the desktop layout, one under another on the phone\'s');
    }
    const handledLayout = appConfig.layout === 'auto' || appConfig.layout === 'horizontal' || appConfig.layout === 'vertical' ? ['layout'] : [];
    reportOtherFields(ctx, source, ['appConfig'], 'appConfig', appConfig, ['statusCheck', 'theme', ...handledLayout, ...searchHandled], (field) =>
      field === 'auth' || /^enable(Oidc|Keycloak|HeaderAuth|GuestAccess)$/.test(field) || ['oidc', 'keycloak', 'headerAuth'].includes(field)
        ? 'authentication: Tessera has its own users, groups and API keys (nothing of it copied)'
        : field === 'webSearch'
          ? 'web search: not a map of search options'
          : null,
    );
    if (appConfig.statusCheck !== undefined) ctx.report.add(source, ['appConfig', 'statusCheck'], 'appConfig', 'statusCheck', 'mapped', 'the default of the items\' ping');
  }

  const sections: DraftSection[] = [];
  sectionsValue.forEach((section, index) => {
    const at: PathKey[] = ['sections', index];
    if (!isRecord(section) || !asString(section.name)) throw source.fail(at, 'a section needs a name');
    const name = asString(section.name)!;
    const span = sectionDisplay(ctx, source, [...at, 'displayData'], name, section.displayData);
    const draft: DraftSection = { key: `section:${index}`, name, span, row: appConfig.layout === 'vertical' ? null : 'dashy', items: [] };
    ctx.report.add(source, at, name, '', 'mapped', 'a category section, or a dynamic section titled with its name beside the sections next to it (CONV-19)');
    if (section.items !== undefined && !Array.isArray(section.items)) throw source.fail([...at, 'items'], `section "${name}": items must be a list`);
    ((section.items as unknown[] | undefined) ?? []).forEach((item, itemIndex) => {
      const itemAt = [...at, 'items', itemIndex];
      if (!isRecord(item)) throw source.fail(itemAt, `section "${name}": an item must be a map`);
      const tile = link(ctx, source, itemAt, name, `item:${index}/${itemIndex}`, item, statusDefault);
      if (tile) draft.items.push(tile);
      const object = `${name} / ${asString(item.title)}`;
      if (Array.isArray(item.subItems)) {
        item.subItems.forEach((sub, subIndex) => {
          const subAt = [...itemAt, 'subItems', subIndex];
          if (!isRecord(sub)) throw source.fail(subAt, `${object}: a sub-item must be a map`);
          const tile = link(ctx, source, subAt, object, `item:${index}/${itemIndex}/${subIndex}`, sub, statusDefault);
          if (tile) draft.items.push(tile);
          reportOtherFields(ctx, source, subAt, `${object} / ${asString(sub.title)}`, sub, ['title', 'url', 'icon', 'target', 'description'], itemWhy);
        });
      }
      reportOtherFields(ctx, source, itemAt, object, item, ['title', 'url', 'icon', 'target', 'description', 'statusCheck', 'statusCheckUrl', 'subItems'], itemWhy);
    });
    if (section.widgets !== undefined && !Array.isArray(section.widgets)) throw source.fail([...at, 'widgets'], `section "${name}": widgets must be a list`);
    ((section.widgets as unknown[] | undefined) ?? []).forEach((entry, widgetIndex) => {
      const item = widget(ctx, source, [...at, 'widgets', widgetIndex], name, `widget:${index}/${widgetIndex}`, entry);
      if (item) draft.items.push(item);
    });
    reportOtherFields(ctx, source, at, name, section, ['name', 'items', 'widgets', 'displayData'], (field) => (field === 'icon' ? 'section icon: no Tessera equivalent' : null));
    sections.push(draft);
  });

  const subPages: { name: string; path: string; at: PathKey[] }[] = [];
  if (data.pages !== undefined) {
    if (!isMain) ctx.report.add(source, ['pages'], 'pages', '', 'unmapped', 'pages of a sub-page: Dashy reads pages from the main configuration only');
    else if (!Array.isArray(data.pages)) throw source.fail(['pages'], 'pages must be a list');
    else
      data.pages.forEach((entry, index) => {
        const at = ['pages', index];
        if (!isRecord(entry) || !asString(entry.name) || !asString(entry.path)) throw source.fail(at, 'a page needs name and path');
        const pagePath = asString(entry.path)!;
        if (/^https?:\/\//i.test(pagePath)) ctx.report.add(source, at, `page ${entry.name}`, '', 'unmapped', `a remote page (${pagePath}): not fetched; download it next to conf.yml and name it by its file`);
        else subPages.push({ name: asString(entry.name)!, path: pagePath, at });
      });
  }
  reportOtherFields(ctx, source, [], page.title, data, ['pageInfo', 'appConfig', 'sections', 'pages']);
  return { board: { settings, sections: [{ key: 'top', name: null, items: top }, ...sections] }, subPages };
}

/** Converts a Dashy `conf.yml` and its local sub-pages: one board per page. */
export function convertDashy(input: ConvertInput, options: ConvertOptions = {}): ConvertResult {
  const ctx = newContext(new SourceSet(input.read), options);
  const entry = entryFile(input, 'dashy', 'conf');
  const main = ctx.sources.load(entry, null);
  const mainTitle = isRecord(main.data) && isRecord(main.data.pageInfo) ? asString(main.data.pageInfo.title) : null;
  const first = convertPage(ctx, { source: main, title: entry }, true);
  const drafts: { title: string; board: (typeof first)['board'] }[] = [{ title: mainTitle ?? 'dashy', board: first.board }];
  for (const sub of first.subPages) {
    const source = ctx.sources.load(sub.path, { file: main, at: [...sub.at, 'path'] });
    ctx.report.add(main, [...sub.at, 'path'], `page ${sub.name}`, 'path', 'mapped', `a board of its own (${source.name})`);
    ctx.report.add(main, [...sub.at, 'name'], `page ${sub.name}`, 'name', 'mapped', 'the board name');
    drafts.push({ title: sub.name, board: convertPage(ctx, { source, title: sub.path }, false).board });
  }
  const names = boardNames(drafts.map((draft) => boardNameOf(draft.title, 'dashy')), options.name);
  // Dashy reads appConfig from the main configuration only: its theme and web search are every page's.
  const shared = Object.fromEntries(['colorScheme', 'webSearchUrl'].filter((key) => first.board.settings?.[key] !== undefined).map((key) => [key, first.board.settings![key]]));
  for (const draft of drafts.slice(1)) draft.board.settings = { ...shared, ...draft.board.settings };
  const boards: BoardFile[] = drafts.map((draft, index) => buildBoardFile({ name: names[index], ...draft.board }));
  return { boards, report: { format: 'dashy', files: ctx.sources.names(), boards: names.map((name) => ({ name, file: `${name}.yaml` })), entries: ctx.report.entries } };
}
