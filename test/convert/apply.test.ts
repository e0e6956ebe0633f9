/**
 * Converted boards on a real instance (CONV-1, CONV-2, CONV-6): `tessera convert` writes the files, `tessera boards
 * plan/apply` (or the import route) takes them, and the boards read back with their apps, icons and links.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { expectStatus, runTessera } from '../support/cli';
import { useTestServer } from '../support/server';
import { expectOk } from '../boards-document/helpers';
import { converters } from '../../src/convert';
import { fixtureInput, fixtures } from './support';

const server = useTestServer();
const slow = 180_000;

let workDir: string;
beforeAll(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-convert-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** `tessera <args>` as its own process, talking to the test server. */
function tessera(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, TESSERA_URL: server.directUrl, TESSERA_API_KEY: server.adminKey, TESSERA_CONFIG: path.join(workDir, 'none.yaml'), DATA_DIR: path.join(workDir, 'data') };
  delete env.DATABASE_URL;
  return runTessera(args, env);
}

const filesOf = (dir: string) => Object.fromEntries(readdirSync(dir).sort().map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]));

/** The board named `name` as a document, with its apps by id. */
async function boardWithApps(name: string) {
  const board = expectOk(await server.call('GET', `/api/boards/by-name/${name}`));
  const apps = new Map<string, any>();
  for (const item of board.items.filter((i: any) => i.kind === 'app')) {
    apps.set(item.options.appId, expectOk(await server.call('GET', `/api/apps/${item.options.appId}`)));
  }
  return { board, apps: [...apps.values()] };
}

describe('tessera convert, then plan and apply (CONV-1, CONV-2)', () => {
  it(
    'CONV-1, CONV-2: homepage: convert writes the board and the report, re-converting is identical, plan accepts the file, apply creates the board, a second plan is quiet',
    async () => {
      const out = path.join(workDir, 'homepage');
      const convert = await tessera(['convert', 'homepage', path.join(fixtures, 'homepage'), '-o', out]);
      expectStatus(convert, 0);
      expect(convert.stdout).toMatch(/^FILE +OBJECT +FIELD +STATUS +DETAIL/);
      expect(convert.stdout).toMatch(/services\.yaml:7:17 +Media \/ Emby +server +unmapped +Docker discovery/);
      const written = filesOf(out);
      expect(Object.keys(written)).toEqual(['convert-report.json', 'home-lab.yaml']);
      const report = JSON.parse(written['convert-report.json']);
      expect(report).toMatchObject({ format: 'homepage', boards: [{ name: 'home-lab', file: 'home-lab.yaml' }] });

      const again = await tessera(['convert', 'homepage', path.join(fixtures, 'homepage'), '-o', out, '--json']);
      expectStatus(again, 0);
      expect(JSON.parse(again.stdout)).toEqual(report);
      expect(filesOf(out)).toEqual(written);

      const file = path.join(out, 'home-lab.yaml');
      const plan = await tessera(['boards', 'plan', file, '--json']);
      expectStatus(plan, 2);
      expect(JSON.parse(plan.stdout)).toMatchObject({ action: 'create', warnings: [] });
      expectStatus(await tessera(['boards', 'apply', file, '--yes']), 0);

      const { board, apps } = await boardWithApps('home-lab');
      expect(board.pageTitle).toBe('Home Lab');
      expect(board.layouts.map((l: any) => [l.name, l.columnCount])).toEqual([['Mobile', 4], ['Desktop', 12]]);
      expect(apps.map((a) => [a.name, a.href]).sort()).toEqual(
        [
          ['Emby', 'http://emby.home.arpa/'],
          ['Github', 'https://github.com/'],
          ['Grafana', 'https://grafana.home.arpa'],
          ['Homelab wiki', 'https://wiki.home.arpa/?u={{HOMEPAGE_VAR_WIKI_USER}}'],
          ['Jellyfin', 'http://jellyfin.home.arpa:8096/web/'],
          ['Plex', 'http://plex.home.arpa:32400/web'],
          ['Sonarr', 'http://sonarr4k.home.arpa'],
          ['Tessera', 'https://tessera.example.com/'],
          ['Reddit', 'https://reddit.com/'],
          ['Router', 'https://router.home.arpa'],
          ['Sonarr', 'http://sonarr.home.arpa'],
          ['qBittorrent', 'http://torrent.home.arpa'],
        ].sort(),
      );
      for (const app of apps) expect(app.iconUrl).toMatch(/^(https:\/\/|http:\/\/[a-z0-9.]+\.home\.arpa(:\d+)?\/favicon\.ico$|\/icons\/)/);
      // The two groups named Developer are two sections; the icons APP-6 refuses became the links' favicons.
      expect(board.sections.filter((s: any) => (s.name ?? s.options?.title) === 'Developer')).toHaveLength(2);
      expect(apps.find((a) => a.name === 'Plex').iconUrl).toBe('http://plex.home.arpa:32400/favicon.ico');

      // Re-converting and planning again: nothing to change (exit 0).
      expectStatus(await tessera(['convert', 'homepage', path.join(fixtures, 'homepage'), '-o', out]), 0);
      const quiet = await tessera(['boards', 'plan', file]);
      expectStatus(quiet, 0);
    },
    slow,
  );
});

