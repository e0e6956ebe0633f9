import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectError } from '../support/expect';
import { categorySection, createBoard as insertBoard, createIntegration, emptySection, expectOk, grantIntegration, item, position } from '../boards-document/helpers';

const server = useTestServer({ BOARD_HISTORY_LIMIT: '500' });

const conflictMessage = 'This board was modified by another request. Reload the latest board and retry.';

/** A board made through the API, so that its history starts with its creation. */
async function newBoard(options: { isPublic?: boolean; key?: string } = {}) {
  const created = expectOk(
    await server.call('POST', '/api/boards', { ...(options.key ? { key: options.key } : {}), body: { name: unique('hist-'), columnCount: 12, isPublic: options.isPublic ?? false } }),
    201,
  );
  const doc = expectOk(await server.call('GET', `/api/boards/${created.boardId}`, options.key ? { key: options.key } : {}));
  return { boardId: created.boardId as string, layoutId: doc.layouts[0].id as string, sectionId: doc.sections[0].id as string };
}

const history = async (boardId: string, query = '', key?: string | null) =>
  expectOk(await server.call('GET', `/api/boards/${boardId}/history${query}`, key === undefined ? {} : { key }));
const revision = (boardId: string, n: number, key?: string | null) => server.call('GET', `/api/boards/${boardId}/history/${n}`, key === undefined ? {} : { key });
const get = async (boardId: string) => expectOk(await server.call('GET', `/api/boards/${boardId}`));
const put = (boardId: string, body: unknown, key?: string) => server.call('PUT', `/api/boards/${boardId}`, key ? { body, key } : { body });
const content = (doc: any) => ({ sections: doc.sections, items: doc.items });

