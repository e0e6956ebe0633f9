import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { createActor } from '../support/actors';
import { call, useTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';
import { categorySection, expectError, expectOk, grantIntegration, item, position } from '../boards-document/helpers';

/** Two instances on separate databases: files move from `source` to `target`. */
const source = useTestServer();
const target = useTestServer();

const conflictMessage = 'This board was modified by another request. Reload the latest board and retry.';

async function integrationOn(server: TestServer, name: string, kind = 'mock'): Promise<string> {
  const id = unique('integration');
  await server.db('integrations').insert({ id, name, kind, url: 'http://127.0.0.1:1' });
  return id;
}

/**
 * A board with two layouts, an empty and a category section, a clock bound to an integration, and an app widget,
 * built through the API on `server`.
 */
async function richBoard(server: TestServer, integrationName: string) {
  const name = unique('files-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false } }), 201);
  const start = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const baseId = start.layouts[0].id;
  expectOk(await server.call('PATCH', `/api/boards/${boardId}/layouts`, { body: { layouts: [...start.layouts, { id: 'new', name: 'Phone', columnCount: 4, breakpoint: 600 }] } }));
  const withLayouts = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const phoneId = withLayouts.layouts.find((l: any) => l.name === 'Phone').id;
  const empty = start.sections[0].id;
  const category = categorySection(unique('cat'), 'Media', 1);
  const integration = await integrationOn(server, integrationName);
  const app = expectOk(await server.call('POST', '/api/apps', { body: { name: unique('app'), href: 'https://media.example.com', iconUrl: 'https://example.com/i.png' } }), 201);
  const clock = unique('clock');
  const appWidget = unique('appw');
  expectOk(
    await server.call('PUT', `/api/boards/${boardId}`, {
      body: {
        sections: [start.sections[0], category],
        items: [
          item(clock, [position(baseId, empty, 0, 0, 2, 1), position(phoneId, empty, 0, 0, 2, 1)], { options: { is24HourFormat: true }, integrationIds: [integration] }),
          item(appWidget, [position(baseId, category.id, 0, 0), position(phoneId, category.id, 1, 0)], { kind: 'app', options: { appId: app.appId, openInNewTab: true } }),
        ],
      },
    }),
  );
  expectOk(await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { pageTitle: 'Media room', primaryColor: '#228be6' } }), 204);
  return { boardId, name, empty, category: category.id, clock, appWidget, integration, app };
}

const exportOf = async (server: TestServer, boardId: string, key?: string | null) =>
  expectOk(await server.call('GET', `/api/boards/${boardId}/export`, key === undefined ? {} : { key }));
const importFile = (server: TestServer, file: unknown, query = '', key?: string) =>
  server.call('POST', `/api/boards/import${query}`, key ? { body: file, key } : { body: file });
const historyLength = async (server: TestServer, boardId: string) =>
  expectOk(await server.call('GET', `/api/boards/${boardId}/history?limit=100`)).entries.length;
const boardCount = async (server: TestServer) => Number((await server.db('boards').count('* as n'))[0].n);

/** A file without what legitimately differs between instances: the source block and ids. */
function portablePart(file: any) {
  const { source: _source, ...rest } = file;
  const sectionIds = new Map(file.sections.map((s: any, i: number) => [s.id, `s${i}`]));
  return {
    ...rest,
    sections: rest.sections.map((s: any) => ({ ...s, id: sectionIds.get(s.id), ...(s.layouts ? { layouts: s.layouts.map((p: any) => ({ ...p, parentSectionId: sectionIds.get(p.parentSectionId) })) } : {}) })),
    items: rest.items.map((it: any, i: number) => ({ ...it, id: `i${i}`, layouts: it.layouts.map((p: any) => ({ ...p, sectionId: sectionIds.get(p.sectionId) })) })),
  };
}