describe('tessera convert of Dashy, Glance and old Homarr, then plan (CONV-1, CONV-2)', () => {
  it.each([
    ['dashy', ['dashy-home.yaml', 'work.yaml']],
    ['glance', ['home.yaml', 'office.yaml']],
    ['homarr', ['default.yaml']],
  ])(
    'CONV-1, CONV-2, FLEET-10: %s: convert writes the boards and the report, converting again writes the same bytes, the fleet plan of the output directory has no error',
    async (format, boardFiles) => {
      const out = path.join(workDir, `cli-${format}`);
      const convert = await tessera(['convert', format, path.join(fixtures, format), '-o', out, '--json']);
      expectStatus(convert, 0);
      const written = filesOf(out);
      expect(Object.keys(written)).toEqual(['convert-report.json', ...boardFiles].sort());
      expect(JSON.parse(convert.stdout)).toEqual(JSON.parse(written['convert-report.json']));
      expectStatus(await tessera(['convert', format, path.join(fixtures, format), '-o', out]), 0);
      expect(filesOf(out)).toEqual(written);

      // FLEET-10: the output directory as it is (the report is not a board file), with an editor's hidden swap file.
      writeFileSync(path.join(out, `.${boardFiles[0]}.swp.yaml`), 'not: [a board');
      const plan = await tessera(['plan', '-f', out, '--managed-by', `convert-${format}`, '-o', 'json']);
      expectStatus(plan, 2);
      expect(plan.stderr).toBe('');
      const boards = JSON.parse(plan.stdout).boards;
      expect(boards.map((b: any) => [b.name, b.action])).toEqual(boardFiles.map((file) => [file.replace(/\.yaml$/, ''), 'create']));
      for (const board of boards) expect([board.name, board.warnings, board.ignored]).toEqual([board.name, [], []]);
    },
    slow,
  );

  it(
    'CONV-4: --icon-base moves an icon set under another base; a base whose icon URLs APP-6 refuses is a usage error',
    async () => {
      const out = path.join(workDir, 'icon-base');
      const convert = await tessera(['convert', 'homepage', path.join(fixtures, 'homepage'), '-o', out, '--icon-base', 'dashboard-icons=/icons/di/', '--icon-base', 'mdi=https://icons.example/mdi']);
      expectStatus(convert, 0);
      const board = parseYaml(readFileSync(path.join(out, 'home-lab.yaml'), 'utf8'));
      const icon = (name: string) => board.items.find((i: any) => i.app?.name === name).app.iconUrl;
      expect(icon('Emby')).toBe('/icons/di/png/emby.png');
      expect(icon('qBittorrent')).toBe('https://icons.example/mdi/download.svg');
      expect(icon('Router')).toBe('https://cdn.jsdelivr.net/npm/simple-icons/icons/openwrt.svg');
      for (const bad of ['nosuchset=https://x.example', 'mdi=javascript:alert(1)', 'mdi']) {
        const refused = await tessera(['convert', 'homepage', path.join(fixtures, 'homepage'), '-o', path.join(workDir, 'icon-refused'), '--icon-base', bad]);
        expectStatus(refused, 2);
        expect(refused.stderr).toMatch(/--icon-base/);
      }
      expect(existsSync(path.join(workDir, 'icon-refused'))).toBe(false);
    },
    slow,
  );

  it(
    'CONV-6: more than 64 files to read is exit 1 naming the file that would be the 65th, and nothing is written',
    async () => {
      const input = path.join(workDir, 'many-includes');
      mkdirSync(input);
      const widgets = Array.from({ length: 64 }, (_, n) => `          - $include: w${String(n).padStart(2, '0')}.yml`).join('\n');
      writeFileSync(path.join(input, 'glance.yml'), `pages:\n  - name: Home\n    columns:\n      - widgets:\n${widgets}\n`);
      for (let n = 0; n < 64; n++) writeFileSync(path.join(input, `w${String(n).padStart(2, '0')}.yml`), 'type: clock\n');
      const out = path.join(workDir, 'many-out');
      const refused = await tessera(['convert', 'glance', input, '-o', out]);
      expectStatus(refused, 1);
      expect(refused.stderr).toBe('tessera: glance.yml:68:23: more than 64 files to read\n');
      expect(existsSync(out)).toBe(false);
      // 63 includes and glance.yml are 64 files: converted.
      writeFileSync(path.join(input, 'glance.yml'), `pages:\n  - name: Home\n    columns:\n      - widgets:\n${widgets.split('\n').slice(0, 63).join('\n')}\n`);
      expectStatus(await tessera(['convert', 'glance', input, '-o', out]), 0);
      expect(JSON.parse(readFileSync(path.join(out, 'convert-report.json'), 'utf8')).files).toHaveLength(64);
    },
    slow,
  );
});

