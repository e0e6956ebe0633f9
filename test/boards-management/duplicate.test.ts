import { unique } from '../support/unique';
import { newId } from '../../src/db/ids';
import { createActor, Actor } from '../support/actors';
import { useTestServer } from '../support/server';
import { boardRow, createBoard, expectError, grantGroup, grantUser } from './fixtures';

const server = useTestServer();

interface Source {
  boardId: string;
  name: string;
  usableIntegration: string;
  groupIntegration: string;
  otherIntegration: string;
}

/**
 * A source board with customised settings, two layouts, an empty, a category and two nested dynamic sections,
 * a collapse state, two items with positions in both layouts, bindings to three integrations and grant rows.
 */
async function sourceBoard(owner: Actor): Promise<Source> {
  const db = server.db;
  const name = unique('Source');
  const boardId = await createBoard(server, { key: owner.key, name, isPublic: true, columnCount: 12 });
  await db('boards').where({ id: boardId }).update({
    pageTitle: 'Lab',
    customCss: '.x { color: red }',
    primaryColor: '#123456',
    opacity: 70,
    itemRadius: 'sm',
    disableStatus: true,
    version: 9,
  });
  const base = (await db('layouts').where({ boardId }).first('id')).id;
  const mobile = newId();
  await db('layouts').insert({ id: mobile, boardId, name: 'Mobile', columnCount: 4, breakpoint: 0 });
  await db('layouts').where({ id: base }).update({ breakpoint: 768 });
  const empty = (await db('sections').where({ boardId }).first('id')).id;
  const category = newId();
  const dynamicOuter = newId();
  const dynamicInner = newId();
  await db('sections').insert([
    { id: category, boardId, kind: 'category', xOffset: 0, yOffset: 1, name: 'Media' },
    { id: dynamicOuter, boardId, kind: 'dynamic', options: JSON.stringify({ title: 'Outer', borderColor: '' }) },
    { id: dynamicInner, boardId, kind: 'dynamic', options: JSON.stringify({ title: 'Inner' }) },
  ]);
  await db('section_layouts').insert([
    { sectionId: dynamicOuter, layoutId: base, parentSectionId: empty, xOffset: 0, yOffset: 0, width: 6, height: 4 },
    { sectionId: dynamicOuter, layoutId: mobile, parentSectionId: empty, xOffset: 0, yOffset: 0, width: 4, height: 4 },
    { sectionId: dynamicInner, layoutId: base, parentSectionId: dynamicOuter, xOffset: 1, yOffset: 1, width: 2, height: 2 },
  ]);
  await db('section_collapse_states').insert({ userId: owner.userId, sectionId: category, collapsed: true });

  const clock = newId();
  const calendar = newId();
  await db('items').insert([
    { id: clock, boardId, kind: 'clock', options: JSON.stringify({ is24Hour: true, nested: { a: [1, 2] } }), advancedOptions: JSON.stringify({ title: 'Time' }) },
    { id: calendar, boardId, kind: 'calendar', options: JSON.stringify({}), advancedOptions: JSON.stringify({}) },
  ]);
  await db('item_layouts').insert([
    { itemId: clock, sectionId: empty, layoutId: base, xOffset: 0, yOffset: 0, width: 2, height: 1 },
    { itemId: clock, sectionId: empty, layoutId: mobile, xOffset: 0, yOffset: 0, width: 2, height: 1 },
    { itemId: calendar, sectionId: category, layoutId: base, xOffset: 3, yOffset: 2, width: 4, height: 4 },
    { itemId: calendar, sectionId: dynamicInner, layoutId: mobile, xOffset: 0, yOffset: 0, width: 1, height: 1 },
  ]);
  const usableIntegration = newId();
  const groupIntegration = newId();
  const otherIntegration = newId();
  await db('integrations').insert([
    { id: usableIntegration, name: 'Sonarr', kind: 'sonarr', url: 'http://sonarr.local' },
    { id: groupIntegration, name: 'Radarr', kind: 'radarr', url: 'http://radarr.local' },
    { id: otherIntegration, name: 'Pi-hole', kind: 'piHole', url: 'http://pihole.local' },
  ]);
  await db('integration_items').insert([
    { itemId: clock, integrationId: usableIntegration },
    { itemId: calendar, integrationId: groupIntegration },
    { itemId: calendar, integrationId: otherIntegration },
  ]);
  await grantUser(server, boardId, (await createActor(server)).userId, 'modify');
  return { boardId, name, usableIntegration, groupIntegration, otherIntegration };
}

