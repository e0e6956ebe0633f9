/**
 * What a newcomer from homepage, Dashy, Glance or Homarr sees of the conversion (CONV-4, CONV-10..13): descriptions
 * shown as the source showed them, icon notations Tessera has no equivalent for reported, no dead tiles, no control
 * characters in the files, and two tools' configurations with the same title kept apart. Pure converters; the CLI as
 * its own process for the collision check.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { converters } from '../../src/convert';
import { defaultIconBases } from '../../src/convert/icons';
import { expectStatus, runTessera } from '../support/cli';
import { fixtureInput, memoryInput } from './support';

const schema = JSON.parse(readFileSync(path.join(__dirname, '../../generated/board-file.schema.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validFile = ajv.compile(schema);

const entry = (report: { entries: any[] }, object: string, field: string) => report.entries.filter((e) => e.object === object && e.field === field);
const appNamed = (board: any, name: string) => board.items.find((item: any) => item.app?.name === name);

describe('descriptions (CONV-11)', () => {
  it('CONV-11: homepage and Glance descriptions are shown under the name, Dashy and old Homarr ones on hover; an app without one sets nothing', () => {
    const homepage = converters.homepage(memoryInput({ 'services.yaml': '- Media:\n    - Emby:\n        href: http://emby.home.arpa\n        description: Movies\n    - Plain:\n        href: http://plain.home.arpa\n', 'settings.yaml': 'title: Home\n' }));
    expect(appNamed(homepage.boards[0], 'Emby').options).toMatchObject({ descriptionDisplayMode: 'normal' });
    expect(appNamed(homepage.boards[0], 'Plain').options).not.toHaveProperty('descriptionDisplayMode');
    expect(entry(homepage.report, 'Media / Emby', 'description')).toEqual([expect.objectContaining({ status: 'mapped', detail: 'shown under the name (descriptionDisplayMode: normal)' })]);

    const glance = converters.glance(memoryInput({ 'glance.yml': 'pages:\n  - name: Home\n    columns:\n      - size: full\n        widgets:\n          - type: bookmarks\n            groups:\n              - title: Mail\n                links:\n                  - title: Gmail\n                    url: https://mail.google.com\n                    description: Personal\n' }));
    expect(appNamed(glance.boards[0], 'Gmail').options).toMatchObject({ descriptionDisplayMode: 'normal' });

    const dashy = converters.dashy(memoryInput({ 'conf.yml': 'sections:\n  - name: Code\n    items:\n      - title: GitHub\n        url: https://github.com\n        description: Source\n' }));
    expect(appNamed(dashy.boards[0], 'GitHub').options).toMatchObject({ descriptionDisplayMode: 'tooltip' });

    const homarr = converters.homarr(fixtureInput('homarr'));
    expect(appNamed(homarr.boards[0], 'Jellyfin').options).toMatchObject({ descriptionDisplayMode: 'tooltip' });
  });
});

describe('icons Tessera has no equivalent for (CONV-4)', () => {
  it('CONV-4: Dashy `icon: generative` is reported unmapped and the link\'s favicon takes its place (not a dashboard-icons file named generative)', () => {
    const dashy = converters.dashy(memoryInput({ 'conf.yml': 'sections:\n  - name: Code\n    items:\n      - title: GitHub\n        url: https://github.com\n        icon: generative\n' }));
    expect(appNamed(dashy.boards[0], 'GitHub').app.iconUrl).toBe('https://github.com/favicon.ico');
    const icon = entry(dashy.report, 'Code / GitHub', 'icon');
    expect(icon).toEqual([expect.objectContaining({ status: 'unmapped', detail: "generative: Dashy's generated icon (generative): Tessera has no such icons: left out, the favicon of the link instead" })]);
    expect(JSON.stringify(dashy)).not.toContain('generative.png');
  });

  it('CONV-4: Glance `auto-invert` is reported unmapped beside the mapped icon', () => {
    const glance = converters.glance(memoryInput({ 'glance.yml': 'pages:\n  - name: Home\n    columns:\n      - size: full\n        widgets:\n          - type: bookmarks\n            groups:\n              - title: Code\n                links:\n                  - title: GitHub\n                    url: https://github.com\n                    icon: auto-invert si:github\n' }));
    expect(appNamed(glance.boards[0], 'GitHub').app.iconUrl).toBe(`${defaultIconBases['simple-icons']}/github.svg`);
    const icon = entry(glance.report, 'Code / GitHub', 'icon');
    expect(icon).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ status: 'unmapped', detail: 'auto-invert: Tessera does not invert icons for dark themes' }),
        expect.objectContaining({ status: 'mapped', detail: `simple-icons: ${defaultIconBases['simple-icons']}/github.svg` }),
      ]),
    );
  });
});

describe('Dashy items without a link (CONV-12)', () => {
  it('CONV-12: an item group without a url is no tile (reported); its sub-items are tiles; a nav link without a path likewise', () => {
    const dashy = converters.dashy(
      memoryInput({
        'conf.yml': [
          'pageInfo:',
          '  title: Home',
          '  navLinks:',
          '    - title: Nowhere',
          'sections:',
          '  - name: Media',
          '    items:',
          '      - title: Streaming',
          '        subItems:',
          '          - title: Jellyfin',
          '            url: http://jellyfin.home.arpa',
          '          - title: Plex',
          '            url: http://plex.home.arpa',
        ].join('\n'),
      }),
    );
    const board = dashy.boards[0];
    expect(board.items.map((item: any) => item.app?.name)).toEqual(['Jellyfin', 'Plex']);
    expect(entry(dashy.report, 'Media / Streaming', 'url')).toEqual([expect.objectContaining({ status: 'unmapped', detail: 'no url: a tile would link nowhere, left out (its sub-items are tiles of their own)' })]);
    expect(entry(dashy.report, 'navLinks / Nowhere', 'url')).toEqual([expect.objectContaining({ status: 'unmapped', detail: 'no url: a tile would link nowhere, left out' })]);
    expect(validFile(board)).toBe(true);
  });
});

describe('control characters (CONV-10)', () => {
  it('CONV-10: NUL and other control characters in names, keys and values are removed and reported; the file is valid (an import would refuse NUL)', () => {
    const homepage = converters.homepage(
      memoryInput({
        'services.yaml': '- "Me\\0dia":\n    - "Em\\x01by":\n        href: http://emby.home.arpa\n        description: "Movies\\0 and\\x1b TV"\n',
        'settings.yaml': 'title: "Ho\\0me"\n',
      }),
    );
    const board = homepage.boards[0] as any;
    // No control character reaches the report either (it is printed to a terminal).
    expect(homepage.report.entries.filter((e) => /[\u0000-\u001f\u007f]/.test(`${e.object}${e.field}${e.detail}`))).toEqual([]);
    const text = JSON.stringify(board);
    expect(text).not.toMatch(/\\u000|\\u001|\\u007f/);
    expect(board.name).toBe('home');
    expect(board.sections.map((s: any) => s.name)).toContain('Media');
    expect(appNamed(board, 'Emby').app.description).toBe('Movies and TV');
    expect(validFile(board)).toBe(true);
    const cleaned = homepage.report.entries.filter((e) => e.detail === 'control characters (NUL and others) removed: Tessera refuses them in text');
    expect(cleaned.map((e) => [e.file, e.object])).toEqual(
      expect.arrayContaining([
        ['services.yaml', '0 / Me\\u0000dia'],
        ['services.yaml', '0 / Me\\u0000dia / 0 / Em\\u0001by'],
        ['services.yaml', '0 / Me\\u0000dia / 0 / Em\\u0001by / description'],
        ['settings.yaml', 'title'],
      ]),
    );
  });
});

describe('two tools, one title (CONV-13)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-collide-'));
    mkdirSync(path.join(dir, 'homepage'));
    mkdirSync(path.join(dir, 'dashy'));
    writeFileSync(path.join(dir, 'homepage/services.yaml'), '- Media:\n    - Emby:\n        href: http://emby.home.arpa\n');
    writeFileSync(path.join(dir, 'homepage/settings.yaml'), 'title: Home\n');
    writeFileSync(path.join(dir, 'dashy/conf.yml'), 'pageInfo:\n  title: Home\nsections:\n  - name: Code\n    items:\n      - title: GitHub\n        url: https://github.com\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = () => ({ ...process.env, TESSERA_CONFIG: path.join(dir, 'none.yaml') });

  it('CONV-13: a second tool\'s conversion into the same directory that would overwrite the first one\'s board is refused, naming the board and --name; with --name both are kept', async () => {
    const out = path.join(dir, 'out');
    expectStatus(await runTessera(['convert', 'homepage', path.join(dir, 'homepage'), '-o', out], env()), 0);
    const first = readFileSync(path.join(out, 'home.yaml'), 'utf8');
    const refused = await runTessera(['convert', 'dashy', path.join(dir, 'dashy'), '-o', out], env());
    expectStatus(refused, 2);
    expect(refused.stderr).toBe(`tessera: ${path.join(out, 'home.yaml')} holds the board home of a homepage conversion; this dashy configuration converts to the same name: name its board with --name <name>, or write into another directory\n`);
    expect(readFileSync(path.join(out, 'home.yaml'), 'utf8')).toBe(first);
    const named = await runTessera(['convert', 'dashy', path.join(dir, 'dashy'), '-o', out, '--name', 'home-dashy', '--json'], env());
    expectStatus(named, 0);
    expect(JSON.parse(named.stdout).boards).toEqual([{ name: 'home-dashy', file: 'home-dashy.yaml' }]);
    expect(readdirSync(out).sort()).toEqual(['convert-report.json', 'home-dashy.yaml', 'home.yaml']);
    expect(parseYaml(readFileSync(path.join(out, 'home-dashy.yaml'), 'utf8')).name).toBe('home-dashy');
    expect(readFileSync(path.join(out, 'home.yaml'), 'utf8')).toBe(first);
    const bad = await runTessera(['convert', 'dashy', path.join(dir, 'dashy'), '-o', out, '--name', 'a b'], env());
    expectStatus(bad, 2);
    expect(bad.stderr).toMatch(/--name.*Expected a board name/);
  }, 120_000);

  it('CONV-13: --name names the main board and prefixes the others; ids derive from the new names, so the two conversions share no id', () => {
    const files = { 'conf.yml': 'pageInfo:\n  title: Home\npages:\n  - name: Work\n    path: work.yml\nsections:\n  - name: Code\n    items:\n      - title: GitHub\n        url: https://github.com\n', 'work.yml': 'sections:\n  - name: Mail\n    items:\n      - title: Mail\n        url: https://mail.example.com\n' };
    const plain = converters.dashy(memoryInput(files));
    const named = converters.dashy(memoryInput(files), { name: 'dashy' });
    expect(plain.boards.map((b) => b.name)).toEqual(['home', 'work']);
    expect(named.boards.map((b) => b.name)).toEqual(['dashy', 'dashy-work']);
    expect(named.report.boards).toEqual([{ name: 'dashy', file: 'dashy.yaml' }, { name: 'dashy-work', file: 'dashy-work.yaml' }]);
    const ids = (boards: any[]) => boards.flatMap((b) => [...b.sections.map((s: any) => s.id), ...b.items.map((i: any) => i.id)]);
    expect(ids(named.boards).filter((id) => ids(plain.boards).includes(id))).toEqual([]);
  });
});
