/**
 * Converted boards as start pages (CONV-14..17), the converters' pure parts: app tiles sized for icon, name and
 * description, the source's tiles a row, two a row on the phone, the source's order, themes and --public.
 */
import { converters } from '../../src/convert';
import { tileSize } from '../../src/convert/build';
import { glanceHsl } from '../../src/convert/colors';
import { fixtureInput, memoryInput, overlaps } from './support';

type Board = ReturnType<(typeof converters)['homepage']>['boards'][number];

/** The app items of `board` on `layout`, by section, in the order the board lists them. */
function appPlaces(board: Board, layout: string) {
  const bySection = new Map<string, { name: string; x: number; y: number; width: number; height: number }[]>();
  for (const item of board.items) {
    if (item.kind !== 'app') continue;
    const p = item.layouts.find((l) => l.layout === layout)!;
    bySection.set(p.sectionId, [...(bySection.get(p.sectionId) ?? []), { name: item.app!.name, x: p.xOffset, y: p.yOffset, width: p.width, height: p.height }]);
  }
  return bySection;
}

/** The names in reading order (row by row, left to right). */
const readingOrder = (places: { name: string; x: number; y: number }[]) => [...places].sort((a, b) => a.y - b.y || a.x - b.x).map((p) => p.name);

/** Tiles a row, per row. */
function rows(places: { y: number }[]): number[] {
  const counts = new Map<number, number>();
  for (const p of places) counts.set(p.y, (counts.get(p.y) ?? 0) + 1);
  return [...counts.keys()].sort((a, b) => a - b).map((y) => counts.get(y)!);
}

describe('tile sizes (CONV-14, CONV-15)', () => {
  it('CONV-14: a phone layout keeps two tiles a row; a 12-column layout gives each tile at least 2 columns, 3 by default', () => {
    expect(tileSize(4)).toEqual({ width: 2, height: 1, limit: 4 });
    expect(tileSize(4, 6)).toEqual({ width: 2, height: 1, limit: 4 });
    expect(tileSize(12)).toEqual({ width: 3, height: 1, limit: 12 });
    expect(tileSize(12, 3)).toEqual({ width: 4, height: 1, limit: 12 });
    expect(tileSize(12, 5)).toEqual({ width: 2, height: 1, limit: 10 });
    expect(tileSize(12, 12)).toEqual({ width: 2, height: 1, limit: 12 });
    expect(tileSize(12, 1)).toEqual({ width: 12, height: 1, limit: 12 });
  });
});

