import { unique } from '../support/unique';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { createBoard, emptySection, expectError, expectOk, item, position, readContent } from './helpers';

const server = useTestServer();

const patchLayouts = (boardId: string, layouts: unknown, key?: string | null) =>
  server.call('PATCH', `/api/boards/${boardId}/layouts`, key === undefined ? { body: { layouts } } : { body: { layouts }, key });
const put = (boardId: string, body: unknown) => server.call('PUT', `/api/boards/${boardId}`, { body });
const base = (layoutId: string, columnCount = 10) => ({ id: layoutId, name: 'Base', columnCount, breakpoint: 0 });
const positionsIn = (doc: any, layoutId: string) =>
  Object.fromEntries([
    ...doc.items.flatMap((i: any) => i.layouts.filter((p: any) => p.layoutId === layoutId).map((p: any) => [i.id, [p.xOffset, p.yOffset, p.width, p.height]])),
    ...doc.sections
      .filter((s: any) => s.kind === 'dynamic')
      .flatMap((s: any) => s.layouts.filter((p: any) => p.layoutId === layoutId).map((p: any) => [s.id, [p.xOffset, p.yOffset, p.width, p.height]])),
  ]);

/** The worked example of GRID-2 on a 10-column board. */
async function exampleBoard() {
  const board = await createBoard(server, { columns: 10 });
  const L = board.layoutId;
  const S = board.sectionId;
  const dyn = (id: string, x: number, y: number, w: number, h: number) => ({
    id,
    kind: 'dynamic',
    options: {},
    layouts: [{ layoutId: L, parentSectionId: S, xOffset: x, yOffset: y, width: w, height: h }],
  });
  const f = unique('f');
  const g = unique('g');
  const it = (id: string, section: string, x: number, y: number, w: number, h: number) => item(id, [position(L, section, x, y, w, h)]);
  expectOk(
    await put(board.boardId, {
      sections: [emptySection(S), dyn(f, 1, 1, 5, 3), dyn(g, 6, 2, 2, 2)],
      items: [
        it('a-' + f, S, 0, 0, 1, 1),
        it('b-' + f, S, 1, 0, 5, 1),
        it('c-' + f, S, 6, 0, 2, 2),
        it('d-' + f, S, 8, 0, 2, 3),
        it('e-' + f, S, 0, 1, 1, 3),
        it('h-' + f, f, 0, 0, 5, 1),
        it('i-' + f, f, 0, 1, 3, 2),
        it('j-' + f, f, 3, 1, 2, 1),
      ],
    }),
  );
  return { ...board, f, g, suffix: f };
}