describe('export (FILE-1)', () => {
  it('FILE-1: layouts by name, positions keyed by layout name, the app by its fields, integrations by name and kind, the source it was taken from', async () => {
    const board = await richBoard(source, unique('Jellyfin '));
    const file = await exportOf(source, board.boardId);
    const doc = expectOk(await source.call('GET', `/api/boards/${board.boardId}`));
    expect(file).toMatchObject({ apiVersion: 'tessera/v1', kind: 'Board', name: board.name, isPublic: false });
    expect(file.source).toEqual({ instance: expect.any(String), boardId: board.boardId, version: doc.version, revision: expect.any(Number), exportedAt: expect.any(String) });
    expect(file.settings).toMatchObject({ pageTitle: 'Media room', primaryColor: '#228be6' });
    expect(file.layouts).toEqual([
      { name: 'Base', columnCount: 12, breakpoint: 0 },
      { name: 'Phone', columnCount: 4, breakpoint: 600 },
    ]);
    const clock = file.items.find((i: any) => i.id === board.clock);
    expect(clock.integrations).toEqual([{ name: expect.stringContaining('Jellyfin'), kind: 'mock' }]);
    expect(clock.layouts.map((p: any) => p.layout)).toEqual(['Base', 'Phone']);
    const appWidget = file.items.find((i: any) => i.id === board.appWidget);
    expect(appWidget.options).toEqual({ openInNewTab: true });
    expect(appWidget.app).toEqual({ name: board.app.name, description: null, iconUrl: 'https://example.com/i.png', href: 'https://media.example.com', pingUrl: null });
    expect(file.sections.find((s: any) => s.id === board.category)).toEqual({ id: board.category, kind: 'category', name: 'Media', xOffset: 0, yOffset: 1 });
  });

  it('FILE-1: the file validates against the JSON Schema served at /api/schemas/board-file.json, which is the one in the repository', async () => {
    const board = await richBoard(source, unique('Sonarr '));
    const served = await source.call('GET', '/api/schemas/board-file.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toContain('application/schema+json');
    expect(served.body).toEqual(JSON.parse(readFileSync(path.join(__dirname, '../../generated/board-file.schema.json'), 'utf8')));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(served.body);
    expect(validate(await exportOf(source, board.boardId))).toBe(true);
    expect(validate({ apiVersion: 'tessera/v2', kind: 'Board', name: 'x', layouts: [], sections: [], items: [] })).toBe(false);
  });

  it('FILE-1: YAML with Accept: application/yaml; public boards export without credentials, private ones are 404 Board not found', async () => {
    const board = await richBoard(source, unique('Plex '));
    // YAML goes straight to the server: the contract run's proxy (Prism) reads JSON bodies only.
    const yaml = await call(source.directUrl, 'GET', `/api/boards/${board.boardId}/export`, { key: source.adminKey, headers: { Accept: 'application/yaml' } });
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toContain('application/yaml');
    const { source: _a, ...fromYaml } = parseYaml(yaml.body);
    const { source: _b, ...fromJson } = await exportOf(source, board.boardId);
    expect(fromYaml).toEqual(fromJson);
    expectError(await source.call('GET', `/api/boards/${board.boardId}/export`, { key: null }), 404, 'NOT_FOUND', 'Board not found');
    const stranger = await createActor(source);
    expectError(await source.call('GET', `/api/boards/${board.boardId}/export`, { key: stranger.key }), 404, 'NOT_FOUND', 'Board not found');
    expectOk(await source.call('PATCH', `/api/boards/${board.boardId}/visibility`, { body: { visibility: 'public' } }), 204);
    expect((await exportOf(source, board.boardId, null)).name).toBe(board.name);
  });
});

describe('lookup by name (FILE-2)', () => {
  it('FILE-2: the same document and ETag as by id, letter case ignored; 404 Board not found for unknown names and boards one may not view', async () => {
    const board = await richBoard(source, unique('Radarr '));
    const byId = await source.call('GET', `/api/boards/${board.boardId}`);
    const byName = await source.call('GET', `/api/boards/by-name/${board.name.toUpperCase()}`);
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual(byId.body);
    expect(byName.headers.get('etag')).toBe(byId.headers.get('etag'));
    expect((await source.call('GET', `/api/boards/by-name/${board.name}`, { headers: { 'If-None-Match': byId.headers.get('etag')! } })).status).toBe(304);
    expectError(await source.call('GET', `/api/boards/by-name/${unique('nothing-')}`), 404, 'NOT_FOUND', 'Board not found');
    const stranger = await createActor(source);
    expectError(await source.call('GET', `/api/boards/by-name/${board.name}`, { key: stranger.key }), 404, 'NOT_FOUND', 'Board not found');
  });
});

describe('import (FILE-3..7)', () => {
  it('FILE-3, FILE-5: export, import into an empty second instance, export again: the same file apart from source and ids; apps and integrations resolved there', async () => {
    const integrationName = unique('Jellyfin ');
    const board = await richBoard(source, integrationName);
    const file = await exportOf(source, board.boardId);
    const targetIntegration = await integrationOn(target, integrationName);
    const created = await importFile(target, file);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ boardId: expect.any(String), name: board.name, outcome: 'created' });
    expect(created.headers.get('location')).toBe(`/api/boards/${created.body.boardId}`);

    const again = await exportOf(target, created.body.boardId);
    expect(portablePart(again)).toEqual(portablePart(file));
    const doc = expectOk(await target.call('GET', `/api/boards/${created.body.boardId}`));
    expect(doc.items.find((i: any) => i.id === board.clock).integrationIds).toEqual([targetIntegration]);
    const appId = doc.items.find((i: any) => i.id === board.appWidget).options.appId;
    expect(expectOk(await target.call('GET', `/api/apps/${appId}`))).toMatchObject({ name: board.app.name, href: 'https://media.example.com' });
    expect(doc.version).toBe(0);
    const { entries } = expectOk(await target.call('GET', `/api/boards/${created.body.boardId}/history`));
    expect(entries.map((e: any) => e.operation)).toEqual(['importBoard']);
  });

  it('FILE-3: replace applies the file as one write; the same file again changes nothing (no new revision, no version bump)', async () => {
    const board = await richBoard(source, unique('Tautulli '));
    const file = await exportOf(source, board.boardId);
    const edited = { ...file, settings: { ...file.settings, pageTitle: 'Edited' }, items: file.items.filter((i: any) => i.id !== board.clock) };
    const before = expectOk(await source.call('GET', `/api/boards/${board.boardId}`));
    const revisions = await historyLength(source, board.boardId);

    expect(expectOk(await importFile(source, edited, '?onConflict=replace'))).toEqual({ boardId: board.boardId, name: board.name, outcome: 'replaced' });
    const after = expectOk(await source.call('GET', `/api/boards/${board.boardId}`));
    expect(after.version).toBe(before.version + 1);
    expect(after.pageTitle).toBe('Edited');
    expect(after.items.map((i: any) => i.id)).toEqual([board.appWidget]);
    expect(after.layouts.map((l: any) => l.id)).toEqual(before.layouts.map((l: any) => l.id));
    expect(await historyLength(source, board.boardId)).toBe(revisions + 1);

    const replayed = { ...edited, source: undefined };
    expectOk(await importFile(source, replayed, '?onConflict=replace'));
    const unchanged = expectOk(await source.call('GET', `/api/boards/${board.boardId}`));
    expect(unchanged).toEqual(after);
    expect(await historyLength(source, board.boardId)).toBe(revisions + 1);
  });

  it('FILE-3: re-importing a file with replace, twice, writes nothing the second time: no entry, no version or revision bump, the same ETag; the answer says unchanged', async () => {
    const board = await richBoard(source, unique('Whisparr '));
    const file = await exportOf(source, board.boardId);
    // The exported file names this board at its version: unchanged, it is accepted (FILE-6) and writes nothing.
    const storedRevision = async () => (await source.db('boards').where({ id: board.boardId }).first('revision')).revision;
    for (let round = 0; round < 2; round++) {
      const before = await source.call('GET', `/api/boards/${board.boardId}`);
      const revision = await storedRevision();
      const revisions = await historyLength(source, board.boardId);
      expect(expectOk(await importFile(source, file, '?onConflict=replace'))).toEqual({ boardId: board.boardId, name: board.name, outcome: 'unchanged' });
      const after = await source.call('GET', `/api/boards/${board.boardId}`);
      expect(after.body).toEqual(before.body);
      expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
      expect(await storedRevision()).toBe(revision);
      expect(await historyLength(source, board.boardId)).toBe(revisions);
    }
  });

  it('FILE-3: fail is a 409 Board with similar name already exists; rename takes the first free name; replace needs full access', async () => {
    const board = await richBoard(source, unique('Lidarr '));
    const file = await exportOf(source, board.boardId);
    const count = await boardCount(source);
    expectError(await importFile(source, file), 409, 'CONFLICT', 'Board with similar name already exists');
    expectError(await importFile(source, { ...file, name: file.name.toUpperCase() }, '?onConflict=fail'), 409, 'CONFLICT', 'Board with similar name already exists');
    expect(await boardCount(source)).toBe(count);

    const renamed = expectOk(await importFile(source, file, '?onConflict=rename'), 201);
    expect(renamed.name).toBe(`${board.name}-2`);
    expect(expectOk(await importFile(source, file, '?onConflict=rename'), 201).name).toBe(`${board.name}-3`);

    const editor = await createActor(source, { permissions: ['board-create', 'board-modify-all'] });
    expectError(await importFile(source, file, '?onConflict=replace', editor.key), 404, 'NOT_FOUND', 'Board not found');
    const nobody = await createActor(source);
    expectError(await importFile(source, { ...file, name: unique('new-') }, '', nobody.key), 403, 'FORBIDDEN', 'Permission denied');
  });

  it('FILE-3: parallel imports of one name with rename all succeed, each under its own free name (the database decides, retried on the unique index)', async () => {
    const board = await richBoard(source, unique('Radarr '));
    const exported = await exportOf(source, board.boardId);
    // Items and sections without ids used elsewhere would collide among the parallel imports themselves: strip them
    // to what every import can create anew (the rename rule is what is tested here).
    const name = unique('parallel-');
    const file = { ...exported, name, source: undefined, items: [], sections: [] };
    const count = await boardCount(source);
    const results = await Promise.all(Array.from({ length: 10 }, () => importFile(source, file, '?onConflict=rename')));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const names = results.map((r) => r.body.name).sort();
    expect(new Set(names).size).toBe(10);
    expect(names).toEqual([name, ...Array.from({ length: 9 }, (_, i) => `${name}-${i + 2}`)].sort());
    expect(await boardCount(source)).toBe(count + 10);
  });

  it('FILE-4: ids used on another board are replaced by fresh ones, and the file\'s references follow', async () => {
    const board = await richBoard(source, unique('Bazarr '));
    const file = await exportOf(source, board.boardId);
    const copy = expectOk(await importFile(source, { ...file, name: unique('copy-') }), 201);
    const doc = expectOk(await source.call('GET', `/api/boards/${copy.boardId}`));
    const originalIds = new Set([...file.items.map((i: any) => i.id), ...file.sections.map((s: any) => s.id)]);
    expect([...doc.items, ...doc.sections].filter((e: any) => originalIds.has(e.id))).toEqual([]);
    const sectionIds = new Set(doc.sections.map((s: any) => s.id));
    for (const it of doc.items) for (const p of it.layouts) expect(sectionIds.has(p.sectionId)).toBe(true);
    expect(doc.items).toHaveLength(2);
    expect(doc.items.every((i: any) => i.layouts.length === 2)).toBe(true);
    // The source board is untouched.
    expect(expectOk(await source.call('GET', `/api/boards/${board.boardId}`)).items.map((i: any) => i.id).sort()).toEqual([board.appWidget, board.clock].sort());
  });

  it('FILE-4: a file exported from board A imported into board B with replace twice: the second import changes nothing (ids derived, not minted anew)', async () => {
    const board = await richBoard(source, unique('Prowlarr '));
    const file = await exportOf(source, board.boardId);
    const other = unique('b-');
    const { boardId: b } = expectOk(await source.call('POST', '/api/boards', { body: { name: other, columnCount: 12, isPublic: false } }), 201);
    const intoB = { ...file, name: other };
    expect(expectOk(await importFile(source, intoB, '?onConflict=replace'))).toEqual({ boardId: b, name: other, outcome: 'replaced' });
    const first = await source.call('GET', `/api/boards/${b}`);
    const ids = (doc: any) => [...doc.items.map((i: any) => i.id), ...doc.sections.map((s: any) => s.id)].sort();
    const firstIds = ids(first.body);
    const originalIds = new Set([...file.items.map((i: any) => i.id), ...file.sections.map((s: any) => s.id)]);
    expect(firstIds.filter((id) => originalIds.has(id))).toEqual([]);
    for (const id of firstIds) expect(id).toMatch(/^[a-z][a-z0-9]{23}$/);
    const stored = async () => source.db('boards').where({ id: b }).first('version', 'revision');
    const before = await stored();
    const entries = await historyLength(source, b);

    expect(expectOk(await importFile(source, intoB, '?onConflict=replace'))).toEqual({ boardId: b, name: other, outcome: 'unchanged' });
    expect(await stored()).toEqual(before);
    expect(await historyLength(source, b)).toBe(entries);
    const second = await source.call('GET', `/api/boards/${b}`);
    expect(ids(second.body)).toEqual(firstIds);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    // Its dry run plans nothing either.
    const plan = expectOk(await importFile(source, intoB, '?onConflict=replace&dryRun=true'));
    expect(plan.changes).toEqual({ sections: { added: [], removed: [], updated: [] }, items: { added: [], removed: [], updated: [] }, layouts: { added: [], removed: [], updated: [] }, board: {} });
  });

  it('FILE-5, BIND-2: a name no integration has is a 400 listing it; an integration the caller may not use, named by name or id, is the binding rule\'s 403 listing it; nothing written', async () => {
    const integrationName = unique('Sabnzbd ');
    const board = await richBoard(source, integrationName);
    const file = { ...(await exportOf(source, board.boardId)), name: unique('bind-') };
    const count = await boardCount(target);
    expectError(await importFile(target, file), 400, 'BAD_REQUEST', `Unknown integrations: ${integrationName} (mock)`);

    const integration = await integrationOn(target, integrationName);
    const user = await createActor(target, { permissions: ['board-create', 'app-create'] });
    // An integration the caller may not use is not unknown: the binding rule refuses it (it answered 400 before).
    expectError(await importFile(target, file, '', user.key), 403, 'FORBIDDEN', `No access to integrations: ${integration}`);
    expectError(await importFile(target, file, '?dryRun=true', user.key), 403, 'FORBIDDEN', `No access to integrations: ${integration}`);
    // Named by id (as an export names integrations its caller could not see), the binding rule answers.
    const byId = { ...file, items: file.items.map((i: any) => (i.integrations ? { ...i, integrations: [{ id: integration }] } : i)) };
    expectError(await importFile(target, byId, '', user.key), 403, 'FORBIDDEN', `No access to integrations: ${integration}`);
    expect(await boardCount(target)).toBe(count);

    await grantIntegration(target, integration, user.userId, 'use');
    const created = expectOk(await importFile(target, file, '', user.key), 201);
    expect(await boardCount(target)).toBe(count + 1);
    const doc = expectOk(await target.call('GET', `/api/boards/${created.boardId}`, { key: user.key }));
    expect(doc.items.find((i: any) => i.id === board.clock).integrationIds).toEqual([integration]);
  });

  it('FILE-6: replacing with a file taken from this board before it changed is a 409 with nothing written; --force style (no source) applies', async () => {
    const board = await richBoard(source, unique('Prowlarr '));
    const file = await exportOf(source, board.boardId);
    expectOk(await source.call('DELETE', `/api/boards/${board.boardId}/items/${board.clock}`));
    const moved = expectOk(await source.call('GET', `/api/boards/${board.boardId}`));
    const revisions = await historyLength(source, board.boardId);
    expectError(await importFile(source, file, '?onConflict=replace'), 409, 'CONFLICT', conflictMessage);
    expectError(await importFile(source, file, '?onConflict=replace&dryRun=true'), 409, 'CONFLICT', conflictMessage);
    expect(expectOk(await source.call('GET', `/api/boards/${board.boardId}`))).toEqual(moved);
    expect(await historyLength(source, board.boardId)).toBe(revisions);
    const { source: _dropped, ...unguarded } = file;
    expectOk(await importFile(source, unguarded, '?onConflict=replace'));
    expect(expectOk(await source.call('GET', `/api/boards/${board.boardId}`)).items).toHaveLength(2);
  });

  it('FILE-7: dryRun answers the plan and writes nothing', async () => {
    const board = await richBoard(source, unique('Readarr '));
    const file = await exportOf(source, board.boardId);
    const count = await boardCount(source);
    const createPlan = expectOk(await importFile(source, { ...file, name: unique('dry-') }, '?dryRun=true'));
    expect(createPlan).toMatchObject({ action: 'create', boardId: null, version: null, ignored: [] });
    expect(createPlan.changes.items.added).toHaveLength(2);
    expect(createPlan.changes.layouts.added).toHaveLength(2);
    expect(await boardCount(source)).toBe(count);

    const edited = { ...file, items: [...file.items, { id: unique('new'), kind: 'clock', options: { is24hourformat: true }, layouts: [{ layout: 'Base', sectionId: board.empty, xOffset: 4, yOffset: 0, width: 1, height: 1 }] }] };
    const before = await source.call('GET', `/api/boards/${board.boardId}`);
    const plan = expectOk(await importFile(source, edited, '?onConflict=replace&dryRun=true'));
    expect(plan).toMatchObject({ action: 'replace', boardId: board.boardId, version: before.body.version });
    expect(plan.changes.items).toEqual({ added: [edited.items[2].id], removed: [], updated: [] });
    expect(plan.warnings.map((w: any) => w.code).sort()).toEqual(['MISSING_POSITION', 'UNKNOWN_OPTION', 'UNSUPPORTED_INTEGRATION']);
    const after = await source.call('GET', `/api/boards/${board.boardId}`);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  });

  it('FILE-1, FILE-5: YAML files import; invalid files are a clear 400 and write nothing; YAML to a route that takes none is a 415', async () => {
    const board = await richBoard(source, unique('Overseerr '));
    const file = { ...(await exportOf(source, board.boardId)), name: unique('yaml-') };
    const count = await boardCount(source);
    // YAML goes straight to the server: the contract run's proxy (Prism) reads JSON bodies only.
    const yamlRequest = (method: string, path: string, raw: string) => call(source.directUrl, method, path, { key: source.adminKey, raw, headers: { 'Content-Type': 'application/yaml' } });
    const asYaml = (value: unknown) => toYaml(value);
    expectError(await yamlRequest('POST', '/api/boards/import', 'name: [unclosed'), 400, 'BAD_REQUEST');
    expect((await yamlRequest('POST', '/api/boards/import', 'name: [unclosed')).body.message).toMatch(
      /^Failed to parse request body: invalid YAML/,
    );
    expectError(await yamlRequest('POST', '/api/boards/import', asYaml({ ...file, apiVersion: 'tessera/v0' })), 400, 'BAD_REQUEST', 'Input validation failed');
    expectError(
      await importFile(source, { ...file, items: [{ ...file.items[0], layouts: [{ ...file.items[0].layouts[0], layout: 'Tablet' }] }] }),
      400,
      'BAD_REQUEST',
      'Positions reference layouts the file does not define: Tablet',
    );
    expectError(await importFile(source, { ...file, layouts: [...file.layouts, file.layouts[0]] }), 400, 'BAD_REQUEST', 'Layout names must be unique in a board file: Base');
    expectError(await importFile(source, { ...file, items: [file.items[0], file.items[0]] }), 400, 'BAD_REQUEST', `Duplicate item ids in payload: ${file.items[0].id}`);
    expectError(
      await yamlRequest('POST', '/api/boards/import', 'apiVersion: tessera/v1\nkind: Board\nname: n\nlayouts: []\nsections: []\nitems: []\nx: 123456789012345678901\n'),
      400,
      'BAD_REQUEST',
      'Invalid number 123456789012345678901: it cannot be stored exactly (out of range or too precise)',
    );
    expect(await boardCount(source)).toBe(count);

    expectOk(await yamlRequest('POST', '/api/boards/import', asYaml(file)), 201);
    expect(await boardCount(source)).toBe(count + 1);
    expectError(await yamlRequest('PUT', `/api/boards/${board.boardId}`, asYaml({ sections: [], items: [] })), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('APP-6: an app of the file with an unsafe address is a 400 naming the field, as POST /api/apps answers; nothing written', async () => {
    const board = await richBoard(source, unique('Sonarr '));
    const file = { ...(await exportOf(source, board.boardId)), name: unique('unsafe-') };
    const appIndex = file.items.findIndex((i: any) => i.app);
    const withApp = (app: Record<string, unknown>) => ({ ...file, items: file.items.map((i: any, n: number) => (n === appIndex ? { ...i, app: { ...i.app, ...app } } : i)) });
    const count = await boardCount(source);
    const apps = Number((await source.db('apps').count('* as n'))[0].n);
    for (const [field, app] of [
      ['href', { name: unique('evil'), href: 'data:text/html,<script>alert(1)</script>' }],
      ['href', { name: unique('evil'), href: '\u200Bjavascript:alert(1)' }],
      ['iconUrl', { iconUrl: 'javascript:alert(1)' }],
    ] as const) {
      const result = await importFile(source, withApp(app));
      expectError(result, 400, 'BAD_REQUEST', 'Input validation failed');
      expect(result.body.data.issues).toContainEqual(expect.objectContaining({ instancePath: `/requestBody/items/${appIndex}/app/${field}` }));
    }
    // What the pattern lets through and the rule refuses (an https URL that does not parse) is refused by the import too.
    const unparsable = await importFile(source, withApp({ name: unique('evil'), href: 'https://[::1' }));
    expectError(unparsable, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(unparsable.body.data.issues).toEqual([expect.objectContaining({ instancePath: `/body/items/${appIndex}/app/href` })]);
    expect(await boardCount(source)).toBe(count);
    expect(Number((await source.db('apps').count('* as n'))[0].n)).toBe(apps);
  });
});

describe('app references inside widget options (FILE-8)', () => {
  /** A board with an app widget and a bookmarks widget listing that app and another one. */
  async function bookmarksBoard(server: TestServer) {
    const name = unique('bookmarks-');
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false } }), 201);
    const start = expectOk(await server.call('GET', `/api/boards/${boardId}`));
    const [base, empty] = [start.layouts[0].id, start.sections[0].id];
    const media = expectOk(await server.call('POST', '/api/apps', { body: { name: unique('media'), href: 'https://media.example.com', iconUrl: 'https://example.com/m.png' } }), 201);
    const wiki = expectOk(await server.call('POST', '/api/apps', { body: { name: unique('wiki'), href: 'https://wiki.example.com', iconUrl: 'https://example.com/w.png', description: 'Notes' } }), 201);
    const [appWidget, bookmarks] = [unique('appw'), unique('bookm')];
    expectOk(
      await server.call('PUT', `/api/boards/${boardId}`, {
        body: {
          sections: start.sections,
          items: [
            item(appWidget, [position(base, empty, 0, 0)], { kind: 'app', options: { appId: media.appId } }),
            item(bookmarks, [position(base, empty, 2, 0, 2, 2)], { kind: 'bookmarks', options: { title: 'Links', layout: 'row', items: [wiki.appId, media.appId] } }),
          ],
        },
      }),
    );
    return { boardId, name, appWidget, bookmarks, media, wiki };
  }

  it('FILE-8: a bookmarks widget names its apps by their fields, in order; the unedited file plans no change and no warning', async () => {
    const board = await bookmarksBoard(source);
    const file = await exportOf(source, board.boardId);
    const exported = file.items.find((i: any) => i.id === board.bookmarks);
    expect(exported.options).toEqual({ title: 'Links', layout: 'row' });
    expect(exported.app).toBeUndefined();
    expect(exported.apps).toEqual({
      items: [
        { name: board.wiki.name, description: 'Notes', iconUrl: 'https://example.com/w.png', href: 'https://wiki.example.com', pingUrl: null },
        { name: board.media.name, description: null, iconUrl: 'https://example.com/m.png', href: 'https://media.example.com', pingUrl: null },
      ],
    });

    const plan = expectOk(await importFile(source, file, '?onConflict=replace&dryRun=true'));
    expect(plan.changes.items).toEqual({ added: [], removed: [], updated: [] });
    expect(plan.warnings).toEqual([]);
  });

  it('FILE-8: import into another instance remaps the bookmarks\' app ids to that instance\'s apps and adds no appId option', async () => {
    const board = await bookmarksBoard(source);
    const file = await exportOf(source, board.boardId);
    const created = expectOk(await importFile(target, file), 201);
    const doc = expectOk(await target.call('GET', `/api/boards/${created.boardId}`));
    const options = doc.items.find((i: any) => i.id === board.bookmarks).options;
    expect(Object.keys(options).sort()).toEqual(['items', 'layout', 'title']);
    const names = [];
    for (const id of options.items) names.push(expectOk(await target.call('GET', `/api/apps/${id}`)).name);
    expect(names).toEqual([board.wiki.name, board.media.name]);
    expect(options.items).not.toContain(board.wiki.appId);
    // The bookmarks and the app widget share the one app the file names twice (APP-1).
    expect(options.items[1]).toBe(doc.items.find((i: any) => i.id === board.appWidget).options.appId);
    expect(portablePart(await exportOf(target, created.boardId))).toEqual(portablePart(file));
  });

  it('FILE-8: an app the exporting caller may not read stays an id in its place in the list', async () => {
    const board = await bookmarksBoard(source);
    const hidden = unique('hiddenapp');
    await source.db('apps').insert({ id: hidden, name: unique('hidden'), href: 'https://hidden.example.com', iconUrl: 'https://example.com/h.png' });
    const doc = expectOk(await source.call('GET', `/api/boards/${board.boardId}`));
    const items = doc.items.map((i: any) => (i.id === board.bookmarks ? { ...i, options: { ...i.options, items: [board.wiki.appId, hidden] } } : i));
    expectOk(await source.call('PUT', `/api/boards/${board.boardId}`, { body: { sections: doc.sections, items } }));
    const viewer = await createActor(source, { permissions: [] });
    await source.db('board_user_permissions').insert({ boardId: board.boardId, userId: viewer.userId, permission: 'view' });
    await source.db('app_user_permissions').insert({ appId: board.wiki.appId, userId: viewer.userId, permission: 'use' });
    const file = await exportOf(source, board.boardId, viewer.key);
    expect(file.items.find((i: any) => i.id === board.bookmarks).apps.items).toEqual([
      { name: board.wiki.name, description: 'Notes', iconUrl: 'https://example.com/w.png', href: 'https://wiki.example.com', pingUrl: null },
      { id: hidden },
    ]);
  });
});