describe('homepage as a start page (CONV-14..16)', () => {
  const [board] = converters.homepage(fixtureInput('homepage')).boards;

  it('CONV-14: every app tile is at least 2 of the 12 columns wide (3 where no columns are given), one row high, nothing overlaps', () => {
    const desktop = [...appPlaces(board, 'Desktop').values()].flat();
    expect(desktop.length).toBe(13);
    for (const tile of desktop) expect([tile.name, tile.width >= 2, tile.height]).toEqual([tile.name, true, 1]);
    const infrastructure = board.sections.find((s) => s.name === 'Infrastructure')!.id;
    expect(appPlaces(board, 'Desktop').get(infrastructure)!.map((t) => t.width)).toEqual([3, 3]);
    expect(overlaps(board)).toEqual([]);
  });

  it('CONV-14: on the phone layout every group shows two tiles a row, each half the width', () => {
    for (const [sectionId, places] of appPlaces(board, 'Mobile')) {
      const name = board.sections.find((s) => s.id === sectionId)!.name;
      for (const tile of places) expect([name, tile.width]).toEqual([name, 2]);
      const counts = rows(places);
      expect([name, counts.slice(0, -1).every((n) => n === 2), counts[counts.length - 1] <= 2]).toEqual([name, true, true]);
    }
  });

  it('CONV-15: groups keep homepage\'s order and items their order in the group, on both layouts', () => {
    expect(board.sections.map((s) => s.name ?? s.options?.title ?? null)).toEqual([null, 'Infrastructure', 'Media', 'Media / Downloads', null, 'Developer', 'Social', 'Developer']);
    // CONV-19: the row of bookmark groups is one section (yOffset 4); its groups are dynamic sections inside it.
    expect(board.sections.map((s) => s.yOffset ?? null)).toEqual([0, 1, 2, 3, 4, null, null, null]);
    for (const layout of ['Desktop', 'Mobile']) {
      for (const [sectionId, places] of appPlaces(board, layout)) {
        expect([layout, sectionId, readingOrder(places)]).toEqual([layout, sectionId, places.map((p) => p.name)]);
      }
    }
    const media = board.sections.find((s) => s.name === 'Media')!.id;
    expect(readingOrder(appPlaces(board, 'Desktop').get(media)!)).toEqual(['Emby', 'Jellyfin', 'Plex', 'Sonarr', 'Sonarr']);
    // layout: Media is a row of columns: 3.
    expect(rows(appPlaces(board, 'Desktop').get(media)!)).toEqual([3, 2]);
  });

  it('CONV-19: the groups homepage shows side by side (column groups of bookmarks.yaml) stand side by side on desktop and stack on the phone, titled, in order', () => {
    const groups = board.sections.filter((s) => s.kind === 'dynamic');
    expect(groups.map((s) => s.options?.title)).toEqual(['Developer', 'Social', 'Developer']);
    const parent = board.sections.find((s) => s.yOffset === 4)!;
    expect(parent.kind).toBe('empty');
    const at = (layout: string) => groups.map((s) => s.layouts!.find((p) => p.layout === layout)!);
    const desktop = at('Desktop');
    for (const p of desktop) expect([p.parentSectionId, p.yOffset, p.width]).toEqual([parent.id, 0, 4]);
    expect(desktop.map((p) => p.xOffset)).toEqual([0, 4, 8]);
    const mobile = at('Mobile');
    for (const p of mobile) expect([p.parentSectionId, p.xOffset, p.width]).toEqual([parent.id, 0, 4]);
    // One under another in source order, each below the one before it ends.
    for (let i = 1; i < mobile.length; i++) expect(mobile[i].yOffset).toBe(mobile[i - 1].yOffset + mobile[i - 1].height);
    // Each group is one row taller than its tiles (the title), its tiles inside its own width, in the source's order.
    for (const layout of ['Desktop', 'Mobile']) {
      at(layout).forEach((p, i) => {
        const places = appPlaces(board, layout).get(groups[i].id)!;
        expect(places.length).toBeGreaterThan(0);
        expect(readingOrder(places)).toEqual(places.map((t) => t.name));
        expect(Math.max(...places.map((t) => t.x + t.width))).toBeLessThanOrEqual(p.width);
        expect(Math.max(...places.map((t) => t.y + t.height)) + 1).toBe(p.height);
      });
    }
    expect(overlaps(board)).toEqual([]);
  });

  it('CONV-19, CONV-20: a row group, another tab or a lone column group stays a category across the board; titles over 20 characters are cut', () => {
    const services = [
      { 'A group with a rather long name': [{ One: { href: 'https://one.example' } }] },
      { Second: [{ Two: { href: 'https://two.example' } }] },
      { Wide: [{ Three: { href: 'https://three.example' } }] },
      { Alone: [{ Four: { href: 'https://four.example' } }] },
      { Elsewhere: [{ Five: { href: 'https://five.example' } }] },
    ];
    const settings = 'layout:\n  A group with a rather long name: {}\n  Second: {}\n  Wide:\n    style: row\n  Alone: {}\n  Elsewhere:\n    tab: Other\n';
    const [converted] = converters.homepage(memoryInput({ 'services.yaml': JSON.stringify(services), 'settings.yaml': settings })).boards;
    expect(converted.sections.map((s) => [s.kind, s.name ?? s.options?.title ?? null])).toEqual([
      ['empty', null],
      ['empty', null],
      ['dynamic', 'A group with a rath\u2026'],
      ['dynamic', 'Second'],
      ['category', 'Wide'],
      ['category', 'Alone'],
      ['category', 'Elsewhere'],
    ]);
    expect(converted.sections[2].options!.title!.length).toBe(20);
  });

  it('CONV-11, CONV-14: apps show their description under the name, the icon beside them', () => {
    const emby = board.items.find((i) => i.app?.name === 'Emby')!;
    expect(emby.options).toMatchObject({ descriptionDisplayMode: 'normal', layout: 'row', showTitle: true });
  });

  it('CONV-16: theme dark is colorScheme dark, color slate its palette\'s primary colour, both reported as mapped', () => {
    const { boards, report } = converters.homepage(fixtureInput('homepage'));
    expect(boards[0].settings).toMatchObject({ colorScheme: 'dark', primaryColor: '#64748b' });
    const mapped = report.entries.filter((e) => e.object === 'settings' && ['theme', 'color'].includes(e.field)).map((e) => [e.field, e.status]);
    expect(mapped).toEqual([['theme', 'mapped'], ['color', 'mapped']]);
  });

  it('CONV-16: a theme or colour homepage does not know is reported unmapped, and the board follows the system', () => {
    const { boards, report } = converters.homepage(
      memoryInput({ 'settings.yaml': 'theme: solarized\ncolor: white\n', 'services.yaml': '- A:\n    - X: {href: "https://x.example"}\n' }),
    );
    expect(boards[0].settings ?? {}).not.toHaveProperty('colorScheme');
    expect(boards[0].settings ?? {}).not.toHaveProperty('primaryColor');
    const unmapped = report.entries.filter((e) => e.status === 'unmapped' && e.object === 'settings').map((e) => [e.field, e.detail]);
    expect(unmapped).toEqual([
      ['theme', expect.stringMatching(/^solarized: .*colorScheme auto/)],
      ['color', expect.stringMatching(/^white: /)],
    ]);
  });

  it('CONV-17: public only when asked, said once per board in the report', () => {
    expect(board.isPublic).toBe(false);
    const { boards, report } = converters.homepage(fixtureInput('homepage'), { public: true });
    expect(boards.map((b) => b.isPublic)).toEqual([true]);
    expect(report.entries.filter((e) => e.field === 'isPublic').map((e) => [e.object, e.status])).toEqual([['home-lab', 'mapped']]);
  });
});

