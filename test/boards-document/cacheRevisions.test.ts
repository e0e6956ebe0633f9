import { BoardDocumentCache, type CachedDocument } from '../../src/boards/document/cache';

/**
 * The document cache drops a board's documents of older revisions once it keeps one of a newer revision: no request can
 * ask for them again (requests are keyed on the revision the database gives them, and writes only move it forward), so
 * a board written often no longer fills the byte budget with its past and pushes out other boards' documents.
 */
const documentOf = (bytes: number): CachedDocument => ({ parts: [Buffer.alloc(bytes)], length: bytes, etag: `"${bytes}"`, hasCategorySections: false });
const keyOf = (boardId: string, revision: number, userId: string) =>
  BoardDocumentCache.key({ boardId, revision, creatorId: 'u', userId, groupIds: '', ownRows: '|', collapsed: '', creatorEmail: false });

describe('board document cache and revisions', () => {
  it('drops the documents of older revisions of a board when one of a newer revision is kept, and only those', () => {
    const cache = new BoardDocumentCache(10_000);
    cache.setCurrent(keyOf('a', 1, 'alice'), 'a', 1, documentOf(1000));
    cache.setCurrent(keyOf('a', 1, 'bob'), 'a', 1, documentOf(1000));
    cache.setCurrent(keyOf('b', 7, 'alice'), 'b', 7, documentOf(1000));
    expect(cache.get(keyOf('a', 1, 'bob'))).toBeDefined();

    cache.setCurrent(keyOf('a', 2, 'alice'), 'a', 2, documentOf(1000));
    expect(cache.get(keyOf('a', 1, 'alice'))).toBeUndefined();
    expect(cache.get(keyOf('a', 1, 'bob'))).toBeUndefined();
    expect(cache.get(keyOf('a', 2, 'alice'))).toBeDefined();
    expect(cache.get(keyOf('b', 7, 'alice'))).toBeDefined();

    // The freed bytes count: eight more documents of 1000 bytes fit beside the two held (budget 10,000).
    for (let i = 0; i < 8; i++) cache.setCurrent(keyOf('c', 1, `user${i}`), 'c', 1, documentOf(1000));
    expect(cache.get(keyOf('a', 2, 'alice'))).toBeDefined();
    expect(cache.get(keyOf('b', 7, 'alice'))).toBeDefined();
  });

  it('does not keep a document built for a revision older than one already kept', () => {
    const cache = new BoardDocumentCache(10_000);
    cache.setCurrent(keyOf('a', 3, 'alice'), 'a', 3, documentOf(100));
    cache.setCurrent(keyOf('a', 2, 'bob'), 'a', 2, documentOf(100));
    expect(cache.get(keyOf('a', 2, 'bob'))).toBeUndefined();
    expect(cache.get(keyOf('a', 3, 'alice'))).toBeDefined();
  });

  it('keeps the documents of past revisions read from history side by side (set, not setCurrent)', () => {
    const cache = new BoardDocumentCache(10_000);
    cache.set(keyOf('history:a', 1, 'alice'), 'history:a', 1, documentOf(100));
    cache.set(keyOf('history:a', 2, 'alice'), 'history:a', 2, documentOf(100));
    cache.setCurrent(keyOf('a', 5, 'alice'), 'a', 5, documentOf(100));
    expect(cache.get(keyOf('history:a', 1, 'alice'))).toBeDefined();
    expect(cache.get(keyOf('history:a', 2, 'alice'))).toBeDefined();
  });
});