/** The board's contents with ids replaced by their position, so that a source and its copy compare equal. */
async function contents(boardId: string) {
  const db = server.db;
  const layouts = await db('layouts').where({ boardId }).orderBy(['name']);
  const sections = await db('sections').where({ boardId }).orderBy(['kind', 'name', 'yOffset']);
  const items = await db('items').where({ boardId }).orderBy('kind');
  const layoutKey = new Map(layouts.map((l) => [l.id, l.name]));
  const sectionKey = new Map(sections.map((s) => [s.id, `${s.kind}:${s.name ?? ''}:${JSON.stringify(s.options)}`]));
  const itemKey = new Map(items.map((i) => [i.id, i.kind]));
  const sectionIds = sections.map((s) => s.id);
  const itemIds = items.map((i) => i.id);
  const sortJson = (rows: object[]) => rows.map((r) => JSON.stringify(r)).sort();
  return {
    layouts: layouts.map(({ id: _id, boardId: _b, ...rest }) => rest),
    sections: sortJson(sections.map(({ id, boardId: _b, ...rest }) => ({ key: sectionKey.get(id), ...rest }))),
    sectionLayouts: sortJson(
      (await db('section_layouts').whereIn('sectionId', sectionIds)).map((sl) => ({
        ...sl,
        sectionId: sectionKey.get(sl.sectionId),
        layoutId: layoutKey.get(sl.layoutId),
        parentSectionId: sl.parentSectionId && sectionKey.get(sl.parentSectionId),
      })),
    ),
    collapse: sortJson((await db('section_collapse_states').whereIn('sectionId', sectionIds)).map((c) => ({ ...c, sectionId: sectionKey.get(c.sectionId) }))),
    items: items.map(({ id: _id, boardId: _b, ...rest }) => rest),
    itemLayouts: sortJson(
      (await db('item_layouts').whereIn('itemId', itemIds)).map((il) => ({
        ...il,
        itemId: itemKey.get(il.itemId),
        sectionId: sectionKey.get(il.sectionId),
        layoutId: layoutKey.get(il.layoutId),
      })),
    ),
    bindings: sortJson((await db('integration_items').whereIn('itemId', itemIds)).map((b) => ({ ...b, itemId: itemKey.get(b.itemId) }))),
    allIds: [...layouts.map((l) => l.id), ...sectionIds, ...itemIds],
  };
}