/**
 * Converts a fixture, plans each board with the import's dry run (no warnings), imports it and reads it back; a
 * second import of a fresh conversion with `replace` changes nothing (same ids, same positions).
 */
async function applyFixture(format: string) {
  const { boards } = converters[format](fixtureInput(format));
  const read = [];
  for (const file of boards) {
    const plan = expectOk(await server.call('POST', '/api/boards/import?dryRun=true', { body: file }));
    expect(plan).toMatchObject({ action: 'create', warnings: [], ignored: [] });
    expectOk(await server.call('POST', '/api/boards/import', { body: file }), 201);
    read.push(await boardWithApps(file.name));
  }
  for (const file of converters[format](fixtureInput(format)).boards) {
    const plan = expectOk(await server.call('POST', '/api/boards/import?onConflict=replace&dryRun=true', { body: file }));
    for (const kind of ['sections', 'items', 'layouts'] as const) expect(plan.changes[kind]).toEqual({ added: [], removed: [], updated: [] });
  }
  return read;
}

describe('converted fixtures imported into a fresh instance (CONV-1)', () => {
  it('CONV-1: Dashy: both pages become boards with their apps, icons and links; re-importing a new conversion changes nothing', async () => {
    const [main, work] = await applyFixture('dashy');
    // CONV-19: Dashy's auto layout sets the sections side by side: titled dynamic sections (the stored order is the board's own).
    expect(main.board.sections.filter((s: any) => s.kind === 'dynamic').map((s: any) => s.options.title).sort()).toEqual(['Admin', 'Getting Started', 'Latest Updates']);
    // The nav link and the item "Docs" have the same name and href: one app (APP-1), with the first one's icon.
    expect(main.apps.filter((a) => a.name === 'Docs')).toHaveLength(1);
    expect(main.apps.find((a) => a.name === 'Docs').iconUrl).toBe('https://dashy.to/favicon.ico');
    expect(main.apps.find((a) => a.name === 'Requests').iconUrl).toMatch(/fontawesome-free\/svgs\/solid\/film\.svg$/);
    expect(main.board.items.filter((i: any) => i.kind !== 'app').map((i: any) => i.kind).sort()).toEqual(['clock', 'iframe', 'rssFeed']);
    expect(work.apps.map((a) => a.href).sort()).toEqual(['https://jira.example.com', 'https://mail.example.com']);
  });
});

describe('converted fixtures imported into a fresh instance: Glance (CONV-1)', () => {
  it('CONV-1, CONV-21: Glance: both pages become boards; the monitor\'s apps keep their status check', async () => {
    const [home, work] = await applyFixture('glance');
    // CONV-21: Home's two columns (untitled) and the groups and monitor inside them are dynamic sections, as imported.
    expect(home.board.sections.filter((s: any) => s.kind === 'dynamic').map((s: any) => s.options.title).sort()).toEqual(['', '', 'General', 'Homelab', 'Services']);
    expect(work.board.sections.filter((s: any) => s.kind === 'category').map((s: any) => s.name)).toEqual(['Office column 1']);
    expect(home.apps.find((a) => a.name === 'Gateway')).toMatchObject({ href: 'https://gateway.home.arpa', pingUrl: 'http://192.0.2.1' });
    expect(work.board.items.map((i: any) => i.kind).sort()).toEqual(['dockerContainers', 'iframe', 'notebook']);
  });
});

