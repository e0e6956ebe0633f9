/** Unit tests of the pure read model (src/boards/document/model.ts): no HTTP, no database. */
import { BoardState, etagOf, ifMatchMatches, ifNoneMatchMatches, serializeState, toBoardDocument } from '../../src/boards/document/model';

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
    const base = etagOf(toBoardDocument(state()));
    expect(etagOf(toBoardDocument(state()))).toBe(base);
    const uncollapsed = state();
    uncollapsed.collapsedSectionIds = new Set();
    expect(etagOf(toBoardDocument(uncollapsed))).not.toBe(base);
    const moved = state();
    moved.itemLayouts[0].xOffset = 3;
    expect(etagOf(toBoardDocument(moved))).not.toBe(base);
  });
});

describe('serializeState', () => {
  it('DOC-5, LIMIT-1: bytes exactly as JSON.stringify makes them, the ETag of those bytes, the size of {sections, items}', () => {
    const document = toBoardDocument(state());
    const serialized = serializeState(state());
    expect(Buffer.concat(serialized.parts).toString()).toBe(JSON.stringify(document));
    expect(serialized.length).toBe(Buffer.byteLength(JSON.stringify(document)));
    expect(serialized.etag).toBe(etagOf(document));
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
