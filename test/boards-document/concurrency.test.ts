import { unique } from '../support/unique';
import { useTestServer } from '../support/server';
import { createBoard, emptySection, expectError, expectOk, item, position, readContent } from './helpers';

const server = useTestServer();

const conflictMessage = 'This board was modified by another request. Reload the latest board and retry.';
const put = (boardId: string, body: unknown, headers?: Record<string, string>) => server.call('PUT', `/api/boards/${boardId}`, { body, headers });

describe('optimistic concurrency', () => {
  it('CONC-1, CONC-2: version starts at 0; a stale expectedVersion is a 409 CONFLICT and nothing is written', async () => {
    const board = await createBoard(server);
    const { doc, sections } = await readContent(server, board.boardId);
    expect(doc.version).toBe(0);
    expectOk(await put(board.boardId, { sections, items: [], expectedVersion: 0 }));
    const stale = await put(board.boardId, { sections, items: [item(unique('late'), [position(board.layoutId, board.sectionId)])], expectedVersion: 0 });
    expectError(stale, 409, 'CONFLICT', conflictMessage);
    const after = (await readContent(server, board.boardId)).doc;
    expect(after.version).toBe(1);
    expect(after.items).toEqual([]);
  });

  it('CONC-2: a guarded save on a board at the expected version succeeds and increments it', async () => {
    const board = await createBoard(server);
    await server.db('boards').where({ id: board.boardId }).update({ version: 41 });
    const doc = expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [], expectedVersion: 41 }));
    expect(doc.version).toBe(42);
  });

  it('CONC-3: of N concurrent guarded saves with the same expectedVersion exactly one wins; the rest get 409 and write nothing', async () => {
    const board = await createBoard(server);
    const writers = Array.from({ length: 6 }, (_, n) => item(`writer${n}-${unique()}`, [position(board.layoutId, board.sectionId, n, 0)]));
    const results = await Promise.all(
      writers.map((writerItem) => put(board.boardId, { sections: [emptySection(board.sectionId)], items: [writerItem], expectedVersion: 0 })),
    );
    const winners = results.filter((r) => r.status === 200);
    const losers = results.filter((r) => r.status !== 200);
    expect(winners).toHaveLength(1);
    for (const loser of losers) expectError(loser, 409, 'CONFLICT', conflictMessage);
    const winnerItem = winners[0].body.items[0].id;
    const stored = await server.db('items').where({ boardId: board.boardId }).select('id');
    expect(stored.map((row: any) => row.id)).toEqual([winnerItem]);
    expect((await server.db('boards').where({ id: board.boardId }).first()).version).toBe(1);
  });

  it('CONC-4: without expectedVersion the version still moves and the write wins over concurrent edits', async () => {
    const board = await createBoard(server);
    const { sections } = await readContent(server, board.boardId);
    const other = item(unique('other'), [position(board.layoutId, board.sectionId)]);
    expectOk(await put(board.boardId, { sections, items: [other] }));
    const doc = expectOk(await put(board.boardId, { sections, items: [] }));
    expect(doc.version).toBe(2);
    expect(doc.items).toEqual([]);
  });

  it('CONC-2: after a 409, re-reading and reapplying succeeds and keeps the other writer’s change', async () => {
    const board = await createBoard(server);
    const stale = await readContent(server, board.boardId);
    const theirs = item(unique('theirs'), [position(board.layoutId, board.sectionId)]);
    expectOk(await put(board.boardId, { sections: stale.sections, items: [theirs], expectedVersion: stale.doc.version }));
    const mine = item(unique('mine'), [position(board.layoutId, board.sectionId, 1)]);
    expectError(await put(board.boardId, { sections: stale.sections, items: [mine], expectedVersion: stale.doc.version }), 409, 'CONFLICT', conflictMessage);
    const fresh = await readContent(server, board.boardId);
    const doc = expectOk(await put(board.boardId, { sections: fresh.sections, items: [...fresh.items, mine], expectedVersion: fresh.doc.version }));
    expect(doc.items.map((i: any) => i.id).sort()).toEqual([theirs.id, mine.id].sort());
  });

  it('CONC-5: a read taken before POST /api/boards/items passes the guard and deletes the added item (read right before writing)', async () => {
    const board = await createBoard(server);
    const before = await readContent(server, board.boardId);
    const added = expectOk(await server.call('POST', '/api/boards/items', { body: { boardId: board.boardId, kind: 'clock' } }), 201);
    const between = await readContent(server, board.boardId);
    expect(between.doc.version).toBe(before.doc.version);
    expect(between.items.map((i: any) => i.id)).toEqual([added.itemId]);
    // The stale document still carries a matching version: the guard passes and the new item is gone.
    const doc = expectOk(await put(board.boardId, { sections: before.sections, items: before.items, expectedVersion: before.doc.version }));
    expect(doc.items).toEqual([]);
    expect(await server.db('items').where({ id: added.itemId })).toHaveLength(0);
  });
});

