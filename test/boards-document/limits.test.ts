import { unique } from '../support/unique';
import { boardLimits } from '../../src/boards/document/limits';
import { useTestServer } from '../support/server';
import { createBoard, emptySection, expectError, expectOk, getBoard, item, position, readContent } from './helpers';

const server = useTestServer();

const put = (boardId: string, body: unknown) => server.call('PUT', `/api/boards/${boardId}`, { body });
const addItem = (boardId: string, extra: Record<string, unknown> = {}) => server.call('POST', '/api/boards/items', { body: { boardId, kind: 'clock', ...extra } });
const addSection = (boardId: string, section: unknown) => server.call('POST', `/api/boards/${boardId}/sections`, { body: section });
const patchLayouts = (boardId: string, layouts: unknown[]) => server.call('PATCH', `/api/boards/${boardId}/layouts`, { body: { layouts } });
const patchItem = (boardId: string, itemId: string, body: unknown) => server.call('PATCH', `/api/boards/${boardId}/items/${itemId}`, { body });
const duplicate = (boardId: string) => server.call('POST', `/api/boards/${boardId}/duplicate`, { body: { name: unique('copy-') } });
/** Server-shaped ids (24 characters), so that a copy with fresh ids is no larger than its source. */
const longId = (prefix: string, i: number) => `${prefix}${i.toString().padStart(24 - prefix.length, '0')}`;
const newLayout = (i: number) => ({ id: `new-${i}`, name: `L${i}`, columnCount: 12, breakpoint: 100 + i });
const contentBytes = (content: { sections: unknown[]; items: unknown[] }) =>
  Buffer.byteLength(JSON.stringify({ sections: content.sections, items: content.items }));

const itemsMessage = `A board holds at most ${boardLimits.items} items`;
const sectionsMessage = `A board holds at most ${boardLimits.sections} sections`;
const bytesMessage = `A board's sections and items take at most ${boardLimits.contentBytes} bytes as JSON`;

/** The GET of the board, put back as it is: 200 (PUT-2). */
async function expectReadsBackAsValidPut(boardId: string) {
  const { sections, items } = await readContent(server, boardId);
  const saved = expectOk(await put(boardId, { sections, items }));
  expect({ sections: saved.sections.length, items: saved.items.length }).toEqual({ sections: sections.length, items: items.length });
}

