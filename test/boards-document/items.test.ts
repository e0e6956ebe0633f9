import { unique } from '../support/unique';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { createBoard, createIntegration, emptySection, expectError, expectOk, grantIntegration, item, position, readContent } from './helpers';

const server = useTestServer();

const addItem = (body: unknown, key?: string | null) => server.call('POST', '/api/boards/items', key === undefined ? { body } : { body, key });
const put = (boardId: string, body: unknown) => server.call('PUT', `/api/boards/${boardId}`, { body });
const boardRow = (id: string) => server.db('boards').where({ id }).first();

describe('POST /api/boards/items', () => {
  it('ADD-1: places the default size at the first free cell of the first empty section by yOffset, in every layout', async () => {
    const board = await createBoard(server, { columns: 4 });
    const mobile = unique('mobile');
    await server.db('layouts').insert({ id: mobile, boardId: board.boardId, name: 'Mobile', columnCount: 2, breakpoint: 300 });
    const lower = unique('lower');
    const cat = unique('cat');
    expectOk(
      await put(board.boardId, {
        sections: [
          { id: cat, kind: 'category', name: 'First', yOffset: 0, xOffset: 0, collapsed: false },
          emptySection(board.sectionId, 1),
          emptySection(lower, 2),
          { id: unique('dyn'), kind: 'dynamic', options: {}, layouts: [{ layoutId: board.layoutId, parentSectionId: board.sectionId, xOffset: 2, yOffset: 1, width: 2, height: 2 }] },
        ],
        items: [item(unique('occupant'), [position(board.layoutId, board.sectionId, 0, 0, 3, 1), position(mobile, board.sectionId, 0, 0, 1, 1)])],
      }),
    );
    const created = expectOk(await addItem({ boardId: board.boardId, kind: 'uptimeKuma', options: { showUptimeRing: true } }), 201);
    expect(created.itemId).toMatch(/^[a-z][a-z0-9]{23}$/);
    const { items } = await readContent(server, board.boardId);
    const added = items.find((i: any) => i.id === created.itemId);
    expect(added).toMatchObject({ kind: 'uptimeKuma', options: { showUptimeRing: true }, integrationIds: [] });
    expect(added.advancedOptions).toEqual({ title: null, customCssClasses: [], borderColor: '' });
    // 2x3 next to nothing in row 0 (3 of 4 columns taken), so row 1; the dynamic section does not occupy cells.
    expect(added.layouts).toEqual([position(board.layoutId, board.sectionId, 0, 1, 2, 3), position(mobile, board.sectionId, 0, 1, 2, 3)]);
  });

  it('ADD-1: 400 when the board has no empty section', async () => {
    const board = await createBoard(server);
    await server.db('sections').where({ id: board.sectionId }).update({ kind: 'category', name: 'C' });
    expectError(await addItem({ boardId: board.boardId, kind: 'clock' }), 400, 'BAD_REQUEST', 'Board has no empty section to place items in');
    expect(await server.db('items').where({ boardId: board.boardId })).toHaveLength(0);
  });

  it('ADD-2: 400 when the default size does not fit the grid; nothing is inserted', async () => {
    const board = await createBoard(server, { columns: 3 });
    expectError(await addItem({ boardId: board.boardId, kind: 'mediaMissing' }), 400, 'BAD_REQUEST', 'Board section is full, no free grid position available');
    expect(await server.db('items').where({ boardId: board.boardId })).toHaveLength(0);
    expect((await boardRow(board.boardId)).revision).toBe(0);
  });

  it('ADD-2: 400 when the only free cell would lie below the last row a document can hold (32767)', async () => {
    const board = await createBoard(server, { columns: 12 });
    const L = board.layoutId;
    const S = board.sectionId;
    expectOk(
      await put(board.boardId, {
        sections: [emptySection(S)],
        items: [item(unique('tall'), [position(L, S, 0, 0, 12, 32767)]), item(unique('last'), [position(L, S, 0, 32767, 12, 1)])],
      }),
    );
    expectError(await addItem({ boardId: board.boardId, kind: 'clock' }), 400, 'BAD_REQUEST', 'Board section is full, no free grid position available');
    expect(await server.db('items').where({ boardId: board.boardId })).toHaveLength(2);
  });

  it('ADD-3: the version is unchanged, the revision moves', async () => {
    const board = await createBoard(server);
    expectOk(await addItem({ boardId: board.boardId, kind: 'clock' }), 201);
    const row = await boardRow(board.boardId);
    expect(row.version).toBe(0);
    expect(row.revision).toBe(1);
  });

  it('ADD-4: unknown integration ids are a 400 listing them; then every id needs use access (403)', async () => {
    const actor = await createActor(server);
    const board = await createBoard(server, { creatorId: actor.userId });
    const granted = await createIntegration(server);
    const notGranted = await createIntegration(server);
    await grantIntegration(server, granted, actor.userId, 'use');
    expectError(
      await addItem({ boardId: board.boardId, kind: 'calendar', integrationIds: [granted, 'ghost1', 'ghost2'] }, actor.key),
      400,
      'BAD_REQUEST',
      'Invalid integration IDs: ghost1, ghost2',
    );
    // Already bound on the board (by someone else) does not matter: an added item's ids are all new bindings.
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [item(unique('other'), [], { integrationIds: [notGranted] })] }));
    expectError(
      await addItem({ boardId: board.boardId, kind: 'calendar', integrationIds: [granted, notGranted] }, actor.key),
      403,
      'FORBIDDEN',
      `No access to integrations: ${notGranted}`,
    );
    const created = expectOk(await addItem({ boardId: board.boardId, kind: 'calendar', integrationIds: [granted] }, actor.key), 201);
    expect(await server.db('integration_items').where({ itemId: created.itemId })).toEqual([{ itemId: created.itemId, integrationId: granted }]);
  });

  it('checks the board first: 404 Board not found before anything else; 401 without credentials', async () => {
    const actor = await createActor(server);
    const board = await createBoard(server, { isPublic: true });
    expectError(await addItem({ boardId: board.boardId, kind: 'clock', integrationIds: ['ghost'] }, actor.key), 404, 'NOT_FOUND', 'Board not found');
    expectError(await addItem({ boardId: 'missing', kind: 'clock' }), 404, 'NOT_FOUND', 'Board not found');
    expectError(await addItem({ boardId: board.boardId, kind: 'clock' }, null), 401, 'UNAUTHORIZED');
    expectError(await addItem({ boardId: board.boardId, kind: 'noSuchWidget' }), 400, 'BAD_REQUEST', 'Input validation failed');
    expectError(await addItem({ boardId: board.boardId, kind: 'clock', options: { t: 'a\u0000' } }), 400, 'BAD_REQUEST');
  });
});

