/**
 * Converted boards as start pages (CONV-14..17), the converters' pure parts: app tiles sized for icon, name and
 * description, the source's tiles a row, two a row on the phone, the source's order, themes and --public.
 */
import { converters } from '../../src/convert';
import { columnTile, columnWidths, tileSize } from '../../src/convert/build';
import { ConvertError } from '../../src/convert/source';
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

/** Every element (item or dynamic section) of `board` on `layout` by the section holding it. */
function elements(board: Board, layout: string) {
  const byParent = new Map<string, { id: string; what: string; x: number; y: number; width: number; height: number }[]>();
  const add = (parent: string, element: { id: string; what: string; x: number; y: number; width: number; height: number }) => byParent.set(parent, [...(byParent.get(parent) ?? []), element]);
  for (const item of board.items) {
    const p = item.layouts.find((l) => l.layout === layout)!;
    add(p.sectionId, { id: item.id, what: item.app?.name ?? item.kind, x: p.xOffset, y: p.yOffset, width: p.width, height: p.height });
  }
  for (const section of board.sections) {
    const p = section.layouts?.find((l) => l.layout === layout);
    if (p) add(p.parentSectionId, { id: section.id, what: section.options?.title || 'column', x: p.xOffset, y: p.yOffset, width: p.width, height: p.height });
  }
  return byParent;
}

/** Pairs of elements overlapping in one section; elements reaching past `widthOf(section)`. */
function collisions(board: Board, layout: string, widthOf: (sectionId: string) => number): string[] {
  const found: string[] = [];
  for (const [parent, list] of elements(board, layout)) {
    for (const [i, a] of list.entries()) {
      if (a.x + a.width > widthOf(parent)) found.push(`${a.what} past the right of its section`);
      for (const b of list.slice(i + 1)) if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) found.push(`${a.what} over ${b.what}`);
    }
  }
  return found;
}