describe('history entries', () => {
  it('HIST-1, HIST-4: every write route adds one entry, revisions consecutive; each revision reads back as the GET right after its write', async () => {
    const board = await newBoard();
    const integration = await createIntegration(server);
    const steps: { operation: string; doc: any }[] = [{ operation: 'createBoard', doc: await get(board.boardId) }];
    const after = async (operation: string, result: { status: number; body: any }, status = 200) => {
      expect(result.status).toBe(status);
      steps.push({ operation, doc: await get(board.boardId) });
    };

    const itemId = unique('it');
    const start = await get(board.boardId);
    await after(
      'saveBoard',
      await put(board.boardId, { sections: start.sections, items: [item(itemId, [position(board.layoutId, board.sectionId)], { integrationIds: [integration] })] }),
    );
    await after('addBoardItem', await server.call('POST', '/api/boards/items', { body: { boardId: board.boardId, kind: 'clock' } }), 201);
    await after('updateBoardItem', await server.call('PATCH', `/api/boards/${board.boardId}/items/${itemId}`, { body: { options: { showSeconds: true } } }));
    const cat = categorySection(unique('cat'), 'Links', 3);
    await after('addBoardSection', await server.call('POST', `/api/boards/${board.boardId}/sections`, { body: cat }), 201);
    await after('updateBoardSection', await server.call('PATCH', `/api/boards/${board.boardId}/sections/${cat.id}`, { body: { ...cat, name: 'More links' } }));
    await after('deleteBoardSection', await server.call('DELETE', `/api/boards/${board.boardId}/sections/${cat.id}`));
    const layouts = (await get(board.boardId)).layouts;
    await after('saveBoardLayouts', await server.call('PATCH', `/api/boards/${board.boardId}/layouts`, { body: { layouts: [...layouts, { id: 'm', name: 'Mobile', columnCount: 4, breakpoint: 0 }] } }));
    await after('updateBoardSettings', await server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { pageTitle: 'Start' } }), 204);
    await after('renameBoard', await server.call('PATCH', `/api/boards/${board.boardId}/name`, { body: { name: unique('renamed-') } }), 204);
    await after('changeBoardVisibility', await server.call('PATCH', `/api/boards/${board.boardId}/visibility`, { body: { visibility: 'public' } }), 204);
    await after('deleteBoardItem', await server.call('DELETE', `/api/boards/${board.boardId}/items/${itemId}`));
    await after('restoreBoard', await server.call('POST', `/api/boards/${board.boardId}/restore`, { body: { revision: 2 } }));
    await after('deleteIntegration', await server.call('DELETE', `/api/integrations/${integration}`), 204);

    const { entries, nextCursor } = await history(board.boardId);
    expect(nextCursor).toBeNull();
    expect(entries.map((e: any) => e.revision)).toEqual(steps.map((_, i) => steps.length - i));
    expect(entries.map((e: any) => e.operation).reverse()).toEqual(steps.map((s) => s.operation));
    for (const [i, step] of steps.entries()) {
      expect(entries[steps.length - 1 - i].version).toBe(step.doc.version);
      expect(expectOk(await revision(board.boardId, i + 1))).toEqual(step.doc);
    }
    const saved = entries.find((e: any) => e.operation === 'saveBoard');
    expect(saved.actor).toEqual({ userId: expect.any(String), name: 'admin', apiKeyId: server.adminKey.split('.')[0] });
    expect(saved.summary).toEqual({
      sections: { added: 0, removed: 0, updated: 0 },
      items: { added: 1, removed: 0, updated: 0 },
      layouts: { added: 0, removed: 0, updated: 0 },
      fields: [],
    });
    expect(entries.find((e: any) => e.operation === 'renameBoard').summary.fields).toEqual(['name']);
    expect(Date.parse(saved.at)).not.toBeNaN();
  });

  it('HIST-1: a refused or rolled-back write adds no entry; a write that changes nothing adds none', async () => {
    const board = await newBoard();
    const doc = await get(board.boardId);
    expectError(await put(board.boardId, { ...content(doc), expectedVersion: 7 }), 409, 'CONFLICT', conflictMessage);
    const foreign = await createIntegration(server);
    const stranger = await createActor(server, { permissions: ['board-modify-all'] });
    const withBinding = { sections: doc.sections, items: [item(unique('i'), [position(board.layoutId, board.sectionId)], { integrationIds: [foreign] })] };
    expectError(await put(board.boardId, withBinding, stranger.key), 403, 'FORBIDDEN');
    const name = doc.name;
    expect((await server.call('PATCH', `/api/boards/${board.boardId}/name`, { body: { name } })).status).toBe(204);
    expect((await history(board.boardId)).entries.map((e: any) => e.revision)).toEqual([1]);
  });

  it('HIST-1: concurrent writers leave one entry per committed write, consecutive, none lost', async () => {
    const board = await newBoard();
    const writes = await Promise.all([
      ...Array.from({ length: 6 }, () => server.call('POST', '/api/boards/items', { body: { boardId: board.boardId, kind: 'clock' } })),
      ...Array.from({ length: 4 }, (_, n) => server.call('POST', `/api/boards/${board.boardId}/sections`, { body: emptySection(unique('s'), n + 2) })),
      ...Array.from({ length: 3 }, (_, n) => server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { pageTitle: `t${n}` } })),
    ]);
    const committed = writes.filter((w) => w.status < 300).length;
    expect(committed).toBe(writes.length);
    const { entries } = await history(board.boardId, '?limit=100');
    expect(entries.map((e: any) => e.revision)).toEqual(Array.from({ length: committed + 1 }, (_, i) => committed + 1 - i));
    const doc = await get(board.boardId);
    expect(expectOk(await revision(board.boardId, committed + 1))).toEqual(doc);
  });

  it('HIST-8: under concurrent writers a newer revision never carries an older time', async () => {
    const board = await newBoard();
    const writes = await Promise.all([
      ...Array.from({ length: 12 }, () => server.call('POST', '/api/boards/items', { body: { boardId: board.boardId, kind: 'clock' } })),
      ...Array.from({ length: 12 }, (_, n) => server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { pageTitle: `t${n}` } })),
    ]);
    expect(writes.filter((w) => w.status >= 300)).toEqual([]);
    const { entries } = await history(board.boardId, '?limit=100');
    const oldestFirst = [...entries].reverse();
    const outOfOrder = oldestFirst.filter((entry: any, i: number) => i > 0 && Date.parse(entry.at) < Date.parse(oldestFirst[i - 1].at));
    expect(outOfOrder.map((entry: any) => entry.revision)).toEqual([]);
  });

  it('HIST-2: pages newest first with a cursor; a bad cursor is a 400', async () => {
    const board = await newBoard();
    for (let n = 0; n < 4; n++) await server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { pageTitle: `t${n}` } });
    const first = await history(board.boardId, '?limit=2');
    expect(first.entries.map((e: any) => e.revision)).toEqual([5, 4]);
    const second = await history(board.boardId, `?limit=2&cursor=${first.nextCursor}`);
    expect(second.entries.map((e: any) => e.revision)).toEqual([3, 2]);
    const third = await history(board.boardId, `?limit=2&cursor=${second.nextCursor}`);
    expect(third).toEqual({ entries: [expect.objectContaining({ revision: 1, operation: 'createBoard' })], nextCursor: null });
    expectError(await server.call('GET', `/api/boards/${board.boardId}/history?cursor=nonsense`), 400, 'BAD_REQUEST', 'Invalid cursor');
  });

  it('ACCESS-2: history of a board one may not view is 404 Board not found; public boards are readable without credentials', async () => {
    const hidden = await newBoard();
    const open = await newBoard({ isPublic: true });
    const nobody = await createActor(server);
    expectError(await server.call('GET', `/api/boards/${hidden.boardId}/history`, { key: nobody.key }), 404, 'NOT_FOUND', 'Board not found');
    expectError(await server.call('GET', `/api/boards/${hidden.boardId}/history`, { key: null }), 404, 'NOT_FOUND', 'Board not found');
    expectError(await revision(hidden.boardId, 1, nobody.key), 404, 'NOT_FOUND', 'Board not found');
    expect((await history(open.boardId, '', null)).entries).toHaveLength(1);
    expect(expectOk(await revision(open.boardId, 1, null)).id).toBe(open.boardId);
    expectError(await revision(open.boardId, 99), 404, 'NOT_FOUND', 'Revision not found');
  });

  it('HIST-1: a board older than history gets a baseline entry with its first change', async () => {
    const old = await insertBoard(server);
    const before = await get(old.boardId);
    expectOk(await server.call('POST', `/api/boards/${old.boardId}/sections`, { body: emptySection(unique('s'), 2) }), 201);
    const { entries } = await history(old.boardId);
    expect(entries.map((e: any) => [e.revision, e.operation])).toEqual([
      [2, 'addBoardSection'],
      [1, 'baseline'],
    ]);
    expect(expectOk(await revision(old.boardId, 1))).toEqual(before);
  });

  it('HIST-3: revisions far back, across snapshots, read back exactly', async () => {
    const board = await newBoard();
    const itemId = unique('it');
    const start = await get(board.boardId);
    expectOk(await put(board.boardId, { sections: start.sections, items: [item(itemId, [position(board.layoutId, board.sectionId)])] }));
    const expected = new Map<number, any>();
    for (let n = 0; n < 230; n++) {
      const doc = expectOk(await server.call('PATCH', `/api/boards/${board.boardId}/items/${itemId}`, { body: { options: { n } } }));
      if (n % 37 === 0 || n > 225) expected.set(n + 3, doc);
    }
    const snapshots = await server.db('board_history').where({ boardId: board.boardId }).whereNotNull('snapshot').pluck('revision');
    expect(snapshots.length).toBeGreaterThanOrEqual(2);
    for (const [n, doc] of expected) expect(expectOk(await revision(board.boardId, n))).toEqual(doc);
  });
});