describe('PATCH /api/boards/{id}/layouts', () => {
  it('LAYOUT-2, LAYOUT-3: a new layout gets a server id and positions cloned and refitted (10 -> 3 columns)', async () => {
    const board = await exampleBoard();
    const doc = expectOk(await patchLayouts(board.boardId, [base(board.layoutId), { id: 'client-made', name: 'Mobile', columnCount: 3, breakpoint: 0 }]));
    expect(doc.layouts).toHaveLength(2);
    const created = doc.layouts.find((l: any) => l.name === 'Mobile');
    expect(created.id).not.toBe('client-made');
    expect(created.id).toMatch(/^[a-z][a-z0-9]{23}$/);
    const s = board.suffix;
    expect(positionsIn(doc, created.id)).toEqual({
      ['a-' + s]: [0, 0, 1, 1],
      ['b-' + s]: [0, 1, 3, 1],
      ['c-' + s]: [0, 2, 2, 2],
      ['e-' + s]: [2, 2, 1, 3],
      ['d-' + s]: [0, 4, 2, 3],
      [board.f]: [0, 7, 3, 4],
      [board.g]: [0, 11, 2, 2],
      ['h-' + s]: [0, 0, 3, 1],
      ['i-' + s]: [0, 1, 3, 2],
      ['j-' + s]: [0, 3, 2, 1],
    });
    // Sections keep their parents, items their sections.
    const f = doc.sections.find((x: any) => x.id === board.f);
    expect(f.layouts.find((p: any) => p.layoutId === created.id).parentSectionId).toBe(board.sectionId);
    expect(doc.items.find((i: any) => i.id === 'h-' + s).layouts.find((p: any) => p.layoutId === created.id).sectionId).toBe(board.f);
  });

  it('LAYOUT-2: re-sending a payload with the discarded client id deletes the layout created before and creates another', async () => {
    const board = await createBoard(server);
    const payload = [base(board.layoutId, 12), { id: 'phone', name: 'Phone', columnCount: 4, breakpoint: 300 }];
    const first = expectOk(await patchLayouts(board.boardId, payload));
    const second = expectOk(await patchLayouts(board.boardId, payload));
    const firstId = first.layouts.find((l: any) => l.name === 'Phone').id;
    const secondId = second.layouts.find((l: any) => l.name === 'Phone').id;
    expect(secondId).not.toBe(firstId);
    expect(second.layouts).toHaveLength(2);
    expect(await server.db('layouts').where({ id: firstId })).toHaveLength(0);
  });

  it('LAYOUT-3: the clone source is the smallest columnCount >= the new one, else the largest layout', async () => {
    const board = await createBoard(server, { columns: 12 });
    const mid = unique('mid');
    await server.db('layouts').insert({ id: mid, boardId: board.boardId, name: 'Mid', columnCount: 6, breakpoint: 600 });
    const it = item(unique('it'), [position(board.layoutId, board.sectionId, 8, 0, 4, 1), position(mid, board.sectionId, 2, 3, 2, 1)]);
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [it] }));
    const doc = expectOk(
      await patchLayouts(board.boardId, [
        base(board.layoutId, 12),
        { id: mid, name: 'Mid', columnCount: 6, breakpoint: 600 },
        { id: 'five', name: 'Five', columnCount: 5, breakpoint: 500 },
        { id: 'wide', name: 'Wide', columnCount: 20, breakpoint: 2000 },
      ]),
    );
    const five = doc.layouts.find((l: any) => l.name === 'Five').id;
    const wide = doc.layouts.find((l: any) => l.name === 'Wide').id;
    // From Mid (6 >= 5, smallest such): re-packed into 5 columns.
    expect(positionsIn(doc, five)[it.id]).toEqual([0, 0, 2, 1]);
    // Nothing has >= 20 columns: the largest (Base, 12) is cloned and, growing, kept as is.
    expect(positionsIn(doc, wide)[it.id]).toEqual([8, 0, 4, 1]);
  });

  it('LAYOUT-4: a changed columnCount regenerates that layout’s positions', async () => {
    const board = await exampleBoard();
    const doc = expectOk(await patchLayouts(board.boardId, [{ ...base(board.layoutId), columnCount: 3, name: 'Narrow', breakpoint: 10 }]));
    expect(doc.layouts).toEqual([{ id: board.layoutId, name: 'Narrow', columnCount: 3, breakpoint: 10 }]);
    expect(positionsIn(doc, board.layoutId)[board.f]).toEqual([0, 7, 3, 4]);
    expect(positionsIn(doc, board.layoutId)['j-' + board.suffix]).toEqual([0, 3, 2, 1]);
  });

  it('LAYOUT-3, LAYOUT-4 in one request: the new layout’s positions are inserted and the changed layout’s replaced, as stored', async () => {
    const board = await exampleBoard();
    const doc = expectOk(
      await patchLayouts(board.boardId, [{ ...base(board.layoutId), columnCount: 3 }, { id: 'client-made', name: 'Mobile', columnCount: 3, breakpoint: 500 }]),
    );
    const created = doc.layouts.find((l: any) => l.name === 'Mobile');
    // Both layouts have 3 columns, the new one cloned from the base before its refit: the same positions in both.
    expect(positionsIn(doc, created.id)).toEqual(positionsIn(doc, board.layoutId));
    expect(positionsIn(doc, board.layoutId)[board.f]).toEqual([0, 7, 3, 4]);
    expect(Object.keys(positionsIn(doc, created.id))).toHaveLength(10);
    // What the write answered is what it stored (read from the tables: a GET would be answered from the write's cache).
    for (const layoutId of [created.id, board.layoutId]) {
      const stored = [
        ...(await server.db('item_layouts').where({ layoutId }).select('itemId as id', 'xOffset', 'yOffset', 'width', 'height')),
        ...(await server.db('section_layouts').where({ layoutId }).select('sectionId as id', 'xOffset', 'yOffset', 'width', 'height')),
      ];
      expect(Object.fromEntries(stored.map((p: any) => [p.id, [p.xOffset, p.yOffset, p.width, p.height]]))).toEqual(positionsIn(doc, layoutId));
    }
  });

  it('LAYOUT-1: a layout missing from the payload is deleted with its positions', async () => {
    const board = await createBoard(server);
    const mobile = unique('mobile');
    await server.db('layouts').insert({ id: mobile, boardId: board.boardId, name: 'Mobile', columnCount: 4, breakpoint: 400 });
    const it = item(unique('it'), [position(board.layoutId, board.sectionId), position(mobile, board.sectionId)]);
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [it] }));
    const doc = expectOk(await patchLayouts(board.boardId, [{ id: mobile, name: 'Mobile', columnCount: 4, breakpoint: 400 }]));
    expect(doc.layouts.map((l: any) => l.id)).toEqual([mobile]);
    expect(await server.db('item_layouts').where({ layoutId: board.layoutId })).toHaveLength(0);
    expect(doc.items[0].layouts).toEqual([position(mobile, board.sectionId)]);
  });

  it('places items and dynamic sections without a source position instead of failing (spec 500 case)', async () => {
    const board = await createBoard(server, { columns: 4 });
    const other = unique('other');
    await server.db('layouts').insert({ id: other, boardId: board.boardId, name: 'Other', columnCount: 8, breakpoint: 800 });
    const placed = item('c-placed-' + unique(), [position(board.layoutId, board.sectionId, 0, 0, 4, 1)]);
    const onlyOther = item('b-only-other-' + unique(), [position(other, board.sectionId, 5, 5, 2, 2)]);
    const nowhere = item('a-nowhere-' + unique(), [], { kind: 'uptimeKuma' });
    const dyn = {
      id: unique('dyn'),
      kind: 'dynamic',
      options: {},
      layouts: [{ layoutId: other, parentSectionId: board.sectionId, xOffset: 0, yOffset: 0, width: 3, height: 1 }],
    };
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId), dyn], items: [placed, onlyOther, nowhere] }));
    // A new 3-column layout clones from Base (4 columns), where only `placed` has a position.
    const doc = expectOk(await patchLayouts(board.boardId, [base(board.layoutId, 4), { id: other, name: 'Other', columnCount: 8, breakpoint: 800 }, { id: 'x', name: 'Three', columnCount: 3, breakpoint: 300 }]));
    const three = doc.layouts.find((l: any) => l.name === 'Three').id;
    // Placed in id order at the first free cell: sized like their other position, else the widget default (uptimeKuma 2x3).
    expect(positionsIn(doc, three)).toEqual({
      [placed.id]: [0, 0, 3, 1],
      [nowhere.id]: [0, 1, 2, 3],
      [onlyOther.id]: [0, 4, 2, 2],
      [dyn.id]: [0, 6, 3, 1],
    });
    // Base shrinking to 2 columns: the items lacking a Base position get one too.
    const shrunk = expectOk(await patchLayouts(board.boardId, doc.layouts.map((l: any) => (l.id === board.layoutId ? { ...l, columnCount: 2 } : l))));
    expect(Object.keys(positionsIn(shrunk, board.layoutId)).sort()).toEqual([placed.id, onlyOther.id, nowhere.id, dyn.id].sort());
  });

  it('LAYOUT-8: the version is not touched (the revision is)', async () => {
    const board = await createBoard(server);
    const before = await server.db('boards').where({ id: board.boardId }).first();
    const doc = expectOk(await patchLayouts(board.boardId, [{ ...base(board.layoutId, 12), name: 'Renamed' }]));
    expect(doc.version).toBe(before.version);
    const after = await server.db('boards').where({ id: board.boardId }).first();
    expect(after.version).toBe(before.version);
    expect(after.revision).toBe(before.revision + 1);
  });

  it('LAYOUT-5 (stricter): one transaction, so a refused request changes nothing', async () => {
    const board = await createBoard(server);
    const result = await server.call('PATCH', `/api/boards/${board.boardId}/layouts`, {
      body: { layouts: [{ id: 'added', name: 'New', columnCount: 4, breakpoint: 10 }] },
      headers: { 'If-Match': '"not-current"' },
    });
    expectError(result, 412, 'PRECONDITION_FAILED');
    const { doc } = await readContent(server, board.boardId);
    expect(doc.layouts.map((l: any) => l.id)).toEqual([board.layoutId]);
    expect((await server.db('boards').where({ id: board.boardId }).first()).revision).toBe(0);
  });

  it('refuses with 400 a refit that would stack elements below row 32767, changing nothing', async () => {
    const board = await createBoard(server, { columns: 3 });
    const L = board.layoutId;
    const S = board.sectionId;
    const tall = (x: number) => item(unique('tall'), [position(L, S, x, 0, 1, 20000)]);
    expectOk(await put(board.boardId, { sections: [emptySection(S)], items: [tall(0), tall(1), tall(2)] }));
    const result = await patchLayouts(board.boardId, [base(L, 3), { id: 'narrow', name: 'Narrow', columnCount: 1, breakpoint: 400 }]);
    expectError(result, 400, 'BAD_REQUEST', 'Layout change would place elements below row 32767 in layout Narrow');
    expect(result.body.data).toEqual({ layoutNames: ['Narrow'] });
    const { doc } = await readContent(server, board.boardId);
    expect(doc.layouts.map((l: any) => l.id)).toEqual([L]);
  });

  it('refuses an empty list, duplicate ids and out-of-range values with 400', async () => {
    const board = await createBoard(server);
    expectError(await patchLayouts(board.boardId, []), 400, 'BAD_REQUEST', 'A board needs at least one layout');
    expectError(await patchLayouts(board.boardId, [base(board.layoutId), base(board.layoutId)]), 400, 'BAD_REQUEST', `Duplicate layout ids in payload: ${board.layoutId}`);
    for (const bad of [
      { ...base(board.layoutId), columnCount: 25 },
      { ...base(board.layoutId), columnCount: 0 },
      { ...base(board.layoutId), breakpoint: 32768 },
      { ...base(board.layoutId), name: '' },
      { ...base(board.layoutId), name: 'x'.repeat(33) },
      { ...base(board.layoutId), columnCount: 2.5 },
    ]) {
      expectError(await patchLayouts(board.boardId, [bad]), 400, 'BAD_REQUEST', 'Input validation failed');
    }
    expect((await server.db('layouts').where({ boardId: board.boardId })).map((l: any) => l.columnCount)).toEqual([12]);
  });

  it('needs authentication (401) and modify (404 Board not found)', async () => {
    const board = await createBoard(server, { isPublic: true });
    expectError(await patchLayouts(board.boardId, [base(board.layoutId)], null), 401, 'UNAUTHORIZED');
    const viewer = await createActor(server);
    expectError(await patchLayouts(board.boardId, [base(board.layoutId)], viewer.key), 404, 'NOT_FOUND', 'Board not found');
  });
});