describe('Glance\'s columns side by side (CONV-21)', () => {
  const { boards, report } = converters.glance(fixtureInput('glance'));
  const [home] = boards;
  const columns = home.sections.filter((s) => s.kind === 'dynamic' && s.options?.title === '');
  const at = (id: string, layout: string) => home.sections.find((s) => s.id === id)!.layouts!.find((p) => p.layout === layout)!;
  const layoutColumns = (layout: string) => home.layouts.find((l) => l.name === layout)!.columnCount;
  const widthOf = (layout: string) => (sectionId: string) => home.sections.find((s) => s.id === sectionId)?.layouts?.find((p) => p.layout === layout)?.width ?? layoutColumns(layout);

  it('CONV-21: a small column is a quarter of a wide layout, the full ones share the rest; on the phone every column the whole width', () => {
    expect(columnWidths(12, ['small', 'full'])).toEqual([3, 9]);
    expect(columnWidths(12, ['full', 'small'])).toEqual([9, 3]);
    expect(columnWidths(12, ['small', 'full', 'small'])).toEqual([3, 6, 3]);
    expect(columnWidths(12, ['full', 'full', 'small'])).toEqual([5, 4, 3]);
    expect(columnWidths(12, ['full', 'full'])).toEqual([6, 6]);
    expect(columnWidths(12, ['small', 'small'])).toEqual([6, 6]);
    expect(columnWidths(8, ['small', 'full'])).toEqual([2, 6]);
    expect(columnWidths(4, ['small', 'full', 'small'])).toEqual([4, 4, 4]);
    // App tiles: 3 columns each on a wide layout (one a row in a small column), two a row on the phone.
    expect(columnTile(12, 3)).toEqual({ width: 3, height: 1, limit: 3 });
    expect(columnTile(12, 9)).toEqual({ width: 3, height: 1, limit: 9 });
    expect(columnTile(12, 5)).toEqual({ width: 5, height: 1, limit: 5 });
    expect(columnTile(12, 6, 6)).toEqual({ width: 2, height: 1, limit: 6 });
    expect(columnTile(4, 4)).toEqual({ width: 2, height: 1, limit: 4 });
  });

  it('CONV-21: the fixture\'s small and full columns stand side by side on the desktop layout (3 and 9 of 12) and one under another on the phone\'s', () => {
    const parent = home.sections.find((s) => s.yOffset === 1)!;
    expect(parent.kind).toBe('empty');
    expect(columns.length).toBe(2);
    const desktop = columns.map((c) => at(c.id, 'Desktop'));
    expect(desktop.map((p) => [p.parentSectionId, p.xOffset, p.yOffset, p.width])).toEqual([
      [parent.id, 0, 0, 3],
      [parent.id, 3, 0, 9],
    ]);
    const mobile = columns.map((c) => at(c.id, 'Mobile'));
    expect(mobile.map((p) => [p.parentSectionId, p.xOffset, p.width])).toEqual([
      [parent.id, 0, 4],
      [parent.id, 0, 4],
    ]);
    expect(mobile[1].yOffset).toBe(mobile[0].yOffset + mobile[0].height);
  });

  it('CONV-21: inside a column its widgets, bookmarks groups and monitors stand one under another in Glance\'s order, each as wide as the column, nothing overlapping', () => {
    for (const layout of ['Desktop', 'Mobile']) {
      const byParent = elements(home, layout);
      const stacked = columns.map((column) => [...byParent.get(column.id)!].sort((a, b) => a.y - b.y || a.x - b.x));
      expect([layout, stacked.map((list) => list.map((e) => e.what))]).toEqual([layout, [['clock', 'General', 'Homelab'], ['rssFeed', 'Services']]]);
      stacked.forEach((list, i) => {
        const column = at(columns[i].id, layout);
        // Each begins where the one before ends; the column is as tall as its contents.
        for (let j = 1; j < list.length; j++) expect([layout, list[j].what, list[j].y]).toEqual([layout, list[j].what, list[j - 1].y + list[j - 1].height]);
        expect(list[list.length - 1].y + list[list.length - 1].height).toBe(column.height);
        for (const e of list.filter((e) => e.what !== 'clock' && e.what !== 'rssFeed')) expect([layout, e.what, e.x, e.width]).toEqual([layout, e.what, 0, column.width]);
      });
      expect([layout, collisions(home, layout, widthOf(layout))]).toEqual([layout, []]);
    }
    // The phone keeps two tiles a row (CONV-14).
    for (const places of appPlaces(home, 'Mobile').values()) for (const tile of places) expect(tile.width).toBe(2);
    expect(rows(appPlaces(home, 'Mobile').get(home.sections.find((s) => s.options?.title === 'General')!.id)!)).toEqual([2, 2, 1]);
  });

  it('CONV-21: a widget after a bookmarks group stays below it; the report says where each column went', () => {
    const glance = [
      'pages:',
      '  - name: Home',
      '    columns:',
      '      - size: full',
      '        widgets:',
      '          - {type: clock}',
      '          - {type: bookmarks, groups: [{title: Mail, links: [{title: Gmail, url: "https://mail.example"}]}]}',
      '          - {type: html, source: "<p>hi</p>"}',
      '      - size: small',
      '        widgets:',
      '          - {type: monitor, title: Up, sites: [{title: A, url: "https://a.example"}, {title: B, url: "https://b.example"}]}',
      '      - size: full',
      '        widgets:',
      '          - {type: weather, location: London}',
    ].join('\n');
    const converted = converters.glance(memoryInput({ 'glance.yml': glance }));
    const [board] = converted.boards;
    const shown = board.sections.filter((s) => s.kind === 'dynamic' && s.options?.title === '');
    // The third column shows nothing Tessera has (a kept weather widget): two columns, 9 and 3 of 12.
    expect(shown.map((c) => c.layouts!.find((p) => p.layout === 'Desktop')!).map((p) => [p.xOffset, p.width])).toEqual([[0, 9], [9, 3]]);
    const first = [...elements(board, 'Desktop').get(shown[0].id)!].sort((a, b) => a.y - b.y).map((e) => [e.what, e.y]);
    expect(first).toEqual([['clock', 0], ['Mail', 1], ['notebook', 3]]);
    expect(collisions(board, 'Desktop', (id) => board.sections.find((s) => s.id === id)?.layouts?.find((p) => p.layout === 'Desktop')?.width ?? 12)).toEqual([]);
    const columnEntries = converted.report.entries.filter((e) => /^Home column \d$/.test(e.object)).map((e) => [e.object, e.status, e.detail]);
    expect(columnEntries).toEqual([
      ['Home column 1', 'mapped', expect.stringMatching(/^a full column: a dynamic section beside the page's other columns \(9 of 12 columns on the desktop layout/)],
      ['Home column 2', 'mapped', expect.stringMatching(/^a small column: a dynamic section beside the page's other columns \(3 of 12 columns/)],
      ['Home column 3', 'mapped', 'a full column: nothing in it has a Tessera counterpart (left out)'],
    ]);
    expect(report.entries.filter((e) => /^Home column/.test(e.object)).map((e) => e.detail.split(':')[0])).toEqual(['a small column', 'a full column']);
  });

  it('CONV-21: a page of more than three columns is refused, as Glance refuses it', () => {
    const column = '      - widgets: [{type: clock}]';
    const glance = `pages:\n  - name: Home\n    columns:\n${[column, column, column, column].join('\n')}\n`;
    let error: unknown;
    try {
      converters.glance(memoryInput({ 'glance.yml': glance }));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConvertError);
    expect((error as Error).message).toBe('glance.yml:7:9: page "Home" has 4 columns: Glance allows at most 3');
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