describe('diff', () => {
  it('HIST-5: under changes, in the plan\'s shape: items, sections and layouts added, removed, updated, and board fields with their values', async () => {
    const board = await newBoard();
    const start = await get(board.boardId);
    const a = unique('a');
    const b = unique('b');
    expectOk(await put(board.boardId, { sections: start.sections, items: [item(a, [position(board.layoutId, board.sectionId)]), item(b, [position(board.layoutId, board.sectionId, 1)])] }));
    const two = await get(board.boardId);
    const c = unique('c');
    expectOk(
      await put(board.boardId, {
        sections: [...two.sections, categorySection(unique('cat'), 'New', 4)],
        items: [{ ...two.items.find((i: any) => i.id === a), options: { changed: 1 } }, item(c, [position(board.layoutId, board.sectionId, 2)])],
      }),
    );
    await server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { pageTitle: 'Later' } });
    const diff = expectOk(await server.call('GET', `/api/boards/${board.boardId}/diff?from=2&to=3`));
    expect(Object.keys(diff).sort()).toEqual(['changes', 'from', 'to']);
    expect(diff).toMatchObject({ from: 2, to: 3, changes: { items: { added: [c], removed: [b], updated: [a] }, layouts: { added: [], removed: [], updated: [] }, board: {} } });
    expect(diff.changes.sections.added).toHaveLength(1);
    const toNow = expectOk(await server.call('GET', `/api/boards/${board.boardId}/diff?from=1`));
    expect(toNow.to).toBeNull();
    expect(toNow.changes.items.added.sort()).toEqual([a, c].sort());
    expect(toNow.changes.board).toEqual({ pageTitle: { from: null, to: 'Later' } });
    expectError(await server.call('GET', `/api/boards/${board.boardId}/diff?from=40`), 404, 'NOT_FOUND', 'Revision not found');
    expectError(await server.call('GET', `/api/boards/${board.boardId}/diff`), 400, 'BAD_REQUEST', 'Input validation failed');
  });
});

