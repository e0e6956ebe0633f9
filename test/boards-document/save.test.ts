import { unique } from '../support/unique';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { categorySection, createBoard, createIntegration, emptySection, expectError, expectOk, getBoard, item, position, readContent } from './helpers';

const server = useTestServer();

const put = (boardId: string, body: unknown, key?: string | null) =>
  server.call('PUT', `/api/boards/${boardId}`, key === undefined ? { body } : { body, key });

const deep = (levels: number): Record<string, unknown> => (levels === 0 ? {} : { d: deep(levels - 1) });

async function versionOf(boardId: string): Promise<number> {
  return (await server.db('boards').where({ id: boardId }).first('version')).version;
}

describe('PUT /api/boards/{id}', () => {
  it('PUT-1: settings, name, visibility and layouts are not accepted in the body', async () => {
    const board = await createBoard(server);
    const { sections, items } = await readContent(server, board.boardId);
    for (const extra of [{ name: 'x' }, { pageTitle: 'x' }, { isPublic: true }, { layouts: [] }, { id: board.boardId }]) {
      expectError(await put(board.boardId, { sections, items, ...extra }), 400, 'BAD_REQUEST', 'Input validation failed');
    }
    expect(await versionOf(board.boardId)).toBe(0);
  });

  it('PUT-2, PUT-12: {sections, items} from a GET is a valid body; the answer is a fresh read with the next version', async () => {
    const board = await createBoard(server);
    const body = {
      sections: [
        emptySection(board.sectionId),
        categorySection(unique('cat'), 'Apps', 1),
        {
          id: 'dyn-' + unique(),
          kind: 'dynamic',
          options: { title: 'Box', customCssClasses: ['a'], borderColor: '#ff0000' },
          layouts: [{ layoutId: board.layoutId, parentSectionId: board.sectionId, xOffset: 4, yOffset: 0, width: 3, height: 2 }],
        },
      ],
      items: [item(unique('it'), [position(board.layoutId, board.sectionId, 0, 0, 2, 1)], { options: { a: 1 } })],
    };
    const first = expectOk(await put(board.boardId, body));
    expect(first.version).toBe(1);
    const { doc, sections, items } = await readContent(server, board.boardId);
    expect(doc).toEqual(first);
    const second = expectOk(await put(board.boardId, { sections, items, expectedVersion: doc.version }));
    expect(second.version).toBe(2);
    expect(second.sections).toEqual(first.sections);
    expect(second.items).toEqual(first.items);
  });

  it('PUT-3: absent sections and items are deleted; deleting a section removes the positions inside it', async () => {
    const board = await createBoard(server);
    const mobile = unique('layout');
    await server.db('layouts').insert({ id: mobile, boardId: board.boardId, name: 'Mobile', columnCount: 4, breakpoint: 400 });
    const second = unique('sec');
    const kept = item(unique('keep'), [position(board.layoutId, board.sectionId), position(mobile, second)]);
    const dropped = item(unique('drop'), [position(board.layoutId, board.sectionId, 1, 0)]);
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId), emptySection(second, 1)], items: [kept, dropped] }));
    const doc = expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [{ ...kept, layouts: [kept.layouts[0]] }] }));
    expect(doc.sections.map((s: any) => s.id)).toEqual([board.sectionId]);
    expect(doc.items.map((i: any) => i.id)).toEqual([kept.id]);
    expect(doc.items[0].layouts).toEqual([kept.layouts[0]]);
    expect(await server.db('item_layouts').where({ itemId: kept.id })).toHaveLength(1);
    expect(await server.db('items').where({ id: dropped.id })).toHaveLength(0);
  });

  it('PUT-4: elements are added with client-minted ids; an id used on another board is a 409 and nothing is written', async () => {
    const board = await createBoard(server);
    const other = await createBoard(server);
    const newItem = item(unique('new'), [position(board.layoutId, board.sectionId)]);
    const added = expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [newItem] }));
    expect(added.items.map((i: any) => i.id)).toEqual([newItem.id]);

    const stolen = { ...newItem, layouts: [position(other.layoutId, other.sectionId)] };
    const otherNew = item(unique('fresh'), [position(other.layoutId, other.sectionId)]);
    expectError(
      await put(other.boardId, { sections: [emptySection(other.sectionId), emptySection(board.sectionId, 1)], items: [stolen, otherNew] }),
      409,
      'CONFLICT',
      `Ids already used on another board: ${newItem.id}, ${board.sectionId}`,
    );
    expect(await versionOf(other.boardId)).toBe(0);
    expect(await server.db('items').where({ id: otherNew.id })).toHaveLength(0);
  });

  it('PUT-5: an existing item only gets its existing positions updated, never a new one; new items get exactly the entries sent', async () => {
    const board = await createBoard(server);
    const mobile = unique('layout');
    await server.db('layouts').insert({ id: mobile, boardId: board.boardId, name: 'Mobile', columnCount: 4, breakpoint: 400 });
    const it = item(unique('it'), [position(board.layoutId, board.sectionId, 0, 0, 2, 1)]);
    const created = expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [it] }));
    expect(created.items[0].layouts).toEqual([position(board.layoutId, board.sectionId, 0, 0, 2, 1)]);

    const moved = { ...it, layouts: [position(board.layoutId, board.sectionId, 3, 2, 1, 1), position(mobile, board.sectionId, 1, 1)] };
    const doc = expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [moved] }));
    expect(doc.items[0].layouts).toEqual([position(board.layoutId, board.sectionId, 3, 2, 1, 1)]);
    expect(await server.db('item_layouts').where({ itemId: it.id, layoutId: mobile })).toHaveLength(0);
  });

  it('PUT-6: kind never changes; a category payload on a stored empty section leaves it empty with a null name', async () => {
    const board = await createBoard(server);
    const doc = expectOk(
      await put(board.boardId, { sections: [{ id: board.sectionId, kind: 'category', name: 'Test', yOffset: 1, xOffset: 0, collapsed: true }], items: [] }),
    );
    expect(doc.sections).toEqual([{ id: board.sectionId, kind: 'empty', yOffset: 1, xOffset: 0 }]);
    const row = await server.db('sections').where({ id: board.sectionId }).first();
    expect(row).toMatchObject({ kind: 'empty', name: null, yOffset: 1 });
  });

  it('PUT-6: a category is renamed and moved; sent as a dynamic payload it stays a readable category', async () => {
    const board = await createBoard(server);
    const cat = unique('cat');
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId), categorySection(cat, 'Before', 1)], items: [] }));
    const renamed = expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId), categorySection(cat, 'After', 3)], items: [] }));
    expect(renamed.sections[1]).toEqual({ id: cat, kind: 'category', name: 'After', yOffset: 3, xOffset: 0, collapsed: false });
    const asDynamic = {
      id: cat,
      kind: 'dynamic',
      options: { title: 'x' },
      layouts: [{ layoutId: board.layoutId, parentSectionId: board.sectionId, xOffset: 0, yOffset: 0, width: 1, height: 1 }],
    };
    const doc = expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId), asDynamic], items: [] }));
    expect(doc.sections[1]).toEqual({ id: cat, kind: 'category', name: 'After', yOffset: 3, xOffset: 0, collapsed: false });
    expect(await server.db('section_layouts').where({ sectionId: cat })).toHaveLength(0);
    expectOk(await getBoard(server, board.boardId));
  });

  it('PUT-7: xOffset of category and empty sections is required but stored as 0', async () => {
    const board = await createBoard(server);
    const cat = unique('cat');
    const doc = expectOk(
      await put(board.boardId, { sections: [{ ...emptySection(board.sectionId), xOffset: 7 }, { ...categorySection(cat, 'C', 2), xOffset: 5 }], items: [] }),
    );
    expect(doc.sections.map((s: any) => s.xOffset)).toEqual([0, 0]);
    expect((await server.db('sections').where({ boardId: board.boardId })).map((s: any) => s.xOffset)).toEqual([0, 0]);
    const { xOffset: _x, ...withoutX } = emptySection(board.sectionId);
    expectError(await put(board.boardId, { sections: [withoutX], items: [] }), 400, 'BAD_REQUEST', 'Input validation failed');
  });

  it('PUT-8: collapsed cannot be written', async () => {
    const board = await createBoard(server);
    const cat = unique('cat');
    const doc = expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId), { ...categorySection(cat, 'C'), collapsed: true }], items: [] }));
    expect(doc.sections[1].collapsed).toBe(false);
    expect(await server.db('section_collapse_states').where({ sectionId: cat })).toHaveLength(0);
  });

  it('PUT-9: widget options are stored as written, misspelled keys included', async () => {
    const board = await createBoard(server);
    const it = item(unique('it'), [position(board.layoutId, board.sectionId)], { options: { is24HourFromat: true, nested: { list: [1, 'two'] } } });
    const doc = expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [it] }));
    expect(doc.items[0].options).toEqual({ is24HourFromat: true, nested: { list: [1, 'two'] } });
  });

  it('PUT-10: an item without a position for every layout is accepted', async () => {
    const board = await createBoard(server);
    const it = item(unique('it'), []);
    const doc = expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [it] }));
    expect(doc.items[0].layouts).toEqual([]);
  });

  it('PUT-13: items of unknown kinds are invisible, not deleted and not updated by a save', async () => {
    const board = await createBoard(server);
    const legacy = unique('legacy');
    const integrationId = await createIntegration(server);
    await server.db('items').insert({ id: legacy, boardId: board.boardId, kind: 'retiredWidget', options: '{"keep":true}', advancedOptions: '{}' });
    await server.db('item_layouts').insert({ itemId: legacy, layoutId: board.layoutId, sectionId: board.sectionId, xOffset: 5, yOffset: 5, width: 1, height: 1 });
    await server.db('integration_items').insert({ itemId: legacy, integrationId });
    const { sections, items } = await readContent(server, board.boardId);
    expect(items).toEqual([]);
    expectOk(await put(board.boardId, { sections, items: [item(unique('new'), [position(board.layoutId, board.sectionId)])] }));
    expectOk(await put(board.boardId, { sections, items: [] }));
    expect(await server.db('items').where({ id: legacy }).first()).toMatchObject({ kind: 'retiredWidget', options: { keep: true } });
    expect(await server.db('item_layouts').where({ itemId: legacy })).toHaveLength(1);
    expect(await server.db('integration_items').where({ itemId: legacy })).toHaveLength(1);
    // Reusing the hidden item's id is refused, not a primary-key 500.
    expectError(await put(board.boardId, { sections, items: [item(legacy, [])] }), 409, 'CONFLICT');
  });

  describe('checks before writing (400, nothing written)', () => {
    const cases: [string, (b: Awaited<ReturnType<typeof createBoard>>) => unknown, string][] = [
      [
        'duplicate item ids',
        (b) => ({ sections: [emptySection(b.sectionId)], items: [item('dup1', []), item('dup1', [])] }),
        'Duplicate item ids in payload: dup1',
      ],
      [
        'duplicate section ids',
        (b) => ({ sections: [emptySection(b.sectionId), emptySection(b.sectionId, 1)], items: [] }),
        'Duplicate section ids in payload: SECTION',
      ],
      [
        'a position in a layout not on this board',
        (b) => ({ sections: [emptySection(b.sectionId)], items: [item('x1', [position('not-a-layout', b.sectionId)])] }),
        'Positions reference layouts not on this board: not-a-layout',
      ],
      [
        'a position in a section not in the payload',
        (b) => ({ sections: [emptySection(b.sectionId)], items: [item('x2', [position(b.layoutId, 'ghost')])] }),
        'Item positions reference sections not in the payload: ghost',
      ],
      [
        'two positions in one layout',
        (b) => ({ sections: [emptySection(b.sectionId)], items: [item('x3', [position(b.layoutId, b.sectionId), position(b.layoutId, b.sectionId, 1)])] }),
        'Items with more than one position in the same layout: x3',
      ],
      [
        'a dynamic section whose parent is not in the payload',
        (b) => ({
          sections: [
            emptySection(b.sectionId),
            { id: 'd1', kind: 'dynamic', options: {}, layouts: [{ layoutId: b.layoutId, parentSectionId: 'ghost', xOffset: 0, yOffset: 0, width: 1, height: 1 }] },
          ],
          items: [],
        }),
        'Dynamic section positions reference parent sections not in the payload: ghost',
      ],
      [
        'a dynamic section in a layout not on this board',
        (b) => ({
          sections: [
            emptySection(b.sectionId),
            { id: 'd2', kind: 'dynamic', options: {}, layouts: [{ layoutId: 'nope', parentSectionId: b.sectionId, xOffset: 0, yOffset: 0, width: 1, height: 1 }] },
          ],
          items: [],
        }),
        'Positions reference layouts not on this board: nope',
      ],
      [
        'dynamic sections nested in each other',
        (b) => ({
          sections: [
            emptySection(b.sectionId),
            { id: 'd3', kind: 'dynamic', options: {}, layouts: [{ layoutId: b.layoutId, parentSectionId: 'd4', xOffset: 0, yOffset: 0, width: 1, height: 1 }] },
            { id: 'd4', kind: 'dynamic', options: {}, layouts: [{ layoutId: b.layoutId, parentSectionId: 'd3', xOffset: 0, yOffset: 0, width: 1, height: 1 }] },
          ],
          items: [],
        }),
        'Dynamic sections nested in themselves: d3, d4',
      ],
      [
        'integration ids that do not exist',
        (b) => ({ sections: [emptySection(b.sectionId)], items: [item('x4', [], { integrationIds: ['no-such-integration'] })] }),
        'Invalid integration IDs: no-such-integration',
      ],
      [
        'NUL inside widget options',
        (b) => ({ sections: [emptySection(b.sectionId)], items: [item('x5', [], { options: { deep: ['ok', 'bad\u0000'] } })] }),
        'Invalid text at /items/0/options/deep/1: lone UTF-16 surrogates and NUL characters cannot be stored',
      ],
      [
        'a lone surrogate inside widget options',
        (b) => ({ sections: [emptySection(b.sectionId)], items: [item('x6', [], { options: { ['k\ud800']: 1 } })] }),
        'Invalid text at /items/0/options/k\ud800: lone UTF-16 surrogates and NUL characters cannot be stored',
      ],
      [
        'widget options nested too deeply',
        (b) => ({ sections: [emptySection(b.sectionId)], items: [item('x7', [], { options: deep(100) })] }),
        'Cannot store options of item x7: nesting deeper than 64 levels',
      ],
      [
        'a lone surrogate in dynamic section options',
        (b) => ({
          sections: [emptySection(b.sectionId), { id: 'd9', kind: 'dynamic', options: { title: '\udc00' }, layouts: [] }],
          items: [],
        }),
        'Invalid text at /sections/1/options/title: lone UTF-16 surrogates and NUL characters cannot be stored',
      ],
    ];
    it.each(cases)('%s', async (_name, build, message) => {
      const board = await createBoard(server);
      const result = await put(board.boardId, build(board));
      expectError(result, 400, 'BAD_REQUEST', message.replace('SECTION', board.sectionId));
      expect(await versionOf(board.boardId)).toBe(0);
      expect(await server.db('items').where({ boardId: board.boardId })).toHaveLength(0);
    });

    it.each([
      ['an unknown widget kind', (b: any) => ({ sections: [emptySection(b.sectionId)], items: [item('k', [], { kind: 'noSuchWidget' })] })],
      ['an offset beyond 32767', (b: any) => ({ sections: [emptySection(b.sectionId)], items: [item('k', [position(b.layoutId, b.sectionId, 40000)])] })],
      ['a zero width', (b: any) => ({ sections: [emptySection(b.sectionId)], items: [item('k', [position(b.layoutId, b.sectionId, 0, 0, 0)])] })],
      ['an expectedVersion beyond int32', (b: any) => ({ sections: [emptySection(b.sectionId)], items: [], expectedVersion: 2147483647 })],
      ['a section id with spaces', () => ({ sections: [emptySection('has space')], items: [] })],
    ])('%s is an input validation failure', async (_name, build) => {
      const board = await createBoard(server);
      expectError(await put(board.boardId, build(board)), 400, 'BAD_REQUEST', 'Input validation failed');
      expect(await versionOf(board.boardId)).toBe(0);
    });
  });

  it('needs authentication (401) and modify permission (404 Board not found)', async () => {
    const board = await createBoard(server, { isPublic: true });
    const body = { sections: [emptySection(board.sectionId)], items: [] };
    expectError(await put(board.boardId, body, null), 401, 'UNAUTHORIZED');
    const viewer = await createActor(server);
    await server.db('board_user_permissions').insert({ boardId: board.boardId, userId: viewer.userId, permission: 'view' });
    expectError(await put(board.boardId, body, viewer.key), 404, 'NOT_FOUND', 'Board not found');
    expectError(await put('missing-board', body), 404, 'NOT_FOUND', 'Board not found');
    const editor = await createActor(server);
    await server.db('board_user_permissions').insert({ boardId: board.boardId, userId: editor.userId, permission: 'modify' });
    expectOk(await put(board.boardId, body, editor.key));
    expect(await versionOf(board.boardId)).toBe(1);
  });
});