describe('converted fixtures imported into a fresh instance: old Homarr (CONV-1, CONV-5)', () => {
  it('CONV-1, CONV-5: old Homarr: the board has its three layouts, its sections in order and its apps with their links', async () => {
    const [{ board, apps }] = await applyFixture('homarr');
    expect(board.layouts.map((l: any) => [l.name, l.columnCount, l.breakpoint])).toEqual([['Small', 3, 0], ['Medium', 6, 800], ['Large', 10, 1400]]);
    expect(board.sections.map((s: any) => s.kind)).toEqual(['empty', 'category', 'empty', 'category']);
    expect(apps.map((a) => [a.name, a.href, a.pingUrl]).sort()).toEqual([
      ['Homarr docs', 'https://homarr.dev', null],
      ['Jellyfin', 'https://jellyfin.example.com', 'http://jellyfin.home.arpa:8096'],
      ['Proxmox', 'https://pve.home.arpa:8006', 'https://pve.home.arpa:8006'],
      ['Sonarr', 'http://sonarr.home.arpa:8989', null],
    ]);
    expect(board.items.map((i: any) => i.kind).sort()).toEqual(['app', 'app', 'app', 'app', 'clock', 'rssFeed', 'weather']);
  });
});

describe('tessera convert refuses bad input (CONV-6)', () => {
  it(
    'CONV-6: invalid YAML and an $include through a link out of the input directory are exit 1 with file, line and column, and nothing is written',
    async () => {
      const input = path.join(workDir, 'bad-glance');
      const outside = path.join(workDir, 'outside');
      mkdirSync(input);
      mkdirSync(outside);
      writeFileSync(path.join(outside, 'secret.yml'), 'type: rss\nfeeds: [{url: "https://secret.example"}]\n');
      symlinkSync(path.join(outside, 'secret.yml'), path.join(input, 'rss.yml'));
      writeFileSync(path.join(input, 'glance.yml'), 'pages:\n  - name: Home\n    columns:\n      - widgets:\n          - $include: rss.yml\n');
      const out = path.join(workDir, 'bad-out');
      const linked = await tessera(['convert', 'glance', input, '-o', out]);
      expectStatus(linked, 1);
      expect(linked.stderr).toBe('tessera: glance.yml:5:23: rss.yml: leads outside the input directory (a link): refused, not read\n');
      expect(existsSync(out)).toBe(false);

      writeFileSync(path.join(input, 'glance.yml'), 'pages:\n  - name: Home\n    columns: [\n');
      const invalid = await tessera(['convert', 'glance', path.join(input, 'glance.yml'), '-o', out]);
      expectStatus(invalid, 1);
      expect(invalid.stderr).toMatch(/^tessera: glance\.yml:4:1: invalid YAML: /);
      expect(existsSync(out)).toBe(false);

      const usage = await tessera(['convert', 'nosuch', input, '-o', out]);
      expectStatus(usage, 2);
    },
    slow,
  );
});

describe('tessera convert --public (CONV-17)', () => {
  it(
    'CONV-17, CONV-16: --public writes public boards and says so in the report; applied, an anonymous caller sees the board in its dark scheme; without it the board is private',
    async () => {
      const help = await tessera(['convert', '--help']);
      expectStatus(help, 0);
      expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/--public make the converted boards public .*without signing in/);

      const out = path.join(workDir, 'public');
      const convert = await tessera(['convert', 'homepage', path.join(fixtures, 'homepage'), '-o', out, '--public', '--name', 'start-public', '--json']);
      expectStatus(convert, 0);
      const file = parseYaml(readFileSync(path.join(out, 'start-public.yaml'), 'utf8'));
      expect(file).toMatchObject({ name: 'start-public', isPublic: true, settings: { colorScheme: 'dark', primaryColor: '#64748b' } });
      const report = JSON.parse(convert.stdout);
      expect(report.entries.filter((e: any) => e.field === 'isPublic')).toEqual([
        expect.objectContaining({ file: 'start-public.yaml', object: 'start-public', status: 'mapped', detail: expect.stringMatching(/without signing in/) }),
      ]);
      expectStatus(await tessera(['boards', 'apply', path.join(out, 'start-public.yaml'), '--yes']), 0);
      const anonymous = await server.call('GET', '/api/boards/by-name/start-public', { key: null });
      expect(anonymous.status).toBe(200);
      expect(anonymous.body).toMatchObject({ isPublic: true, colorScheme: 'dark' });

      const privateOut = path.join(workDir, 'private');
      expectStatus(await tessera(['convert', 'homepage', path.join(fixtures, 'homepage'), '-o', privateOut, '--name', 'start-private']), 0);
      expect(parseYaml(readFileSync(path.join(privateOut, 'start-private.yaml'), 'utf8')).isPublic).toBe(false);
      expectStatus(await tessera(['boards', 'apply', path.join(privateOut, 'start-private.yaml'), '--yes']), 0);
      expect((await server.call('GET', '/api/boards/by-name/start-private', { key: null })).status).toBe(404);
    },
    slow,
  );
});