describe('PATCH and DELETE /api/boards/{id}/items/{itemId}', () => {
  async function boardWithItem() {
    const board = await createBoard(server);
    const mobile = unique('mobile');
    const third = unique('third');
    await server.db('layouts').insert([
      { id: mobile, boardId: board.boardId, name: 'Mobile', columnCount: 4, breakpoint: 300 },
      { id: third, boardId: board.boardId, name: 'Third', columnCount: 6, breakpoint: 900 },
    ]);
    const integrationId = await createIntegration(server);
    const it = item(unique('it'), [position(board.layoutId, board.sectionId, 0, 0, 2, 1), position(mobile, board.sectionId, 0, 0, 1, 1)], {
      options: { a: 1, b: 2 },
      advancedOptions: { title: 'T', customCssClasses: ['x'], borderColor: '#fff' },
      integrationIds: [integrationId],
    });
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [it] }));
    return { ...board, mobile, third, it, integrationId };
  }
  const patchItem = (boardId: string, itemId: string, body: unknown, key?: string) =>
    server.call('PATCH', `/api/boards/${boardId}/items/${itemId}`, key === undefined ? { body } : { body, key });

  it('replaces options whole and leaves omitted fields alone; bumps the version', async () => {
    const b = await boardWithItem();
    const doc = expectOk(await patchItem(b.boardId, b.it.id, { options: { c: 3 } }));
    expect(doc.version).toBe(2);
    expect(doc.items[0]).toEqual({ ...b.it, options: { c: 3 } });
  });

  it('replaces advancedOptions and integrationIds whole', async () => {
    const b = await boardWithItem();
    const doc = expectOk(await patchItem(b.boardId, b.it.id, { advancedOptions: { title: 'New' }, integrationIds: [] }));
    expect(doc.items[0].advancedOptions).toEqual({ title: 'New', customCssClasses: [], borderColor: '' });
    expect(doc.items[0].integrationIds).toEqual([]);
    expect(doc.items[0].options).toEqual({ a: 1, b: 2 });
  });

  it('updates existing positions, leaves omitted layouts alone and drops entries for layouts without a position', async () => {
    const b = await boardWithItem();
    const doc = expectOk(
      await patchItem(b.boardId, b.it.id, { layouts: [position(b.mobile, b.sectionId, 2, 3, 2, 2), position(b.third, b.sectionId, 1, 1)] }),
    );
    expect(doc.items[0].layouts).toEqual([position(b.layoutId, b.sectionId, 0, 0, 2, 1), position(b.mobile, b.sectionId, 2, 3, 2, 2)]);
    expect(await server.db('item_layouts').where({ itemId: b.it.id, layoutId: b.third })).toHaveLength(0);
  });

  it('checks new bindings like PUT: 403 without use access, existing ones survive', async () => {
    const b = await boardWithItem();
    const editor = await createActor(server);
    await server.db('board_user_permissions').insert({ boardId: b.boardId, userId: editor.userId, permission: 'modify' });
    const foreign = await createIntegration(server);
    expectError(await patchItem(b.boardId, b.it.id, { integrationIds: [b.integrationId, foreign] }, editor.key), 403, 'FORBIDDEN', `No access to integrations: ${foreign}`);
    const doc = expectOk(await patchItem(b.boardId, b.it.id, { options: {} }, editor.key));
    expect(doc.items[0].integrationIds).toEqual([b.integrationId]);
  });

  it('DELETE removes the item and bumps the version; unknown items are 404 Item not found', async () => {
    const b = await boardWithItem();
    const doc = expectOk(await server.call('DELETE', `/api/boards/${b.boardId}/items/${b.it.id}`));
    expect(doc.items).toEqual([]);
    expect(doc.version).toBe(2);
    expectError(await server.call('DELETE', `/api/boards/${b.boardId}/items/${b.it.id}`), 404, 'NOT_FOUND', 'Item not found');
    expectError(await patchItem(b.boardId, 'nope', { options: {} }), 404, 'NOT_FOUND', 'Item not found');
    // An item of an unknown kind is not reachable either.
    const legacy = unique('legacy');
    await server.db('items').insert({ id: legacy, boardId: b.boardId, kind: 'retiredWidget', options: '{}', advancedOptions: '{}' });
    expectError(await server.call('DELETE', `/api/boards/${b.boardId}/items/${legacy}`), 404, 'NOT_FOUND', 'Item not found');
    expectError(await server.call('DELETE', `/api/boards/missing/items/${legacy}`), 404, 'NOT_FOUND', 'Board not found');
  });
});