describe('Dashy as a start page (CONV-14..16)', () => {
  it('CONV-14, CONV-16: tiles are 3 of 12 columns and half the phone; the colorful theme (dark) is every page\'s colorScheme dark', () => {
    const { boards, report } = converters.dashy(fixtureInput('dashy'));
    for (const board of boards) {
      expect([board.name, board.settings?.colorScheme]).toEqual([board.name, 'dark']);
      for (const places of appPlaces(board, 'Desktop').values()) for (const tile of places) expect(tile.width).toBeGreaterThanOrEqual(2);
      for (const places of appPlaces(board, 'Mobile').values()) for (const tile of places) expect(tile.width).toBe(2);
    }
    expect(report.entries.find((e) => e.object === 'appConfig' && e.field === 'theme')).toMatchObject({ status: 'mapped', detail: expect.stringMatching(/^colorScheme: dark/) });
    expect(report.entries.find((e) => e.object === 'Getting Started' && e.field === 'displayData.cols')).toMatchObject({ status: 'unmapped' });
  });

  it('CONV-15, CONV-16: itemCountX is the tiles a row; an unknown theme is reported', () => {
    const conf = [
      'appConfig: {theme: my-own-theme}',
      'sections:',
      '  - name: A',
      '    displayData: {itemCountX: 2}',
      '    items: [{title: a, url: "https://a.example"}, {title: b, url: "https://b.example"}, {title: c, url: "https://c.example"}]',
    ].join('\n');
    const { boards, report } = converters.dashy(memoryInput({ 'conf.yml': conf }));
    const [places] = [...appPlaces(boards[0], 'Desktop').values()];
    expect(places.map((p) => [p.x, p.y, p.width])).toEqual([[0, 0, 6], [6, 0, 6], [0, 1, 6]]);
    expect(boards[0].settings ?? {}).not.toHaveProperty('colorScheme');
    expect(report.entries.find((e) => e.field === 'theme')).toMatchObject({ status: 'unmapped', detail: expect.stringMatching(/^my-own-theme: /) });
  });
});

