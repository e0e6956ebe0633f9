/** The converters' pure parts (CONV-*): no HTTP, no database. */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { converters, ConvertError } from '../../src/convert';
import { autoFlow } from '../../src/convert/placement';
import { defaultIconBases, mapIcon } from '../../src/convert/icons';
import { confinedPath, parseSource } from '../../src/convert/source';
import { fixtureInput, memoryInput, overlaps } from './support';

const schema = JSON.parse(readFileSync(path.join(__dirname, '../../generated/board-file.schema.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validFile = ajv.compile(schema);

function expectValidFiles(boards: unknown[]) {
  for (const board of boards) {
    const ok = validFile(board);
    expect(validFile.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  }
}

function conversionError(run: () => unknown): ConvertError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConvertError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('placement (CONV-2)', () => {
  it('CONV-2: auto-flow fills rows within the span, in order, without overlap', () => {
    const items = Array.from({ length: 7 }, () => ({ width: 1, height: 1 }));
    expect(autoFlow(12, items, 3).map((p) => [p.x, p.y])).toEqual([[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1], [0, 2]]);
  });

  it('CONV-2: wider items than the span get their width, clamped to the column count; nothing overlaps', () => {
    const placed = autoFlow(4, [{ width: 2, height: 2 }, { width: 6, height: 1 }, { width: 1, height: 1 }, { width: 3, height: 1 }], 2);
    expect(placed[1].width).toBe(4);
    const board = { items: placed.map((p, i) => ({ id: `i${i}`, layouts: [{ layout: 'L', sectionId: 's', xOffset: p.x, yOffset: p.y, width: p.width, height: p.height }] })) };
    expect(overlaps(board)).toEqual([]);
  });

  it('CONV-5: explicit positions are kept where they fit; an overlapping or out-of-grid one is flowed', () => {
    const placed = autoFlow(4, [
      { width: 2, height: 1, fixed: { x: 2, y: 0 } },
      { width: 2, height: 1, fixed: { x: 3, y: 0 } },
      { width: 1, height: 1, fixed: { x: 9, y: 0 } },
    ]);
    expect(placed[0]).toEqual({ x: 2, y: 0, width: 2, height: 1 });
    expect(placed[1]).toEqual({ x: 0, y: 0, width: 2, height: 1 });
    expect(placed[2]).toEqual({ x: 0, y: 1, width: 1, height: 1 });
  });
});

describe('icons (CONV-4)', () => {
  const bases = { ...defaultIconBases, 'dashboard-icons': '/icons/di/', mdi: 'https://icons.example/mdi' };

  it.each([
    ['emby.png', '/icons/di/png/emby.png', 'dashboard-icons'],
    ['jellyfin.svg', '/icons/di/svg/jellyfin.svg', 'dashboard-icons'],
    ['mdi-home-#f0d453', 'https://icons.example/mdi/home.svg', 'mdi'],
    ['si-github', `${defaultIconBases['simple-icons']}/github.svg`, 'simple-icons'],
    ['sh-sonarr', `${defaultIconBases.selfhst}/png/sonarr.png`, 'selfhst'],
    ['fas fa-rocket', `${defaultIconBases['font-awesome']}/solid/rocket.svg`, 'font-awesome'],
    ['fab fa-github', `${defaultIconBases['font-awesome']}/brands/github.svg`, 'font-awesome'],
    ['https://x.example/i.png', 'https://x.example/i.png', 'url'],
  ])('CONV-4: %s maps to %s', (icon, url, how) => {
    expect(mapIcon(icon, null, bases)).toMatchObject({ url, how });
  });

  it('CONV-4: an emoji is an inline SVG the page can show; no icon is the favicon; a local path is a placeholder', () => {
    const emoji = mapIcon('🚀', null);
    expect(emoji.how).toBe('emoji');
    expect(emoji.url.startsWith('data:image/svg+xml,')).toBe(true);
    expect(decodeURIComponent(emoji.url)).toContain('🚀');
    expect(mapIcon(undefined, 'https://github.com/x')).toMatchObject({ url: 'https://github.com/favicon.ico', how: 'favicon' });
    expect(mapIcon('/icons/wiki.png', null)).toMatchObject({ url: '/icons/wiki.png', how: 'placeholder' });
  });
});

describe('reading sources (CONV-6)', () => {
  it('CONV-6: invalid YAML names the file, line and column', () => {
    const error = conversionError(() => parseSource('services.yaml', '- Media:\n    - Emby: {href: x\n'));
    expect(error.file).toBe('services.yaml');
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/^services\.yaml:3:\d+: invalid YAML: /);
  });

  it('CONV-6: more alias uses than allowed are refused', () => {
    const lol = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`)].join('\n');
    expect(conversionError(() => parseSource('bomb.yml', lol)).message).toBe('bomb.yml: more than 100 YAML alias uses');
  });

  it('CONV-6: nesting deeper than 64 levels and files over 1 MiB are refused', () => {
    expect(conversionError(() => parseSource('deep.yml', `a: ${'['.repeat(70)}${']'.repeat(70)}`)).message).toMatch(/^deep\.yml:1:\d+: nested deeper than 64 levels$/);
    let block = 'x';
    for (let i = 0; i < 70; i++) block = `k:\n${block.split('\n').map((line) => `  ${line}`).join('\n')}`;
    expect(conversionError(() => parseSource('deep2.yml', block)).message).toBe('deep2.yml: nested deeper than 64 levels');
    expect(conversionError(() => parseSource('big.yml', `a: "${'x'.repeat(1024 * 1024)}"`)).message).toBe('big.yml: larger than 1048576 bytes');
  });

  it('CONV-6: paths that leave the input directory are refused', () => {
    expect(confinedPath('../etc/passwd', null)).toBeNull();
    expect(confinedPath('sub/../../x.yml', 'glance.yml')).toBeNull();
    expect(confinedPath('/etc/passwd', 'glance.yml')).toBeNull();
    expect(confinedPath('C:\\x.yml', null)).toBeNull();
    expect(confinedPath('https://example.com/x.yml', null)).toBeNull();
    expect(confinedPath('../b.yml', 'sub/a.yml')).toBe('b.yml');
    expect(confinedPath('rss.yml', 'pages/home.yml')).toBe('pages/rss.yml');
  });
});

describe('homepage (CONV-1, CONV-3)', () => {
  const convert = () => converters.homepage(fixtureInput('homepage'));

  it('CONV-1: the fixture becomes one valid board file: groups as sections, services and bookmarks as apps, info widgets as widgets', () => {
    const { boards, report } = convert();
    expect(boards).toHaveLength(1);
    expectValidFiles(boards);
    const [board] = boards;
    expect(board.name).toBe('home-lab');
    expect(board.settings).toMatchObject({ pageTitle: 'Home Lab' });
    // Groups in the order of settings.yaml's layout: (Infrastructure before Media), then the others in file order.
    // CONV-19: the bookmark groups homepage shows side by side are titled dynamic sections in one section.
    expect(board.sections.map((s) => [s.kind, s.name ?? s.options?.title ?? null])).toEqual([
      ['empty', null], ['category', 'Infrastructure'], ['category', 'Media'], ['category', 'Media / Downloads'],
      ['empty', null], ['dynamic', 'Developer'], ['dynamic', 'Social'], ['dynamic', 'Developer'],
    ]);
    expect(board.items.filter((i) => i.kind === 'app').map((i) => i.app!.name)).toEqual(['Router', 'Grafana', 'Emby', 'Jellyfin', 'Plex', 'Sonarr', 'Sonarr', 'Sonarr', 'qBittorrent', 'Github', 'Reddit', 'Homelab wiki', 'Tessera']);
    expect(board.items.find((i) => i.app?.name === 'Emby')!.app).toEqual({
      name: 'Emby',
      description: 'Movies & TV Shows',
      href: 'http://emby.home.arpa/',
      iconUrl: `${defaultIconBases['dashboard-icons']}/png/emby.png`,
      pingUrl: 'http://emby.home.arpa/',
    });
    expect(board.items.filter((i) => i.kind !== 'app').map((i) => i.kind)).toEqual(['clock', 'weather', 'notebook']);
    expect(board.items.find((i) => i.kind === 'weather')!.options).toMatchObject({ location: { name: 'Home', latitude: 52.52, longitude: 13.41 } });
    expect(overlaps(board)).toEqual([]);
    expect(report.boards).toEqual([{ name: 'home-lab', file: 'home-lab.yaml' }]);
  });

  it('CONV-2, CONV-15: re-converting gives the same files; the Media group (5 services, a row of columns: 3) shows 3 tiles a row on the desktop layout, 2 on the phone', () => {
    const first = convert();
    expect(JSON.stringify(convert())).toBe(JSON.stringify(first));
    const media = first.boards[0].sections.find((s) => s.name === 'Media')!.id;
    const placed = (layout: string) => first.boards[0].items.flatMap((i) => i.layouts).filter((p) => p.sectionId === media && p.layout === layout).map((p) => [p.xOffset, p.yOffset, p.width]);
    expect(placed('Desktop')).toEqual([[0, 0, 4], [4, 0, 4], [8, 0, 4], [0, 1, 4], [4, 1, 4]]);
    expect(placed('Mobile')).toEqual([[0, 0, 2], [2, 0, 2], [0, 1, 2], [2, 1, 2], [0, 2, 2]]);
  });

  it('CONV-2: two groups with one name, and two services with one name in a group, get distinct ids, the same on each conversion', () => {
    const [board] = convert().boards;
    expect(new Set(board.sections.map((s) => s.id)).size).toBe(board.sections.length);
    expect(new Set(board.items.map((i) => i.id)).size).toBe(board.items.length);
    const developer = board.sections.filter((s) => (s.name ?? s.options?.title) === 'Developer').map((s) => s.id);
    expect(developer).toHaveLength(2);
    const sonarrs = board.items.filter((i) => i.app?.name === 'Sonarr').map((i) => [i.app!.href, i.id]);
    expect(sonarrs.map(([href]) => href)).toEqual(['http://sonarr.home.arpa', 'http://sonarr4k.home.arpa', 'http://sonarr.home.arpa']);
    expect(new Set(sonarrs.map(([, id]) => id)).size).toBe(3);
    expect(convert().boards[0].items.filter((i) => i.app?.name === 'Sonarr').map((i) => i.id)).toEqual(sonarrs.map(([, id]) => id));
  });

  it('CONV-4, APP-6: an icon Tessera would refuse (javascript:, ftp:) becomes the link\'s favicon and is reported', () => {
    const { boards, report } = convert();
    const app = (href: string) => boards[0].items.find((i) => i.app?.href === href)!.app!;
    expect(app('http://plex.home.arpa:32400/web').iconUrl).toBe('http://plex.home.arpa:32400/favicon.ico');
    expect(app('http://sonarr4k.home.arpa').iconUrl).toBe('http://sonarr4k.home.arpa/favicon.ico');
    const refused = report.entries.filter((e) => e.field === 'icon' && e.status === 'unmapped');
    expect(refused.map((e) => [e.object, e.detail.split(':')[0]])).toEqual([['Media / Plex', 'javascript'], ['Media / Sonarr', 'ftp']]);
    expect(refused[0].detail).toMatch(/APP-6/);
    expect(JSON.stringify(boards)).not.toMatch(/javascript:|ftp:/);
    // Without a link to take the favicon of, the generic icon.
    const bare = converters.homepage(memoryInput({ 'services.yaml': '- A:\n    - X:\n        icon: "javascript:alert(1)"\n' }));
    expect(bare.boards[0].items[0].app!.iconUrl).toBe(`${defaultIconBases.mdi}/application.svg`);
  });

  it('CONV-3: the report lists every unmapped field of the fixture, kept widgets with redacted secrets, and placeholders', () => {
    const { report, boards } = convert();
    const entry = (object: string, field: string, status = 'unmapped') => report.entries.find((e) => e.object === object && e.field === field && e.status === status);
    for (const field of ['server', 'container']) expect(entry('Media / Emby', field)?.detail).toMatch(/Docker/);
    for (const field of ['namespace', 'app', 'podSelector']) expect(entry('Infrastructure / Grafana', field)?.detail).toMatch(/Kubernetes/);
    expect(entry('Infrastructure / Router', 'widget.headers')?.detail).toMatch(/headers/);
    expect(entry('Infrastructure', 'tab')?.detail).toMatch(/tabs/);
    expect(entry('settings', 'theme', 'mapped')?.detail).toMatch(/^colorScheme: dark/);
    expect(entry('Old stuff', '')?.detail).toBe('names no group of services.yaml or bookmarks.yaml: nothing to lay out');
    expect(report.entries.find((e) => e.file === 'docker.yaml')?.status).toBe('unmapped');
    const kept = report.entries.filter((e) => e.status === 'kept').map((e) => e.detail.split(':')[0]);
    expect(kept).toEqual(['widget "resources"', 'widget "customapi"', 'widget "emby"', 'widget "uptimekuma"', 'widget "sonarr"', 'widget "qbittorrent"']);
    const qbit = report.entries.find((e) => e.status === 'kept' && e.detail.startsWith('widget "qbittorrent"'))!;
    expect(qbit.value).toMatchObject({ username: 'admin', password: '<redacted>' });
    expect(JSON.stringify(report)).not.toContain('hunter2');
    expect(report.entries.filter((e) => e.status === 'placeholder').map((e) => e.detail.split(':')[0])).toEqual(
      expect.arrayContaining(['{{HOMEPAGE_VAR_EMBY_KEY}}', '{{HOMEPAGE_VAR_WIKI_USER}}', '{{HOMEPAGE_VAR_OWM_KEY}}', 'kept as written']),
    );
    // Placeholders stay as written in the file.
    expect(boards[0].items.find((i) => i.app?.name === 'Homelab wiki')!.app!.href).toBe('https://wiki.home.arpa/?u={{HOMEPAGE_VAR_WIKI_USER}}');
    for (const e of report.entries) expect(e.at === '' || /^\d+:\d+$/.test(e.at)).toBe(true);
  });

  it('CONV-6: a wrong shape names the file, line and column', () => {
    const error = conversionError(() => converters.homepage(memoryInput({ 'services.yaml': '- Media:\n    - Emby: 12\n' })));
    expect(error.message).toBe('services.yaml:2:13: service "Emby" must be a map of fields (or a list: a nested group)');
  });
});

describe('Dashy (CONV-1, CONV-3, CONV-6)', () => {
  const convert = () => converters.dashy(fixtureInput('dashy'));

  it('CONV-1: conf.yml and its sub-page become two valid boards; nav links, items and sub-items are apps; widgets map where a kind exists', () => {
    const { boards, report } = convert();
    expectValidFiles(boards);
    expect(boards.map((b) => b.name)).toEqual(['dashy-home', 'work']);
    const [main, work] = boards;
    // CONV-19: layout: auto sets the sections side by side, 3 a row of 4 columns each on desktop, stacked on the phone.
    expect(main.sections.map((s) => [s.kind, s.name ?? s.options?.title ?? null])).toEqual([['empty', null], ['empty', null], ['dynamic', 'Getting Started'], ['dynamic', 'Admin'], ['dynamic', 'Latest Updates']]);
    const at = (layout: string) => main.sections.filter((s) => s.kind === 'dynamic').map((s) => s.layouts!.find((p) => p.layout === layout)!);
    expect(at('Desktop').map((p) => [p.xOffset, p.yOffset, p.width])).toEqual([[0, 0, 4], [4, 0, 4], [8, 0, 4]]);
    expect(at('Mobile').map((p) => [p.xOffset, p.width])).toEqual([[0, 4], [0, 4], [0, 4]]);
    expect(at('Mobile').every((p, i, all) => i === 0 || p.yOffset === all[i - 1].yOffset + all[i - 1].height)).toBe(true);
    const vertical = converters.dashy(memoryInput({ 'conf.yml': 'appConfig:\n  layout: vertical\nsections:\n  - name: A\n    items: [{title: x, url: "https://x.example"}]\n  - name: B\n    items: [{title: y, url: "https://y.example"}]\n' })).boards[0];
    expect(vertical.sections.map((s) => [s.kind, s.name ?? null])).toEqual([['empty', null], ['category', 'A'], ['category', 'B']]);
    expect(main.items.map((i) => (i.kind === 'app' ? i.app!.name : i.kind))).toEqual(['GitHub', 'Docs', 'GitHub', 'Docs', 'Media server', 'Requests', 'Router', 'NAS', 'rssFeed', 'clock', 'iframe']);
    const media = main.items.find((i) => i.app?.name === 'Media server')!;
    expect(media.app!.pingUrl).toBe('http://jellyfin.home.arpa:8096/health');
    expect(main.items.find((i) => i.app?.name === 'Router')!.app!.pingUrl).toBeUndefined();
    expect(main.items.find((i) => i.kind === 'rssFeed')!.options).toEqual({ feedUrls: ['https://github.com/lissy93/dashy/releases.atom'], maximumAmountPosts: 5 });
    expect(main.items.find((i) => i.kind === 'clock')!.options).toMatchObject({ useCustomTimezone: true, timezone: 'Europe/Berlin' });
    expect(work.items.map((i) => i.app?.name)).toEqual(['Jira', 'Mail']);
    expect(overlaps(main)).toEqual([]);
    expect(report.files).toEqual(['conf.yml', 'work.yml']);
  });

  it('CONV-3: per-user visibility, status-check headers, authentication and remote pages are reported; the weather widget is kept', () => {
    const { report } = convert();
    const find = (object: string, field: string) => report.entries.find((e) => e.object === object && e.field === field && e.status === 'unmapped');
    expect(find('Admin', 'displayData.hideForUsers')?.detail).toMatch(/per-user visibility/);
    expect(find('Admin / NAS', 'displayData')?.detail).toMatch(/per-user visibility/);
    expect(find('Getting Started / Media server', 'statusCheckHeaders')?.detail).toMatch(/status-check/);
    expect(find('appConfig', 'auth')?.detail).toMatch(/authentication/);
    expect(find('page Remote', '')?.detail).toMatch(/not fetched/);
    expect(JSON.stringify(report)).not.toContain('4D1E58C90B3B94BC');
    expect(report.entries.filter((e) => e.status === 'kept').map((e) => e.object)).toEqual(['Latest Updates / weather', 'Tools / public-holidays']);
  });

  it('CONV-6: a sub-page outside the input directory is refused and never read', () => {
    const reads: string[] = [];
    const conf = 'sections:\n  - name: A\n    items: [{title: x, url: "https://x.example"}]\npages:\n  - name: Secrets\n    path: ../../etc/secrets.yml\n';
    const error = conversionError(() => converters.dashy(memoryInput({ 'conf.yml': conf }, reads)));
    expect(error.message).toBe('conf.yml:6:11: "../../etc/secrets.yml" is outside the input directory: refused, not read');
    expect(reads).toEqual(['conf.yml']);
  });
});

describe('Glance (CONV-1, CONV-3, CONV-6)', () => {
  const convert = () => converters.glance(fixtureInput('glance'));

  it('CONV-1, CONV-21: each page (one of them included) becomes a valid board; columns, bookmarks groups and monitors become sections; includes are followed', () => {
    const { boards, report } = convert();
    expectValidFiles(boards);
    expect(boards.map((b) => b.name)).toEqual(['home', 'office']);
    const [home, work] = boards;
    // CONV-21: Home's two columns are untitled dynamic sections in one empty section, their groups and monitors titled ones.
    expect(home.sections.map((s) => [s.kind, s.name ?? s.options?.title ?? null])).toEqual([
      ['empty', null],
      ['empty', null],
      ['dynamic', ''],
      ['dynamic', ''],
      ['dynamic', 'General'],
      ['dynamic', 'Homelab'],
      ['dynamic', 'Services'],
    ]);
    // A page of one column: a category section of its widgets across the board.
    expect(work.sections.map((s) => [s.kind, s.name ?? null])).toEqual([['empty', null], ['category', 'Office column 1']]);
    expect(home.items.map((i) => (i.kind === 'app' ? i.app!.name : i.kind))).toEqual(['clock', 'Gmail', 'GitHub', 'Calendar', 'Maps', 'Wikipedia', 'Jellyfin', 'rssFeed', 'Immich', 'Gateway']);
    expect(home.items.find((i) => i.kind === 'rssFeed')!.options).toEqual({ feedUrls: ['https://selfh.st/rss/', 'https://www.theverge.com/rss/index.xml'], maximumAmountPosts: 10 });
    expect(home.items.find((i) => i.app?.name === 'Gateway')!.app!.pingUrl).toBe('http://192.0.2.1');
    expect(home.items.find((i) => i.app?.name === 'Jellyfin')!.app!.iconUrl).toBe(`${defaultIconBases['dashboard-icons']}/png/jellyfin.png`);
    expect(work.items.map((i) => i.kind)).toEqual(['iframe', 'notebook', 'dockerContainers']);
    expect(report.files).toEqual(['glance.yml', 'widgets/work-page.yml', 'widgets/rss.yml']);
    for (const board of boards) expect(overlaps(board)).toEqual([]);
  });

  it('CONV-14, CONV-21: a small column\'s bookmarks group (5 links) shows one tile a row, 3 columns wide, in the column\'s width', () => {
    const [home] = convert().boards;
    const general = home.sections.find((s) => s.options?.title === 'General')!.id;
    const placed = home.items.flatMap((i) => i.layouts).filter((p) => p.sectionId === general && p.layout === 'Desktop').map((p) => [p.xOffset, p.yOffset, p.width]);
    expect(placed).toEqual([[0, 0, 3], [0, 1, 3], [0, 2, 3], [0, 3, 3], [0, 4, 3]]);
  });

  it('CONV-3: an rss feed\'s title and a feed without a url are reported, not dropped', () => {
    const { report } = convert();
    const feeds = report.entries.filter((e) => e.object === 'Home / News' && e.status === 'unmapped' && ['title', 'feeds'].includes(e.field) && e.at !== '2:8');
    expect(feeds.map((e) => [e.at, e.field, e.detail])).toEqual([
      ['7:12', 'title', 'feed title: Tessera shows the titles the feed gives'],
      ['9:5', 'feeds', 'a feed without a url: left out'],
      ['9:12', 'title', 'feed title: Tessera shows the titles the feed gives'],
    ]);
  });

  it('CONV-3: kept widgets, authentication, placeholders and the included file\'s fields are reported at their own file', () => {
    const { report } = convert();
    expect(report.entries.filter((e) => e.status === 'kept').map((e) => e.object)).toEqual(['Home / weather', 'Home / hacker-news', 'Home / reddit']);
    expect(report.entries.find((e) => e.object === 'glance.yml' && e.field === 'auth' && e.status === 'unmapped')?.detail).toMatch(/authentication/);
    expect(report.entries.filter((e) => e.status === 'placeholder').map((e) => e.detail.split(':')[0])).toEqual(['${ROUTER_PASSWORD}', '${secret', '${ADMIN_PASSWORD}']);
    expect(report.entries.find((e) => e.object === 'Home / News' && e.field === 'style')).toMatchObject({ file: 'widgets/rss.yml', at: '4:8', status: 'unmapped' });
  });

  it('CONV-6: an $include outside the input directory is refused and never read; a missing one is named', () => {
    const reads: string[] = [];
    const glance = 'pages:\n  - name: Home\n    columns:\n      - size: full\n        widgets:\n          - $include: ../../secrets/rss.yml\n';
    const error = conversionError(() => converters.glance(memoryInput({ 'glance.yml': glance }, reads)));
    expect(error.message).toBe('glance.yml:6:23: "../../secrets/rss.yml" is outside the input directory: refused, not read');
    expect(reads).toEqual(['glance.yml']);
    const missing = conversionError(() => converters.glance(memoryInput({ 'glance.yml': glance.replace('../../secrets/', '') })));
    expect(missing.message).toBe('glance.yml:6:23: no such file: rss.yml');
  });

  it('CONV-6: an include cycle ends at the nesting limit, with the place named', () => {
    const files = { 'glance.yml': 'pages:\n  - $include: a.yml\n', 'a.yml': '$include: b.yml\n', 'b.yml': '$include: a.yml\n' };
    expect(conversionError(() => converters.glance(memoryInput(files))).message).toMatch(/^[ab]\.yml:1:1: \$include nested deeper than 64 levels$/);
  });
});

describe('old Homarr (CONV-1, CONV-3, CONV-5)', () => {
  const convert = () => converters.homarr(fixtureInput('homarr'));

  it('CONV-5: the three sizes are three layouts with the config\'s column counts; wrappers and categories keep their order; explicit positions are kept', () => {
    const { boards } = convert();
    expectValidFiles(boards);
    const [board] = boards;
    expect(board.name).toBe('default');
    expect(board.layouts).toEqual([
      { name: 'Small', columnCount: 3, breakpoint: 0 },
      { name: 'Medium', columnCount: 6, breakpoint: 800 },
      { name: 'Large', columnCount: 10, breakpoint: 1400 },
    ]);
    expect(board.sections.map((s) => [s.kind, s.name ?? null])).toEqual([['empty', null], ['category', 'Media'], ['empty', null], ['category', 'Admin']]);
    const at = (name: string, layout: string) => {
      const item = board.items.find((i) => i.app?.name === name || i.kind === name)!;
      const p = item.layouts.find((l) => l.layout === layout)!;
      return [p.xOffset, p.yOffset, p.width, p.height];
    };
    expect(at('Jellyfin', 'Large')).toEqual([0, 0, 2, 2]);
    expect(at('Sonarr', 'Large')).toEqual([2, 0, 1, 1]);
    // On Medium the source puts Sonarr on top of Jellyfin, and it has no Small shape: flowed to the first free place.
    expect(at('Sonarr', 'Medium')).toEqual([2, 0, 1, 1]);
    expect(at('Sonarr', 'Small')).toEqual([1, 0, 1, 1]);
    // The weather overlaps the clock in the source: it is flowed to the first free place, after the sidebar's
    // Proxmox (placed at the top area's first free place, at 2,0).
    expect(at('clock', 'Large')).toEqual([0, 0, 2, 1]);
    expect(at('Proxmox', 'Large')).toEqual([2, 0, 1, 1]);
    expect(at('weather', 'Large')).toEqual([3, 0, 2, 2]);
    for (const b of boards) expect(overlaps(b)).toEqual([]);
    expect(board.items.find((i) => i.kind === 'clock')!.options).toEqual({ is24HourFormat: true, showDate: false, customTitleToggle: false });
    expect(board.items.find((i) => i.kind === 'weather')!.options).toEqual({ location: { name: 'Paris', latitude: 48.85341, longitude: 2.3488 }, isFormatFahrenheit: false, hasForecast: true, forecastDayCount: 5 });
    expect(board.items.find((i) => i.app?.name === 'Sonarr')!.options).toMatchObject({ showTitle: false, layout: 'row', openInNewTab: false, pingEnabled: false });
    expect(board.settings).toMatchObject({ pageTitle: 'Homarr', metaTitle: 'Homarr home', customCss: '.card { border-radius: 8px; }', opacity: 100 });
  });

  it('CONV-3: integrations are reported by kind without their secrets; sidebar tiles and unknown widgets are reported', () => {
    const { report } = convert();
    const text = JSON.stringify(report);
    expect(text).not.toContain('0123456789abcdef');
    expect(report.entries.find((e) => e.object === 'app Jellyfin' && e.field === 'integration')?.detail).toBe(
      'a jellyfin integration at http://jellyfin.home.arpa:8096: create it in Tessera with its apiKey, username (values not copied)',
    );
    expect(report.entries.find((e) => e.object === 'app Proxmox' && e.field === 'area')?.detail).toMatch(/sidebar/);
    expect(report.entries.filter((e) => e.status === 'kept').map((e) => e.object)).toEqual(['widget dlspeed']);
    expect(report.entries.find((e) => e.object === 'settings' && e.field === 'colors')?.status).toBe('unmapped');
    // Fields of an app's behaviour, network and appearance that Tessera has nothing for are named, with their place.
    const jellyfin = (field: string) => report.entries.find((e) => e.object === 'app Jellyfin' && e.field === field && e.status === 'unmapped');
    expect(jellyfin('network.okStatus')).toMatchObject({ at: '18:100', detail: 'no Tessera equivalent' });
    expect(jellyfin('appearance.appNameFontSize')?.detail).toBe('text display option: no Tessera equivalent');
    expect(jellyfin('network.statusCodes')?.detail).toMatch(/status codes/);
  });

  it('CONV-6: a file that is not an old Homarr config is refused with its place', () => {
    expect(conversionError(() => converters.homarr(memoryInput({ 'x.json': '{"apps": []}' }))).message).toBe('x.json:1:1: not an old Homarr config: schemaVersion and configProperties are missing');
    expect(conversionError(() => converters.homarr(memoryInput({ 'x.json': '{"schemaVersion": 2, "configProperties": {"name": "a"},\n "apps": [{"name": "A", "area": {"type": "moon"}}]}' }))).message).toBe(
      'x.json:2:42: app A: unknown area type "moon"',
    );
  });
});