describe('restore', () => {
  it('HIST-6: brings back a deleted item as one new revision with a version bump', async () => {
    const board = await newBoard();
    const start = await get(board.boardId);
    const kept = unique('kept');
    expectOk(await put(board.boardId, { sections: start.sections, items: [item(kept, [position(board.layoutId, board.sectionId)], { options: { deep: { x: [1, 2] }, b: 1, aa: 2 } })] }));
    const withItem = await get(board.boardId);
    expectOk(await server.call('DELETE', `/api/boards/${board.boardId}/items/${kept}`));
    const restored = await server.call('POST', `/api/boards/${board.boardId}/restore`, { body: { revision: 2, expectedVersion: 2 } });
    const doc = expectOk(restored);
    expect(doc.items).toEqual(withItem.items);
    expect(doc.version).toBe(3);
    expect(restored.headers.get('etag')).toBe((await server.call('GET', `/api/boards/${board.boardId}`)).headers.get('etag'));
    expect(JSON.parse(restored.headers.get('tessera-restore-dropped')!)).toEqual({ integrationIds: [], itemIds: [], appIds: [] });
    expect(await get(board.boardId)).toEqual(doc);
    const { entries } = await history(board.boardId);
    expect(entries[0]).toMatchObject({ revision: 4, version: 3, operation: 'restoreBoard', summary: { items: { added: 1, removed: 0, updated: 0 } } });
  });

  it('HIST-6: a restore that changes nothing writes nothing: no entry, no version or revision bump, the same ETag; it answers the board', async () => {
    const board = await newBoard();
    const start = await get(board.boardId);
    expectOk(await put(board.boardId, { sections: start.sections, items: [item(unique('same'), [position(board.layoutId, board.sectionId)])] }));
    await server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { pageTitle: 'Same' } });
    const before = await server.call('GET', `/api/boards/${board.boardId}`);
    const { entries } = await history(board.boardId);
    const storedRevision = async () => (await server.db('boards').where({ id: board.boardId }).first('revision')).revision;
    const revisionBefore = await storedRevision();

    const restored = await server.call('POST', `/api/boards/${board.boardId}/restore`, { body: { revision: entries[0].revision, expectedVersion: before.body.version } });
    expect(expectOk(restored)).toEqual(before.body);
    expect(JSON.parse(restored.headers.get('tessera-restore-dropped')!)).toEqual({ integrationIds: [], itemIds: [], appIds: [] });
    const after = await server.call('GET', `/api/boards/${board.boardId}`);
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(await storedRevision()).toBe(revisionBefore);
    expect((await history(board.boardId)).entries).toEqual(entries);
    // The guard still applies to a restore that would change nothing.
    expectError(await server.call('POST', `/api/boards/${board.boardId}/restore`, { body: { revision: entries[0].revision, expectedVersion: 99 } }), 409, 'CONFLICT', conflictMessage);
  });

  it('HIST-6: puts a layout change back, layouts with their ids and positions, and settings', async () => {
    const board = await newBoard();
    const start = await get(board.boardId);
    expectOk(await put(board.boardId, { sections: start.sections, items: [item(unique('i'), [position(board.layoutId, board.sectionId, 3, 0, 2, 1)])] }));
    await server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { pageTitle: 'Before' } });
    const before = await get(board.boardId);
    const revisionBefore = (await history(board.boardId)).entries[0].revision;
    expectOk(await server.call('PATCH', `/api/boards/${board.boardId}/layouts`, { body: { layouts: [{ ...before.layouts[0], columnCount: 2 }, { id: 'x', name: 'Wide', columnCount: 20, breakpoint: 900 }] } }));
    await server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { pageTitle: 'After' } });
    const doc = expectOk(await server.call('POST', `/api/boards/${board.boardId}/restore`, { body: { revision: revisionBefore } }));
    expect({ ...doc, version: before.version }).toEqual(before);
    expect(doc.version).toBe(before.version + 1);
  });

  it('HIST-6, CONC-2, CONC-6: a stale expectedVersion is a 409 and a stale If-Match a 412, nothing written', async () => {
    const board = await newBoard();
    await server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { pageTitle: 'x' } });
    expectError(await server.call('POST', `/api/boards/${board.boardId}/restore`, { body: { revision: 1, expectedVersion: 5 } }), 409, 'CONFLICT', conflictMessage);
    expectError(
      await server.call('POST', `/api/boards/${board.boardId}/restore`, { body: { revision: 1 }, headers: { 'If-Match': '"stale"' } }),
      412,
      'PRECONDITION_FAILED',
      'Board has changed since the ETag was issued',
    );
    expectError(await server.call('POST', `/api/boards/${board.boardId}/restore`, { body: { revision: 9 } }), 404, 'NOT_FOUND', 'Revision not found');
    expect((await history(board.boardId)).entries).toHaveLength(2);
    expect((await get(board.boardId)).version).toBe(0);
  });

  it('HIST-6, BIND-2: restoring a binding that is no longer on the board needs use access to it; deleted integrations and apps are dropped and reported', async () => {
    const owner = await createActor(server, { permissions: ['board-create', 'app-create'] });
    const board = await newBoard({ key: owner.key });
    const usable = await createIntegration(server);
    const doomed = await createIntegration(server);
    await grantIntegration(server, usable, owner.userId);
    await grantIntegration(server, doomed, owner.userId);
    const app = expectOk(await server.call('POST', '/api/apps', { key: owner.key, body: { name: unique('app'), href: 'https://example.com', iconUrl: 'https://example.com/icon.png' } }), 201);
    const start = expectOk(await server.call('GET', `/api/boards/${board.boardId}`, { key: owner.key }));
    const bound = unique('bound');
    const appWidget = unique('appw');
    expectOk(
      await put(
        board.boardId,
        {
          sections: start.sections,
          items: [
            item(bound, [position(board.layoutId, board.sectionId)], { integrationIds: [usable, doomed] }),
            item(appWidget, [position(board.layoutId, board.sectionId, 1)], { kind: 'app', options: { appId: app.appId } }),
          ],
        },
        owner.key,
      ),
    );
    expectOk(await server.call('PATCH', `/api/boards/${board.boardId}/items/${bound}`, { key: owner.key, body: { integrationIds: [] } }));
    // An editor without access to the integration may not bring the binding back.
    const editor = await createActor(server, { permissions: ['board-modify-all'] });
    expectError(await server.call('POST', `/api/boards/${board.boardId}/restore`, { key: editor.key, body: { revision: 2 } }), 403, 'FORBIDDEN', `No access to integrations: ${usable}, ${doomed}`);
    expect((await history(board.boardId)).entries).toHaveLength(3);

    expect((await server.call('DELETE', `/api/integrations/${doomed}`)).status).toBe(204);
    expect((await server.call('DELETE', `/api/apps/${app.appId}`)).status).toBe(204);
    const restored = await server.call('POST', `/api/boards/${board.boardId}/restore`, { key: owner.key, body: { revision: 2 } });
    const doc = expectOk(restored);
    expect(doc.items.map((i: any) => [i.id, i.integrationIds])).toEqual([[bound, [usable]]]);
    expect(JSON.parse(restored.headers.get('tessera-restore-dropped')!)).toEqual({ integrationIds: [doomed], itemIds: [appWidget], appIds: [app.appId] });
    const { entries } = await history(board.boardId);
    expect(entries[0].summary.dropped).toEqual({ integrationIds: [doomed], itemIds: [appWidget], appIds: [app.appId] });
  });

  it('HIST-6: a bookmarks widget naming a deleted app is restored as it was, and that app is reported with the app widget\'s (the plan\'s placed app ids)', async () => {
    const board = await newBoard();
    const start = await get(board.boardId);
    const newApp = async () => expectOk(await server.call('POST', '/api/apps', { body: { name: unique('app'), href: `https://example.com/${unique('p')}`, iconUrl: 'https://example.com/icon.png' } }), 201).appId as string;
    const [kept, gone, goneToo] = [await newApp(), await newApp(), await newApp()];
    const bookmarks = unique('bm');
    const appWidget = unique('appw');
    const bookmarksOptions = { title: 'Links', items: [kept, gone] };
    expectOk(
      await put(board.boardId, {
        sections: start.sections,
        items: [
          item(bookmarks, [position(board.layoutId, board.sectionId)], { kind: 'bookmarks', options: bookmarksOptions }),
          item(appWidget, [position(board.layoutId, board.sectionId, 1)], { kind: 'app', options: { appId: goneToo } }),
        ],
      }),
    );
    const { entries } = await history(board.boardId);
    expectOk(await put(board.boardId, { sections: start.sections, items: [] }));
    for (const appId of [gone, goneToo]) expect((await server.call('DELETE', `/api/apps/${appId}`)).status).toBe(204);

    const restored = await server.call('POST', `/api/boards/${board.boardId}/restore`, { body: { revision: entries[0].revision } });
    const doc = expectOk(restored);
    expect(doc.items.map((i: any) => [i.id, i.kind, i.options])).toEqual([[bookmarks, 'bookmarks', bookmarksOptions]]);
    expect(JSON.parse(restored.headers.get('tessera-restore-dropped')!)).toEqual({ integrationIds: [], itemIds: [appWidget], appIds: [gone, goneToo].sort() });
    expect((await history(board.boardId)).entries[0].summary.dropped).toEqual({ integrationIds: [], itemIds: [appWidget], appIds: [gone, goneToo].sort() });
  });

  it('HIST-6, PUT-4: an element whose id is now used on another board is a 409', async () => {
    const board = await newBoard();
    const start = await get(board.boardId);
    const moved = unique('moved');
    expectOk(await put(board.boardId, { sections: start.sections, items: [item(moved, [position(board.layoutId, board.sectionId)])] }));
    expectOk(await put(board.boardId, { sections: start.sections, items: [] }));
    const other = await newBoard();
    const otherDoc = await get(other.boardId);
    expectOk(await put(other.boardId, { sections: otherDoc.sections, items: [item(moved, [position(other.layoutId, other.sectionId)])] }));
    expectError(await server.call('POST', `/api/boards/${board.boardId}/restore`, { body: { revision: 2 } }), 409, 'CONFLICT', `Ids already used on another board: ${moved}`);
  });
});

