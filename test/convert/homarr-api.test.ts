/**
 * CONV-7: `tessera convert homarr --url <homarr> --api-key <key>` reads a running Homarr v1 over its API (a fake
 * Homarr started here, answering the documented shapes: GET /api/boards, tRPC board.getBoardByName and
 * integration.all in the superjson envelope, GET /api/apps, the key in `ApiKey`) into board files that apply to
 * Tessera with their layouts, sections, positions, apps and integration bindings.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { expectStatus, runTessera } from '../support/cli';
import { useTestServer } from '../support/server';
import { expectOk } from '../boards-document/helpers';
import { unique } from '../support/unique';
import { convertHomarrApi } from '../../src/convert';
import { memoryInput } from './support';

const server = useTestServer();
const slow = 180_000;
const homarrKey = 'hk01ab23.0123456789abcdef0123456789abcdef0123456789abcdef';

const suffix = unique('h').slice(-8).toLowerCase();
const names = { home: `home-${suffix}`, media: `media-${suffix}` };
const integrationName = `Sonarr ${suffix}`;

const ids = {
  base: 'la1base000000000000000001',
  phone: 'la1phone00000000000000001',
  top: 'se1top0000000000000000001',
  media: 'se1media00000000000000001',
  box: 'se1box0000000000000000001',
  appItem: 'it1app0000000000000000001',
  bookmarks: 'it1bookmarks0000000000001',
  clock: 'it1clock00000000000000001',
  calendar: 'it1calendar00000000000001',
  mystery: 'it1mystery000000000000001',
  inBox: 'it1inbox00000000000000001',
};
const position = (layoutId: string, sectionId: string, xOffset: number, yOffset: number, width = 1, height = 1) => ({ layoutId, sectionId, xOffset, yOffset, width, height });
const item = (id: string, kind: string, options: Record<string, unknown>, layouts: unknown[], integrationIds: string[] = []) => ({
  id,
  kind,
  options,
  layouts,
  integrationIds,
  advancedOptions: { title: null, customCssClasses: [], borderColor: '' },
});

/** Board documents as Homarr v1's board.getBoardByName answers them (homarr-facts.md 4.2). */
const documents: Record<string, unknown> = {
  [names.home]: {
    id: 'bo1home00000000000000001',
    name: names.home,
    isPublic: true,
    creatorId: 'us1admin0000000000000001',
    creator: { id: 'us1admin0000000000000001', name: 'admin', image: null, email: 'admin@example.com' },
    pageTitle: 'Home lab',
    metaTitle: null,
    logoImageUrl: null,
    faviconImageUrl: null,
    backgroundImageUrl: null,
    backgroundImageAttachment: 'fixed',
    backgroundImageRepeat: 'no-repeat',
    backgroundImageSize: 'cover',
    primaryColor: '#fa5252',
    secondaryColor: '#fd7e14',
    opacity: 100,
    customCss: '',
    iconColor: null,
    itemRadius: 'lg',
    disableStatus: false,
    layouts: [
      { id: ids.phone, name: 'Mobile', columnCount: 4, breakpoint: 0 },
      { id: ids.base, name: 'Base', columnCount: 10, breakpoint: 800 },
    ],
    sections: [
      { id: ids.top, kind: 'empty', yOffset: 0, xOffset: 0 },
      { id: ids.media, kind: 'category', name: 'Media', yOffset: 1, xOffset: 0, collapsed: false },
      {
        id: ids.box,
        kind: 'dynamic',
        options: { title: 'Box', customCssClasses: [], borderColor: '' },
        layouts: [
          { layoutId: ids.phone, parentSectionId: ids.top, xOffset: 0, yOffset: 2, width: 2, height: 2 },
          { layoutId: ids.base, parentSectionId: ids.top, xOffset: 4, yOffset: 0, width: 2, height: 2 },
        ],
      },
    ],
    items: [
      item(ids.appItem, 'app', { appId: 'ap1jellyfin0000000000001', openInNewTab: true, showTitle: true, pingEnabled: false }, [position(ids.phone, ids.top, 0, 0), position(ids.base, ids.top, 0, 0)]),
      item(ids.bookmarks, 'bookmarks', { title: 'Links', items: ['ap1jellyfin0000000000001', 'ap1wiki00000000000000001', 'ap1gone00000000000000001'], layout: 'row' }, [position(ids.phone, ids.top, 1, 0, 3, 1), position(ids.base, ids.top, 1, 0, 3, 1)]),
      item(ids.clock, 'clock', { is24HourFormat: true, token: 'tk-live-456' }, [position(ids.phone, ids.media, 0, 0, 2, 1), position(ids.base, ids.media, 0, 0, 2, 1)]),
      item(ids.calendar, 'calendar', { releaseType: ['inCinemas'] }, [position(ids.phone, ids.media, 2, 0, 2, 2), position(ids.base, ids.media, 2, 0, 2, 2)], ['in1sonarr000000000000001']),
      item(ids.mystery, 'weatherRadar', { region: 'EU', apiKey: 'sk-live-123' }, [position(ids.phone, ids.media, 0, 2), position(ids.base, ids.media, 4, 0)]),
      item(ids.inBox, 'clock', {}, [position(ids.phone, ids.box, 0, 0), position(ids.base, ids.box, 0, 0)]),
    ],
    userPermissions: [{ permission: 'full' }],
    groupPermissions: [],
  },
  [names.media]: {
    id: 'bo1media0000000000000001',
    name: names.media,
    isPublic: false,
    layouts: [{ id: 'la2base000000000000000001', name: 'Base', columnCount: 12, breakpoint: 0 }],
    sections: [{ id: 'se2top0000000000000000001', kind: 'empty', yOffset: 0, xOffset: 0 }],
    items: [],
  },
};