describe('POST /api/boards/{id}/duplicate', () => {
  it('copies settings, visibility, layouts, sections, positions, collapse states and items with fresh ids', async () => {
    const owner = await createActor(server, { permissions: ['board-create'] });
    const source = await sourceBoard(owner);
    const caller = await createActor(server, { permissions: ['board-create'] });
    await grantUser(server, source.boardId, caller.userId, 'view');
    await server.db('integration_user_permissions').insert({ integrationId: source.usableIntegration, userId: caller.userId, permission: 'use' });
    await server.db('integration_group_permissions').insert({ integrationId: source.groupIntegration, groupId: caller.groupId, permission: 'interact' });
    const sourceBefore = await contents(source.boardId);
    const sourceRowBefore = await boardRow(server, source.boardId);

    const name = unique('Copy');
    const result = await server.call('POST', `/api/boards/${source.boardId}/duplicate`, { key: caller.key, body: { name } });
    expect(result.status).toBe(201);
    const copyId = result.body.boardId;
    expect(result.body).toEqual({ boardId: expect.stringMatching(/^[a-z][a-z0-9]{23}$/) });

    const copyRow = await boardRow(server, copyId);
    const { id: _a, name: _n, creatorId: _c, version: _v, revision: _r, createdAt: _t1, updatedAt: _t2, ...sourceColumns } = sourceRowBefore!;
    expect(copyRow).toMatchObject({ ...sourceColumns, name, creatorId: caller.userId, version: 0, isPublic: true, pageTitle: 'Lab', opacity: 70 });

    const copy = await contents(copyId);
    const { bindings: sourceBindings, allIds: sourceIds, ...sourceRest } = sourceBefore;
    const { bindings: copyBindings, allIds: copyIds, ...copyRest } = copy;
    expect(copyRest).toEqual(sourceRest);
    expect(copy.layouts).toHaveLength(2);
    expect(copy.sectionLayouts).toHaveLength(3);
    expect(copy.collapse).toHaveLength(1);
    expect(copy.itemLayouts).toHaveLength(4);
    // Fresh ids everywhere.
    expect(copyIds.filter((id) => sourceIds.includes(id))).toEqual([]);
    // Bindings: only the integrations the caller may use (user row, group row); the third is dropped.
    expect(sourceBindings).toHaveLength(3);
    expect(copyBindings.map((b) => JSON.parse(b))).toEqual(
      expect.arrayContaining([
        { itemId: 'clock', integrationId: source.usableIntegration },
        { itemId: 'calendar', integrationId: source.groupIntegration },
      ]),
    );
    expect(copyBindings).toHaveLength(2);
    // Grants are not copied; home pointers do not move; the source is untouched.
    expect(await server.db('board_user_permissions').where({ boardId: copyId })).toEqual([]);
    expect(await server.db('board_group_permissions').where({ boardId: copyId })).toEqual([]);
    expect((await server.db('users').where({ id: caller.userId }).first('homeBoardId')).homeBoardId).toBeNull();
    expect(await contents(source.boardId)).toEqual(sourceBefore);
    expect(await boardRow(server, source.boardId)).toEqual(sourceRowBefore);
  });

  it('copies every binding for a holder of integration-use-all', async () => {
    const owner = await createActor(server, { permissions: ['board-create', 'integration-use-all'] });
    const source = await sourceBoard(owner);
    const result = await server.call('POST', `/api/boards/${source.boardId}/duplicate`, { key: owner.key, body: { name: unique('board-') } });
    expect(result.status).toBe(201);
    expect((await contents(result.body.boardId)).bindings).toHaveLength(3);
  });

  it('drops every binding when the caller may use none (the creator without integration grants)', async () => {
    const owner = await createActor(server, { permissions: ['board-create'] });
    const source = await sourceBoard(owner);
    const result = await server.call('POST', `/api/boards/${source.boardId}/duplicate`, { key: owner.key, body: { name: unique('board-') } });
    expect(result.status).toBe(201);
    const copy = await contents(result.body.boardId);
    expect(copy.bindings).toEqual([]);
    expect(copy.items).toHaveLength(2);
  });

  describe('error order: 403, then 404, then 409', () => {
    let source: Source;
    let existing: string;
    beforeAll(async () => {
      const owner = await createActor(server, { permissions: ['board-create'] });
      source = await sourceBoard(owner);
      await server.db('boards').where({ id: source.boardId }).update({ isPublic: false });
      existing = unique('Existing');
      await createBoard(server, { name: existing });
    });

    async function expectNothingWritten(call: () => Promise<void>) {
      const before = Number((await server.db('boards').count({ n: '*' }))[0].n);
      const items = Number((await server.db('items').count({ n: '*' }))[0].n);
      await call();
      expect(Number((await server.db('boards').count({ n: '*' }))[0].n)).toBe(before);
      expect(Number((await server.db('items').count({ n: '*' }))[0].n)).toBe(items);
    }

    it('403 `Permission denied` without board-create, even with full access and a colliding name', async () => {
      const caller = await createActor(server, { permissions: [] });
      await grantUser(server, source.boardId, caller.userId, 'full');
      await expectNothingWritten(async () => {
        expectError(
          await server.call('POST', `/api/boards/${source.boardId}/duplicate`, { key: caller.key, body: { name: existing } }),
          403,
          'FORBIDDEN',
          'Permission denied',
        );
      });
    });

    it('404 `Board not found` with board-create but no view on the source, even with a colliding name', async () => {
      const caller = await createActor(server, { permissions: ['board-create'] });
      await expectNothingWritten(async () => {
        expectError(
          await server.call('POST', `/api/boards/${source.boardId}/duplicate`, { key: caller.key, body: { name: existing } }),
          404,
          'NOT_FOUND',
          'Board not found',
        );
      });
    });

    it.each([['exact'], ['upper'], ['lower'], ['source name']])('409 on a %s name collision', async (variant) => {
      const caller = await createActor(server, { permissions: ['board-create'] });
      await grantGroup(server, source.boardId, caller.groupId!, 'view');
      const name =
        variant === 'exact' ? existing : variant === 'upper' ? existing.toUpperCase() : variant === 'lower' ? existing.toLowerCase() : source.name;
      await expectNothingWritten(async () => {
        expectError(
          await server.call('POST', `/api/boards/${source.boardId}/duplicate`, { key: caller.key, body: { name } }),
          409,
          'CONFLICT',
          'Board with similar name already exists',
        );
      });
    });

    it('400 for an invalid name', async () => {
      expectError(
        await server.call('POST', `/api/boards/${source.boardId}/duplicate`, { body: { name: 'has space' } }),
        400,
        'BAD_REQUEST',
        'Input validation failed',
      );
    });
  });

  it('two simultaneous duplicates to the same name: one 201, one 409', async () => {
    const boardId = await createBoard(server);
    const name = unique('twin');
    const results = await Promise.all([
      server.call('POST', `/api/boards/${boardId}/duplicate`, { body: { name } }),
      server.call('POST', `/api/boards/${boardId}/duplicate`, { body: { name: name.toUpperCase() } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expectError(results.find((r) => r.status === 409)!, 409, 'CONFLICT', 'Board with similar name already exists');
  });
});