describe('ETag and If-Match', () => {
  it('PUT with a matching If-Match succeeds and returns the next ETag; a stale one is a 412 with nothing written', async () => {
    const board = await createBoard(server);
    const { sections, etag } = await readContent(server, board.boardId);
    const first = await put(board.boardId, { sections, items: [] }, { 'If-Match': etag });
    expectOk(first);
    const nextEtag = first.headers.get('etag')!;
    expect(nextEtag).not.toBe(etag);
    expect((await readContent(server, board.boardId)).etag).toBe(nextEtag);

    const stale = await put(board.boardId, { sections, items: [item(unique('x'), [])] }, { 'If-Match': etag });
    expectError(stale, 412, 'PRECONDITION_FAILED', 'Board has changed since the ETag was issued');
    const after = await readContent(server, board.boardId);
    expect(after.doc.version).toBe(1);
    expect(after.items).toEqual([]);
    expectOk(await put(board.boardId, { sections, items: [] }, { 'If-Match': `"nope", ${nextEtag}` }));
  });

  it('If-Match: * always matches', async () => {
    const board = await createBoard(server);
    const { sections } = await readContent(server, board.boardId);
    expectOk(await put(board.boardId, { sections, items: [] }, { 'If-Match': '*' }));
  });

  it('POST /api/boards/items changes the ETag although the version stays', async () => {
    const board = await createBoard(server);
    const before = await readContent(server, board.boardId);
    expectOk(await server.call('POST', '/api/boards/items', { body: { boardId: board.boardId, kind: 'clock' } }), 201);
    const stale = await put(board.boardId, { sections: before.sections, items: before.items, expectedVersion: before.doc.version }, { 'If-Match': before.etag });
    expectError(stale, 412, 'PRECONDITION_FAILED');
    expect((await readContent(server, board.boardId)).items).toHaveLength(1);
  });

  it('PATCH layouts, item and section routes honour If-Match', async () => {
    const board = await createBoard(server);
    const it = item(unique('it'), [position(board.layoutId, board.sectionId)]);
    const spare = unique('spare');
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId), emptySection(spare, 1)], items: [it] }));
    const { doc, etag } = await readContent(server, board.boardId);
    const stale = { 'If-Match': '"stale"' };
    const base = `/api/boards/${board.boardId}`;
    const attempts = [
      server.call('PATCH', `${base}/layouts`, { body: { layouts: doc.layouts }, headers: stale }),
      server.call('PATCH', `${base}/items/${it.id}`, { body: { options: { a: 1 } }, headers: stale }),
      server.call('DELETE', `${base}/items/${it.id}`, { headers: stale }),
      server.call('POST', `${base}/sections`, { body: emptySection(unique('s'), 3), headers: stale }),
      server.call('PATCH', `${base}/sections/${board.sectionId}`, { body: emptySection(board.sectionId, 2), headers: stale }),
      server.call('DELETE', `${base}/sections/${spare}`, { headers: stale }),
    ];
    for (const result of await Promise.all(attempts)) expectError(result, 412, 'PRECONDITION_FAILED', 'Board has changed since the ETag was issued');
    const after = await readContent(server, board.boardId);
    expect(after.etag).toBe(etag);
    expect((await server.db('boards').where({ id: board.boardId }).first()).revision).toBe(1);
    const ok = await server.call('PATCH', `${base}/items/${it.id}`, { body: { options: { a: 1 } }, headers: { 'If-Match': etag } });
    expect(expectOk(ok).items[0].options).toEqual({ a: 1 });
  });
});