describe('Glance as a start page (CONV-14..16)', () => {
  it('CONV-16: a theme without light is dark; its background colour is reported', () => {
    const { boards, report } = converters.glance(fixtureInput('glance'));
    for (const board of boards) expect([board.name, board.settings?.colorScheme]).toEqual([board.name, 'dark']);
    expect(report.entries.find((e) => e.object === 'theme' && e.field === 'background-color')).toMatchObject({ status: 'unmapped' });
  });

  it('CONV-16: light: true is light; primary-color (hue saturation lightness) is the primary colour; a bad one is reported', () => {
    const page = 'pages:\n  - name: Home\n    columns:\n      - size: full\n        widgets:\n          - type: bookmarks\n            groups: [{title: G, links: [{title: a, url: "https://a.example"}]}]\n';
    const light = converters.glance(memoryInput({ 'glance.yml': `theme:\n  light: true\n  primary-color: 217 91 60\n${page}` }));
    expect(light.boards[0].settings).toMatchObject({ colorScheme: 'light', primaryColor: glanceHsl('217 91 60') });
    const bad = converters.glance(memoryInput({ 'glance.yml': `theme:\n  primary-color: blue\n${page}` }));
    expect(bad.boards[0].settings).not.toHaveProperty('primaryColor');
    expect(bad.report.entries.find((e) => e.field === 'primary-color')).toMatchObject({ status: 'unmapped' });
  });

  it('CONV-16: a theme that is not a map is reported, not an error', () => {
    const page = 'pages:\n  - name: Home\n    columns:\n      - widgets:\n          - type: bookmarks\n            groups: [{title: G, links: [{title: a, url: "https://a.example"}]}]\n';
    const { boards, report } = converters.glance(memoryInput({ 'glance.yml': `theme: catppuccin\n${page}` }));
    expect(boards[0].settings).not.toHaveProperty('colorScheme');
    expect(report.entries.find((e) => e.object === 'theme')).toMatchObject({ status: 'unmapped', detail: expect.stringMatching(/^not a map/) });
  });

  it('CONV-16: Glance\'s colours as #rrggbb', () => {
    expect(glanceHsl('0 100 50')).toBe('#ff0000');
    expect(glanceHsl('120 100% 25%')).toBe('#008000');
    expect(glanceHsl('240 21 15')).toBe('#1e1e2e');
    expect(glanceHsl('0 0 100')).toBe('#ffffff');
    expect(glanceHsl('400 10 10')).toBeNull();
    expect(glanceHsl('blue')).toBeNull();
  });
});

describe('web search (CONV-18)', () => {
  it('CONV-18: homepage\'s and Glance\'s search widgets (duckduckgo) become the board\'s webSearchUrl, reported as mapped', () => {
    const homepage = converters.homepage(fixtureInput('homepage'));
    expect(homepage.boards[0].settings).toMatchObject({ webSearchUrl: 'https://duckduckgo.com/?q={query}' });
    expect(homepage.report.entries.find((e) => e.object === 'search' && e.field === '')).toMatchObject({ status: 'mapped', detail: expect.stringMatching(/webSearchUrl/) });
    expect(homepage.report.entries.find((e) => e.object === 'search' && e.field === 'target')).toMatchObject({ status: 'unmapped' });
    const glance = converters.glance(fixtureInput('glance'));
    expect(glance.boards.map((b) => b.settings?.webSearchUrl ?? null)).toEqual(['https://duckduckgo.com/?q={query}', null]);
  });

  it('CONV-18: custom engines: homepage\'s and Dashy\'s url gets the terms appended, Glance\'s {QUERY} becomes {query}; an unusable one is reported', () => {
    const homepage = converters.homepage(memoryInput({ 'widgets.yaml': '- search:\n    provider: custom\n    url: https://search.example/?q=\n' }));
    expect(homepage.boards[0].settings).toMatchObject({ webSearchUrl: 'https://search.example/?q={query}' });
    const dashy = converters.dashy(memoryInput({ 'conf.yml': 'appConfig:\n  webSearch: {customSearchEngine: "https://s.example/search?q=", openingMethod: newtab}\nsections:\n  - name: A\n    items: [{title: a, url: "https://a.example"}]\n' }));
    expect(dashy.boards[0].settings).toMatchObject({ webSearchUrl: 'https://s.example/search?q={query}' });
    expect(dashy.report.entries.find((e) => e.field === 'webSearch.openingMethod')).toMatchObject({ status: 'unmapped' });
    const page = 'pages:\n  - name: Home\n    head-widgets:\n      - type: search\n        search-engine: "https://find.example/?q={QUERY}&x=1"\n    columns:\n      - widgets:\n          - type: clock\n';
    expect(converters.glance(memoryInput({ 'glance.yml': page })).boards[0].settings).toMatchObject({ webSearchUrl: 'https://find.example/?q={query}&x=1' });
    const bad = converters.homepage(memoryInput({ 'widgets.yaml': '- search:\n    provider: custom\n    url: "javascript:alert("\n' }));
    expect(bad.boards[0].settings ?? {}).not.toHaveProperty('webSearchUrl');
    expect(bad.report.entries.find((e) => e.object === 'search' && e.status === 'kept')).toBeDefined();
  });
});