const apps = [
  { id: 'ap1gone-not-listed-elsewhere', name: 'Unused', description: null, iconUrl: 'https://cdn.example.com/unused.png', href: null, pingUrl: null },
  { id: 'ap1jellyfin0000000000001', name: `Jellyfin ${suffix}`, description: 'Films', iconUrl: 'https://cdn.jsdelivr.net/gh/homarr-labs/dashboard-icons/svg/jellyfin.svg', href: 'https://jellyfin.example.com', pingUrl: 'https://jellyfin.example.com/health' },
  { id: 'ap1wiki00000000000000001', name: `Wiki ${suffix}`, description: null, iconUrl: 'https://wiki.example.com/favicon.ico', href: 'https://wiki.example.com', pingUrl: null },
];
const integrations = [{ id: 'in1sonarr000000000000001', name: integrationName, kind: 'sonarr', url: 'http://sonarr.home.arpa', permissions: { hasUseAccess: true, hasInteractAccess: true, hasFullAccess: true } }];

let homarr: Server;
let homarrUrl: string;
const requests: string[] = [];
/** How the fake Homarr misbehaves: answers that are not Homarr's, to see that nothing is written then. */
let fault: 'none' | 'boards-not-json' | 'boards-not-list' | 'apps-not-list' | 'board-without-layouts' = 'none';

