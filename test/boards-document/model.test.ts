/** Unit tests of the pure read model (src/boards/document/model.ts): no HTTP, no database. */
import { BoardState, ifMatchMatches, ifNoneMatchMatches, serializeState, toBoardDocument } from '../../src/boards/document/model';

const rect = { xOffset: 0, yOffset: 0, width: 1, height: 1 };

function state(): BoardState {
  return {
    board: { id: 'b', name: 'b', version: 2, revision: 5, isPublic: true, creatorId: 'u', pageTitle: 'T' },
    creator: { id: 'u', username: 'alice', email: null },
    layouts: [
      { id: 'small', boardId: 'b', name: 'Small', columnCount: 4, breakpoint: 0 },
      { id: 'big', boardId: 'b', name: 'Big', columnCount: 12, breakpoint: 800 },
    ],
    sections: [
      { id: 'c', boardId: 'b', kind: 'category', xOffset: 0, yOffset: 0, name: null, options: null },
      { id: 'weird', boardId: 'b', kind: 'future', xOffset: 0, yOffset: 1, name: null, options: null },
    ],
    sectionLayouts: [],
    items: [
      { id: 'i', boardId: 'b', kind: 'clock', options: { x: 1 }, advancedOptions: { title: 7, extra: true } },
      { id: 'h', boardId: 'b', kind: 'retired', options: {}, advancedOptions: {} },
    ],
    itemLayouts: [
      { itemId: 'i', layoutId: 'big', sectionId: 'c', ...rect },
      { itemId: 'i', layoutId: 'small', sectionId: 'c', ...rect },
    ],
    bindings: [],
    collapsedSectionIds: new Set(['c']),
    userPermissions: [{ permission: 'modify' }],
    groupPermissions: [],
    reader: { userId: null, admin: false },
  };
}

describe('toBoardDocument', () => {
  it('DOC-1, DOC-3, DOC-4: positions in layout order, unknown kinds hidden, collapsed from the caller, options normalized', () => {
    const document = toBoardDocument(state());
    expect(document.sections).toEqual([{ id: 'c', kind: 'category', name: '', yOffset: 0, xOffset: 0, collapsed: true }]);
    expect(document.items).toHaveLength(1);
    expect(document.items[0].layouts.map((p) => p.layoutId)).toEqual(['small', 'big']);
    expect(document.items[0].advancedOptions).toEqual({ title: null, customCssClasses: [], borderColor: '' });
    expect(document.creator).toEqual({ id: 'u', name: 'alice', image: null, email: null });
    expect(document.pageTitle).toBe('T');
    expect(document.userPermissions).toEqual([{ permission: 'modify' }]);
  });

  it('DOC-5: the ETag changes with anything in the document, the caller\'s own state included', () => {
    const etagOf = (board: BoardState) => serializeState(board).etag;
    const base = etagOf(state());
    expect(etagOf(state())).toBe(base);
    const uncollapsed = state();
    uncollapsed.collapsedSectionIds = new Set();
    expect(etagOf(uncollapsed)).not.toBe(base);
    const moved = state();
    moved.itemLayouts[0] = { ...moved.itemLayouts[0], xOffset: 3 };
    expect(etagOf(moved)).not.toBe(base);
    const renamed = state();
    renamed.board = { ...renamed.board, name: 'other' };
    expect(etagOf(renamed)).not.toBe(base);
  });
});

describe('serializeState', () => {
  it('DOC-5, LIMIT-1: bytes exactly as JSON.stringify makes them, the ETag of those bytes, the size of {sections, items}', () => {
    const document = toBoardDocument(state());
    const serialized = serializeState(state());
    expect(Buffer.concat(serialized.parts).toString()).toBe(JSON.stringify(document));
    expect(serialized.length).toBe(Buffer.byteLength(JSON.stringify(document)));
    expect(serialized.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(serialized.contentBytes).toBe(Buffer.byteLength(JSON.stringify({ sections: document.sections, items: document.items })));
    expect(serialized.hasCategorySections).toBe(true);
  });

  it('reuses the bytes of items whose rows are unchanged, and never serves stale bytes for a changed one', () => {
    const before = state();
    serializeState(before);
    const moved = { ...before, itemLayouts: before.itemLayouts.map((p, i) => (i === 0 ? { ...p, xOffset: 2 } : p)) };
    expect(Buffer.concat(serializeState(moved).parts).toString()).toBe(JSON.stringify(toBoardDocument(moved)));
    const renamed = { ...moved, items: moved.items.map((i) => (i.id === 'i' ? { ...i, options: { x: 2 } } : i)) };
    expect(Buffer.concat(serializeState(renamed).parts).toString()).toBe(JSON.stringify(toBoardDocument(renamed)));
    expect(Buffer.concat(serializeState(moved).parts).toString()).toBe(JSON.stringify(toBoardDocument(moved)));
  });
});

describe('the ETag of a large document', () => {
  /** A board of `count` items (several blocks of item bytes), made of fresh rows each time. */
  const large = (count: number, movedIndex = -1): BoardState => {
    const board = state();
    board.items = Array.from({ length: count }, (_, i) => ({ id: `item-${String(i).padStart(4, '0')}`, boardId: 'b', kind: 'clock', options: { n: i }, advancedOptions: {} }));
    board.itemLayouts = board.items.map((item, i) => ({ itemId: item.id, layoutId: 'small', sectionId: 'c', ...rect, yOffset: i === movedIndex ? 9999 : i }));
    return board;
  };

  it('DOC-5: is the same for the same bytes, whether item bytes were reused or not, and changes with any item', () => {
    const cached = large(300);
    const first = serializeState(cached).etag;
    expect(serializeState(cached).etag).toBe(first);
    expect(serializeState(large(300)).etag).toBe(first);
    const seen = new Set([first]);
    for (const index of [0, 63, 64, 200, 299]) seen.add(serializeState(large(300, index)).etag);
    seen.add(serializeState(large(299)).etag);
    expect(seen.size).toBe(7);
  });
});

describe('conditional request comparisons', () => {
  const etag = '"abc"';
  it('CONC-6: If-Match compares strongly: a weak tag never matches; lists and * are understood', () => {
    expect(ifMatchMatches('"abc"', etag)).toBe(true);
    expect(ifMatchMatches('W/"abc"', etag)).toBe(false);
    expect(ifMatchMatches('"x", "abc"', etag)).toBe(true);
    expect(ifMatchMatches('*', etag)).toBe(true);
    expect(ifMatchMatches('"x"', etag)).toBe(false);
  });
  it('HTTP-3: If-None-Match compares weakly', () => {
    expect(ifNoneMatchMatches('W/"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('"x", W/"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches(' * ', etag)).toBe(true);
    expect(ifNoneMatchMatches('"x"', etag)).toBe(false);
  });
});