describe('board limits', () => {
  it('the granular routes stop at exactly the counts PUT accepts; the largest board reads back as a valid PUT body', async () => {
    expect(boardLimits).toEqual({ items: 10000, sections: 2000, layouts: 24, contentBytes: 8 * 1024 * 1024 });
    const board = await createBoard(server);
    const base = { id: board.layoutId, name: 'Base', columnCount: 12, breakpoint: 0 };
    // The most items and sections the counts allow, on three layouts (with more, the byte limit binds first).
    const layouts = expectOk(await patchLayouts(board.boardId, [base, newLayout(0), newLayout(1)])).layouts;

    // All but the last section and the last two items through PUT, the rest through the granular routes.
    const sections = [
      emptySection(board.sectionId),
      ...Array.from({ length: boardLimits.sections - 2 }, (_, i) => emptySection(longId('section', i), i + 1)),
    ];
    const items = Array.from({ length: boardLimits.items - 2 }, (_, i) =>
      item(
        longId('item', i),
        layouts.map((layout: { id: string }) => position(layout.id, board.sectionId, i % 12, Math.floor(i / 12))),
      ),
    );
    expectOk(await put(board.boardId, { sections, items }));
    expectOk(await addSection(board.boardId, emptySection(longId('section', boardLimits.sections), boardLimits.sections)), 201);
    expectOk(await addItem(board.boardId), 201);
    expectOk(await addItem(board.boardId), 201);

    const largest = await readContent(server, board.boardId);
    expect({ sections: largest.sections.length, items: largest.items.length }).toEqual({ sections: boardLimits.sections, items: boardLimits.items });
    expect(largest.items.every((entry) => entry.layouts.length === layouts.length)).toBe(true);
    expect(contentBytes(largest)).toBeLessThanOrEqual(boardLimits.contentBytes);
    await expectReadsBackAsValidPut(board.boardId);

    // The next step of growth, through each route that grows a board.
    const tooManyItems = await addItem(board.boardId);
    expectError(tooManyItems, 400, 'BAD_REQUEST', itemsMessage);
    expect(tooManyItems.body.data).toEqual({ limit: boardLimits.items, actual: boardLimits.items + 1 });
    expectError(await addSection(board.boardId, emptySection(unique('section'), 0)), 400, 'BAD_REQUEST', sectionsMessage);
    const current = await readContent(server, board.boardId);
    const extraItem = item(unique('item'), [position(layouts[0].id, board.sectionId, 0, 500)]);
    const bigPut = await put(board.boardId, { sections: current.sections, items: [...current.items, extraItem] });
    expectError(bigPut, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(bigPut.body.data.issues).toEqual(expect.arrayContaining([expect.objectContaining({ keyword: 'maxItems' })]));

    // Nothing was written by the refused requests; a copy of the largest board is within the limits too.
    const after = await readContent(server, board.boardId);
    expect({ sections: after.sections.length, items: after.items.length, version: after.doc.version }).toEqual({
      sections: boardLimits.sections,
      items: boardLimits.items,
      version: current.doc.version,
    });
    const copyId = expectOk(await duplicate(board.boardId), 201).boardId;
    await expectReadsBackAsValidPut(copyId);
  }, 180_000);

  it('PATCH layouts stops at exactly the layout count PUT positions can name', async () => {
    const board = await createBoard(server);
    const base = { id: board.layoutId, name: 'Base', columnCount: 12, breakpoint: 0 };
    const layouts = expectOk(await patchLayouts(board.boardId, [base, ...Array.from({ length: boardLimits.layouts - 1 }, (_, i) => newLayout(i))])).layouts;
    expect(layouts).toHaveLength(boardLimits.layouts);
    expectOk(await addItem(board.boardId), 201);
    await expectReadsBackAsValidPut(board.boardId);
    const moreLayouts = await patchLayouts(board.boardId, [...layouts, newLayout(99)]);
    expectError(moreLayouts, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(moreLayouts.body.data.issues).toEqual(expect.arrayContaining([expect.objectContaining({ keyword: 'maxItems' })]));
  });

  it('the JSON size limit: every growing route stops at exactly the limit, shrinking is always allowed', async () => {
    const board = await createBoard(server);
    // Short client-minted ids and padded options: 100 items just under the size limit.
    const pad = 'x'.repeat(Math.floor(boardLimits.contentBytes / 100) - 400);
    const items = Array.from({ length: 100 }, (_, i) => item(`s${i}`, [position(board.layoutId, board.sectionId, i % 12, Math.floor(i / 12))], { options: { pad } }));
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items }));
    const start = await readContent(server, board.boardId);
    const room = boardLimits.contentBytes - contentBytes(start);
    expect(room).toBeGreaterThan(0);

    // PUT: one byte past the limit is refused, exactly at the limit is accepted.
    const grown = (extra: number) => ({
      sections: start.sections,
      items: start.items.map((entry, i) => (i === 0 ? { ...entry, options: { pad: entry.options.pad + 'y'.repeat(extra) } } : entry)),
    });
    const past = await put(board.boardId, grown(room + 1));
    expectError(past, 400, 'BAD_REQUEST', bytesMessage);
    expect(past.body.data).toEqual({ limit: boardLimits.contentBytes, actual: boardLimits.contentBytes + 1 });
    expectOk(await put(board.boardId, grown(room)));
    expect(contentBytes(await readContent(server, board.boardId))).toBe(boardLimits.contentBytes);
    await expectReadsBackAsValidPut(board.boardId);

    // At the limit, every growing route is refused.
    const full = await readContent(server, board.boardId);
    expectError(await addItem(board.boardId), 400, 'BAD_REQUEST', bytesMessage);
    expectError(await addSection(board.boardId, emptySection(unique('s'), 1)), 400, 'BAD_REQUEST', bytesMessage);
    expectError(await patchItem(board.boardId, 's1', { options: { pad: full.items[1].options.pad + 'z' } }), 400, 'BAD_REQUEST', bytesMessage);
    expectError(await patchLayouts(board.boardId, [...full.doc.layouts, newLayout(1)]), 400, 'BAD_REQUEST', bytesMessage);
    // Fresh ids (24 characters) are longer than the source's: the copy would be past the limit.
    expectError(await duplicate(board.boardId), 400, 'BAD_REQUEST', bytesMessage);
    expect((await getBoard(server, board.boardId)).headers.get('etag')).toBe(full.etag);

    // Shrinking and same-size changes go through.
    expectOk(await patchItem(board.boardId, 's1', { options: { pad: full.items[1].options.pad.slice(1) + 'z' } }));
    expectOk(await server.call('DELETE', `/api/boards/${board.boardId}/items/s2`));
    expectOk(await addItem(board.boardId), 201);
  }, 60_000);

  it('a board already past a limit (written before the limits existed) can be changed and shrunk, not grown', async () => {
    const board = await createBoard(server);
    const count = boardLimits.items + 1;
    const rows = Array.from({ length: count }, (_, i) => ({ id: longId('legacy', i), boardId: board.boardId, kind: 'clock', options: '{}', advancedOptions: '{}' }));
    const positions = rows.map((row, i) => ({ itemId: row.id, layoutId: board.layoutId, sectionId: board.sectionId, xOffset: i % 12, yOffset: Math.floor(i / 12), width: 1, height: 1 }));
    for (let i = 0; i < count; i += 500) {
      await server.db('items').insert(rows.slice(i, i + 500));
      await server.db('item_layouts').insert(positions.slice(i, i + 500));
    }
    expectOk(await patchItem(board.boardId, rows[0].id, { options: { note: 'kept' } }));
    expectError(await addItem(board.boardId), 400, 'BAD_REQUEST', itemsMessage);
    expectOk(await server.call('DELETE', `/api/boards/${board.boardId}/items/${rows[1].id}`));
    expectError(await addItem(board.boardId), 400, 'BAD_REQUEST', itemsMessage);
    expectOk(await server.call('DELETE', `/api/boards/${board.boardId}/items/${rows[2].id}`));
    expectOk(await addItem(board.boardId), 201);
    await expectReadsBackAsValidPut(board.boardId);
  }, 60_000);
});