describe('retention', () => {
  const limited = useTestServer({ BOARD_HISTORY_LIMIT: '3' });
  it('HIST-7: keeps the newest BOARD_HISTORY_LIMIT entries and the creation entry; deleting the board deletes its history', async () => {
    const created = expectOk(await limited.call('POST', '/api/boards', { body: { name: unique('ret-'), columnCount: 12, isPublic: false } }), 201);
    const boardId = created.boardId;
    const docs: any[] = [expectOk(await limited.call('GET', `/api/boards/${boardId}`))];
    for (let n = 0; n < 6; n++) {
      expect((await limited.call('POST', `/api/boards/${boardId}/sections`, { body: emptySection(unique('s'), n + 1) })).status).toBe(201);
      docs.push(expectOk(await limited.call('GET', `/api/boards/${boardId}`)));
    }
    const { entries } = expectOk(await limited.call('GET', `/api/boards/${boardId}/history`));
    expect(entries.map((e: any) => e.revision)).toEqual([7, 6, 5, 1]);
    expectError(await limited.call('GET', `/api/boards/${boardId}/history/4`), 404, 'NOT_FOUND', 'Revision not found');
    expect(expectOk(await limited.call('GET', `/api/boards/${boardId}/history/1`))).toEqual(docs[0]);
    expect(expectOk(await limited.call('GET', `/api/boards/${boardId}/history/5`))).toEqual(docs[4]);
    expect((await limited.call('DELETE', `/api/boards/${boardId}`)).status).toBe(204);
    expect(await limited.db('board_history').where({ boardId }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});