beforeAll(async () => {
  homarr = createServer((request, response) => {
    const url = new URL(request.url!, 'http://homarr');
    requests.push(`${request.method} ${url.pathname}`);
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const trpc = (json: unknown) => send(200, { result: { data: { json } } });
    if (request.headers.apikey !== homarrKey) return send(401, { message: 'Unauthorized', code: 'UNAUTHORIZED', issues: [] });
    if (request.method !== 'GET') return send(405, { message: 'Method not allowed' });
    if (url.pathname === '/api/boards' && fault === 'boards-not-json') {
      response.writeHead(200, { 'content-type': 'text/html' });
      return response.end('<html>a login page</html>');
    }
    if (url.pathname === '/api/boards' && fault === 'boards-not-list') return send(200, { boards: [] });
    if (url.pathname === '/api/apps' && fault === 'apps-not-list') return send(200, { items: apps });
    if (url.pathname === '/api/boards') return send(200, Object.values(documents).map((doc: any) => ({ id: doc.id, name: doc.name, logoImageUrl: null, isPublic: doc.isPublic, creator: null, isHome: false, isMobileHome: false, userPermissions: [], groupPermissions: [] })));
    if (url.pathname === '/api/apps') return send(200, apps);
    if (url.pathname === '/api/trpc/integration.all') return trpc(integrations);
    if (url.pathname === '/api/trpc/board.getBoardByName') {
      const name = JSON.parse(url.searchParams.get('input') ?? '{}').json?.name;
      const doc = documents[name];
      if (!doc) return send(404, { error: { json: { message: 'Board not found', code: -32004, data: { code: 'NOT_FOUND', httpStatus: 404, path: 'board.getBoardByName' } } } });
      return trpc(fault === 'board-without-layouts' ? { ...(doc as object), layouts: 'none' } : doc);
    }
    send(404, { message: 'Not found' });
  });
  await new Promise<void>((resolve) => homarr.listen(0, '127.0.0.1', resolve));
  homarrUrl = `http://127.0.0.1:${(homarr.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => homarr.close(() => resolve())));

let workDir: string;
beforeAll(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-homarr-api-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function tessera(args: string[], extra: NodeJS.ProcessEnv = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, TESSERA_URL: server.directUrl, TESSERA_API_KEY: server.adminKey, TESSERA_CONFIG: path.join(workDir, 'none.yaml'), DATA_DIR: path.join(workDir, 'data'), ...extra };
  delete env.DATABASE_URL;
  delete env.HOMARR_API_KEY;
  return runTessera(args, { ...env, ...extra });
}

const filesUnder = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
      .sort()
      .map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]),
  );

describe('tessera convert homarr --url (CONV-7)', () => {
  it(
    'CONV-7: reads boards, layouts, sections, positions, apps and integrations by name and kind into board files; re-reading gives the same files; apply builds the boards',
    async () => {
      const out = path.join(workDir, 'out');
      const convert = await tessera(['convert', 'homarr', '--url', homarrUrl, '--api-key', homarrKey, '-o', out, '--json']);
      expectStatus(convert, 0);
      const report = JSON.parse(convert.stdout);
      expect(report).toMatchObject({ format: 'homarr', boards: [{ name: names.home, file: `${names.home}.yaml` }, { name: names.media, file: `${names.media}.yaml` }] });
      const written = filesUnder(out);
      expect(Object.keys(written)).toEqual(['convert-report.json', 'homarr-api/apps.json', 'homarr-api/boards/001.json', 'homarr-api/boards/002.json', 'homarr-api/integrations.json', `${names.home}.yaml`, `${names.media}.yaml`]);
      expect(requests).toEqual(expect.arrayContaining(['GET /api/boards', 'GET /api/trpc/board.getBoardByName', 'GET /api/apps', 'GET /api/trpc/integration.all']));

      // The report: the widget Tessera has no kind for (one of a newer Homarr) kept (its literal secret redacted), the app the list does not
      // have, the integration to create, the board grants; each pointing into the answers kept in homarr-api/.
      const entry = (object: string, field: string) => report.entries.find((e: any) => e.object === object && e.field === field);
      expect(entry(`item ${ids.mystery} (weatherRadar)`, '')).toMatchObject({ file: 'boards/001.json', status: 'kept' });
      expect(entry(`item ${ids.mystery} (weatherRadar)`, '').at).toMatch(/^\d+:\d+$/);
      expect(entry(`item ${ids.bookmarks} (bookmarks)`, 'options.items')).toMatchObject({ status: 'unmapped', detail: "app ap1gone00000000000000001 is not in the instance's app list: left out" });
      expect(entry(`integration ${integrationName}`, '')).toMatchObject({ file: 'integrations.json', status: 'unmapped' });
      expect(entry(`integration ${integrationName}`, '').detail).toMatch(/^a sonarr integration at http:\/\/sonarr\.home\.arpa: create it in Tessera with the same name and kind before applying/);
      expect(entry(`board ${names.home}`, 'userPermissions')).toMatchObject({ status: 'unmapped' });
      // An app no item uses is not carried over, and said so.
      expect(entry('app Unused', '')).toMatchObject({ file: 'apps.json', at: '2:3', status: 'unmapped' });
      expect(entry('app Unused', '').detail).toMatch(/^used by no item of the boards read: not carried over/);
      expect(entry(`item ${ids.clock} (clock)`, 'options.token')).toMatchObject({ status: 'unmapped', detail: 'a literal secret: not read, not copied (set it in Tessera)' });
      expect(entry(`item ${ids.mystery} (weatherRadar)`, 'apiKey')).toMatchObject({ status: 'unmapped' });
      expect(JSON.stringify(report)).not.toContain('sk-live-123');
      // Neither the key nor a literal secret of a widget reaches a file, the answers kept in homarr-api/ included.
      for (const [name, text] of Object.entries(written)) expect([name, text.includes(homarrKey), text.includes('sk-live-123') || text.includes('tk-live-456')]).toEqual([name, false, false]);

      // The file: ids, layouts by name, the three section kinds, positions as Homarr had them, apps by their fields.
      const file = parseYaml(written[`${names.home}.yaml`]);
      expect(file).toMatchObject({ apiVersion: 'tessera/v1', kind: 'Board', name: names.home, isPublic: true, settings: { pageTitle: 'Home lab', primaryColor: '#fa5252', itemRadius: 'lg' } });
      expect(file.layouts).toEqual([{ name: 'Mobile', columnCount: 4, breakpoint: 0 }, { name: 'Base', columnCount: 10, breakpoint: 800 }]);
      expect(file.sections.map((s: any) => [s.id, s.kind])).toEqual([[ids.top, 'empty'], [ids.media, 'category'], [ids.box, 'dynamic']]);
      expect(file.sections[2].layouts).toEqual([{ layout: 'Mobile', parentSectionId: ids.top, xOffset: 0, yOffset: 2, width: 2, height: 2 }, { layout: 'Base', parentSectionId: ids.top, xOffset: 4, yOffset: 0, width: 2, height: 2 }]);
      expect(file.items.map((i: any) => i.id)).toEqual([ids.appItem, ids.bookmarks, ids.clock, ids.calendar, ids.inBox]);
      const byId = new Map(file.items.map((i: any) => [i.id, i]));
      expect((byId.get(ids.clock) as any).options).toEqual({ is24HourFormat: true });
      expect(byId.get(ids.appItem)).toMatchObject({ app: { name: `Jellyfin ${suffix}`, href: 'https://jellyfin.example.com', pingUrl: 'https://jellyfin.example.com/health' }, options: { openInNewTab: true } });
      expect((byId.get(ids.appItem) as any).options).not.toHaveProperty('appId');
      expect((byId.get(ids.bookmarks) as any).apps.items.map((a: any) => a.name)).toEqual([`Jellyfin ${suffix}`, `Wiki ${suffix}`]);
      expect(byId.get(ids.calendar)).toMatchObject({ integrations: [{ name: integrationName, kind: 'sonarr' }], layouts: [{ layout: 'Mobile', sectionId: ids.media, xOffset: 2, yOffset: 0, width: 2, height: 2 }, { layout: 'Base', sectionId: ids.media, xOffset: 2, yOffset: 0, width: 2, height: 2 }] });

      // The same Homarr read again: the same files, byte for byte.
      expectStatus(await tessera(['convert', 'homarr', '--url', homarrUrl, '-o', out], { HOMARR_API_KEY: homarrKey }), 0);
      expect(filesUnder(out)).toEqual(written);

      // Applied to Tessera once the integration exists there by name and kind.
      expectOk(await server.call('POST', '/api/integrations', { body: { name: integrationName, kind: 'sonarr', url: 'http://sonarr.home.arpa' } }), 201);
      for (const board of [names.home, names.media]) expectStatus(await tessera(['boards', 'apply', path.join(out, `${board}.yaml`), '--yes']), 0);
      const board = expectOk(await server.call('GET', `/api/boards/by-name/${names.home}`));
      expect(board).toMatchObject({ isPublic: true, pageTitle: 'Home lab' });
      expect(board.sections.map((s: any) => s.kind)).toEqual(['empty', 'category', 'dynamic']);
      const tile = (id: string) => board.items.find((i: any) => i.id === id);
      const jellyfin = expectOk(await server.call('GET', `/api/apps/${tile(ids.appItem).options.appId}`));
      expect(jellyfin).toMatchObject({ name: `Jellyfin ${suffix}`, href: 'https://jellyfin.example.com' });
      expect(tile(ids.bookmarks).options.items).toHaveLength(2);
      expect(tile(ids.bookmarks).options.items[0]).toBe(jellyfin.id);
      expect(tile(ids.calendar).integrationIds).toHaveLength(1);
      expect(tile(ids.inBox).layouts.map((p: any) => p.sectionId)).toEqual([ids.box, ids.box]);
      // Planning the unchanged file again: nothing to do.
      expectStatus(await tessera(['boards', 'plan', path.join(out, `${names.home}.yaml`)]), 0);
    },
    slow,
  );

  it(
    'CONV-7: a refused key, a wrong format and a missing key are one-line errors; nothing is written',
    async () => {
      const out = path.join(workDir, 'refused');
      const refused = await tessera(['convert', 'homarr', '--url', homarrUrl, '--api-key', 'hk01ab23.wrong', '-o', out]);
      expectStatus(refused, 1);
      expect(refused.stderr).toBe('tessera: homarr: GET /api/boards answered 401: Unauthorized (check --api-key: an API key of a Homarr user who can see the boards, apps and integrations)\n');
      expect(existsSync(out)).toBe(false);
      const dashy = await tessera(['convert', 'dashy', '--url', homarrUrl, '--api-key', homarrKey, '-o', out]);
      expectStatus(dashy, 2);
      expect(dashy.stderr).toBe('tessera: --url reads a running Homarr v1: use it with the homarr format\n');
      const keyless = await tessera(['convert', 'homarr', '--url', homarrUrl, '-o', out]);
      expectStatus(keyless, 2);
      expect(keyless.stderr).toBe('tessera: --url needs --api-key <key> (or HOMARR_API_KEY)\n');
      const nothing = await tessera(['convert', 'homarr', '-o', out]);
      expectStatus(nothing, 2);
      expect(nothing.stderr).toBe('tessera: Name a configuration directory or files (or, for homarr v1, --url and --api-key)\n');
      expect(existsSync(out)).toBe(false);
    },
    slow,
  );

  it(
    'CONV-7: an answer that is not Homarr\'s (not JSON, not a list, a board of the wrong shape) is one line naming the request; the files of the run before stay as they were',
    async () => {
      const out = path.join(workDir, 'kept');
      expectStatus(await tessera(['convert', 'homarr', '--url', homarrUrl, '--api-key', homarrKey, '-o', out]), 0);
      const before = filesUnder(out);
      expect(Object.keys(before)).toContain('homarr-api/boards/001.json');
      const failing: [typeof fault, string][] = [
        ['boards-not-json', `tessera: homarr: GET /api/boards answered 200 with a body that is not JSON: is ${homarrUrl}/ a Homarr v1?\n`],
        ['boards-not-list', `tessera: homarr: GET /api/boards did not answer a list: is ${homarrUrl}/ a Homarr v1?\n`],
        ['apps-not-list', "tessera: homarr: GET /api/apps answered what is not Homarr's: apps must be a list (at 1:1 of its JSON)\n"],
        ['board-without-layouts', `tessera: homarr: tRPC board.getBoardByName {"name":"${names.home}"} answered what is not Homarr's: layouts must be a list (at 27:14 of its JSON)\n`],
      ];
      try {
        for (const [mode, message] of failing) {
          fault = mode;
          const failed = await tessera(['convert', 'homarr', '--url', homarrUrl, '--api-key', homarrKey, '-o', out]);
          expect([mode, failed.status, failed.stderr]).toEqual([mode, 1, message]);
          expect(filesUnder(out)).toEqual(before);
        }
      } finally {
        fault = 'none';
      }
      // Nor is a new output directory made.
      fault = 'apps-not-list';
      try {
        expectStatus(await tessera(['convert', 'homarr', '--url', homarrUrl, '--api-key', homarrKey, '-o', path.join(workDir, 'never')]), 1);
        expect(existsSync(path.join(workDir, 'never'))).toBe(false);
      } finally {
        fault = 'none';
      }
    },
    slow,
  );

  it(
    'CONV-9: a silent server is given up on after --timeout and a huge answer is refused past --max-answer-bytes, each one line naming the request; nothing is written',
    async () => {
      const sockets = new Set<import('node:net').Socket>();
      // Accepts the connection and the request, and never answers.
      const silent = createServer(() => undefined);
      silent.on('connection', (socket) => sockets.add(socket));
      // Answers 200 with an endless JSON body (no Content-Length), streamed in 64 KiB chunks as the reader takes them, up to 200 MB.
      let streamed = 0;
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const huge = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('[');
        const pump = () => {
          while (streamed < 200 * 1024 * 1024 && !response.destroyed) {
            streamed += chunk.length;
            if (!response.write(chunk)) return void response.once('drain', pump);
          }
          response.end(']');
        };
        pump();
      });
      huge.on('connection', (socket) => sockets.add(socket));
      // Declares a Content-Length over the cap: refused before the body is read.
      const declared = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
        response.write('[');
      });
      declared.on('connection', (socket) => sockets.add(socket));
      const listen = async (s: Server) => {
        await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
        return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
      };
      try {
        const out = path.join(workDir, 'bounded');
        const waited = await tessera(['convert', 'homarr', '--url', await listen(silent), '--api-key', homarrKey, '--timeout', '2', '-o', out]);
        expect([waited.status, waited.stderr]).toEqual([1, 'tessera: homarr: GET /api/boards: no complete answer within 2 s (--timeout)\n']);
        const tooLarge = await tessera(['convert', 'homarr', '--url', await listen(huge), '--api-key', homarrKey, '--max-answer-bytes', '100000', '-o', out]);
        expect([tooLarge.status, tooLarge.stderr]).toEqual([1, 'tessera: homarr: GET /api/boards answered more than 100000 bytes (--max-answer-bytes): not read\n']);
        expect(streamed).toBeLessThan(200 * 1024 * 1024);
        const tooLong = await tessera(['convert', 'homarr', '--url', await listen(declared), '--api-key', homarrKey, '--max-answer-bytes', '100000', '-o', out]);
        expect([tooLong.status, tooLong.stderr]).toEqual([1, 'tessera: homarr: GET /api/boards answered more than 100000 bytes (--max-answer-bytes): not read\n']);
        expect(existsSync(out)).toBe(false);
        // Bad bounds are usage errors.
        const zero = await tessera(['convert', 'homarr', '--url', homarrUrl, '--api-key', homarrKey, '--timeout', '0', '-o', out]);
        expectStatus(zero, 2);
        expect(zero.stderr).toMatch(/--timeout.*Expected a number of seconds above 0 and at most 3600/);
      } finally {
        for (const socket of sockets) socket.destroy();
        await Promise.all([silent, huge, declared].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      }
    },
    slow,
  );

  it('CONV-7: a position on a layout or section the board lacks is reported and left out; a position that is not whole numbers is an error naming the file, line and column', () => {
    const board = (items: unknown[]) => JSON.stringify(
      { name: 'tiny', layouts: [{ id: 'l1', name: 'Base', columnCount: 12, breakpoint: 0 }], sections: [{ id: 's1', kind: 'empty', yOffset: 0, xOffset: 0 }], items },
      null,
      2,
    );
    const files = (items: unknown[]) => memoryInput({ 'apps.json': '[]', 'integrations.json': '[]', 'boards/001.json': board(items) });
    const stray = convertHomarrApi(files([item('i1', 'clock', {}, [position('l1', 's1', 0, 0), position('l9', 's1', 0, 0)])]));
    expect(stray.boards[0].items[0].layouts).toEqual([{ layout: 'Base', sectionId: 's1', xOffset: 0, yOffset: 0, width: 1, height: 1 }]);
    expect(stray.report.entries).toEqual(expect.arrayContaining([expect.objectContaining({ file: 'boards/001.json', object: 'item i1 (clock)', field: 'layouts', status: 'unmapped' })]));
    expect(() => convertHomarrApi(files([item('i1', 'clock', {}, [position('l1', 's1', 0, 0, 1.5, 1)])]))).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/^boards\/001\.json:\d+:\d+: a position needs whole numbers xOffset, yOffset \(from 0\), width and height \(from 1\)$/) }),
    );
  });
});
