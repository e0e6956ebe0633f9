import { unique } from '../support/unique';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { categorySection, createBoard, emptySection, expectError, expectOk, item, position, readContent } from './helpers';

const server = useTestServer();

const conflictMessage = 'This board was modified by another request. Reload the latest board and retry.';
const addSection = (boardId: string, body: unknown, key?: string | null) =>
  server.call('POST', `/api/boards/${boardId}/sections`, key === undefined ? { body } : { body, key });
const patchSection = (boardId: string, sectionId: string, body: unknown) => server.call('PATCH', `/api/boards/${boardId}/sections/${sectionId}`, { body });
const deleteSection = (boardId: string, sectionId: string) => server.call('DELETE', `/api/boards/${boardId}/sections/${sectionId}`);

describe('POST /api/boards/{id}/sections', () => {
  it('adds one section (201, full document, version + 1)', async () => {
    const board = await createBoard(server);
    const cat = categorySection(unique('cat'), 'Media', 1);
    const doc = expectOk(await addSection(board.boardId, cat), 201);
    expect(doc.version).toBe(1);
    expect(doc.sections).toEqual([emptySection(board.sectionId), cat]);
    const dyn = {
      id: unique('dyn'),
      kind: 'dynamic',
      options: { title: 'Inner' },
      layouts: [{ layoutId: board.layoutId, parentSectionId: cat.id, xOffset: 0, yOffset: 0, width: 2, height: 2 }],
    };
    const withDynamic = expectOk(await addSection(board.boardId, dyn), 201);
    expect(withDynamic.sections[2]).toEqual({ ...dyn, options: { title: 'Inner', customCssClasses: [], borderColor: '' } });
  });

  it('409 Section already exists on this board, distinct from a version conflict', async () => {
    const board = await createBoard(server);
    expectError(await addSection(board.boardId, emptySection(board.sectionId, 4)), 409, 'CONFLICT', 'Section already exists on this board');
    const other = await createBoard(server);
    expectError(await addSection(board.boardId, emptySection(other.sectionId, 4)), 409, 'CONFLICT', `Ids already used on another board: ${other.sectionId}`);
    expect((await readContent(server, board.boardId)).doc.version).toBe(0);
  });

  it('validates the body and needs modify', async () => {
    const board = await createBoard(server, { isPublic: true });
    expectError(await addSection(board.boardId, { id: unique('s'), kind: 'weird', yOffset: 0, xOffset: 0 }), 400, 'BAD_REQUEST', 'Input validation failed');
    expectError(await addSection(board.boardId, { section: emptySection(unique('s')) }), 400, 'BAD_REQUEST', 'Input validation failed');
    expectError(await addSection(board.boardId, emptySection(unique('s')), null), 401, 'UNAUTHORIZED');
    const viewer = await createActor(server);
    expectError(await addSection(board.boardId, emptySection(unique('s')), viewer.key), 404, 'NOT_FOUND', 'Board not found');
  });

  it('concurrent granular changes never lose an update: each is saved or answered with the version conflict', async () => {
    const board = await createBoard(server);
    const ids = Array.from({ length: 5 }, (_, n) => `concurrent${n}-${unique()}`);
    const results = await Promise.all(ids.map((id, n) => addSection(board.boardId, emptySection(id, n + 1))));
    const saved = ids.filter((_, n) => results[n].status === 201);
    for (const result of results) {
      if (result.status !== 201) expectError(result, 409, 'CONFLICT', conflictMessage);
    }
    expect(saved.length).toBeGreaterThanOrEqual(1);
    const { doc } = await readContent(server, board.boardId);
    expect(doc.sections.map((s: any) => s.id).sort()).toEqual([board.sectionId, ...saved].sort());
    expect(doc.version).toBe(saved.length);
  });
});

describe('PATCH /api/boards/{id}/sections/{sectionId}', () => {
  it('replaces one section; the body is the section itself', async () => {
    const board = await createBoard(server);
    const cat = categorySection(unique('cat'), 'Before', 1);
    expectOk(await addSection(board.boardId, cat), 201);
    const doc = expectOk(await patchSection(board.boardId, cat.id, { ...cat, name: 'After', yOffset: 5, xOffset: 3 }));
    expect(doc.sections[1]).toEqual({ ...cat, name: 'After', yOffset: 5, xOffset: 0 });
    expect(doc.version).toBe(2);
  });

  it('never changes the kind', async () => {
    const board = await createBoard(server);
    const doc = expectOk(await patchSection(board.boardId, board.sectionId, categorySection(board.sectionId, 'Named', 2)));
    expect(doc.sections).toEqual([{ id: board.sectionId, kind: 'empty', yOffset: 2, xOffset: 0 }]);
  });

  it('400 Section id does not match the path; 404 Section not found', async () => {
    const board = await createBoard(server);
    expectError(await patchSection(board.boardId, board.sectionId, emptySection('different', 1)), 400, 'BAD_REQUEST', 'Section id does not match the path');
    expectError(await patchSection(board.boardId, 'absent', emptySection('absent', 1)), 404, 'NOT_FOUND', 'Section not found');
    expect((await readContent(server, board.boardId)).doc.version).toBe(0);
  });
});

describe('DELETE /api/boards/{id}/sections/{sectionId}', () => {
  it('400 while the section holds items or a nested dynamic section; removes it once empty', async () => {
    const board = await createBoard(server);
    const holder = unique('holder');
    const parent = unique('parent');
    const dyn = {
      id: unique('dyn'),
      kind: 'dynamic',
      options: {},
      layouts: [{ layoutId: board.layoutId, parentSectionId: parent, xOffset: 0, yOffset: 0, width: 1, height: 1 }],
    };
    const it = item(unique('it'), [position(board.layoutId, holder)]);
    expectOk(
      await server.call('PUT', `/api/boards/${board.boardId}`, {
        body: { sections: [emptySection(board.sectionId), emptySection(holder, 1), emptySection(parent, 2), dyn], items: [it] },
      }),
    );
    expectError(await deleteSection(board.boardId, holder), 400, 'BAD_REQUEST', 'Section still holds items or dynamic sections');
    expectError(await deleteSection(board.boardId, parent), 400, 'BAD_REQUEST', 'Section still holds items or dynamic sections');
    const withoutDynamic = expectOk(await deleteSection(board.boardId, dyn.id));
    expect(withoutDynamic.version).toBe(2);
    const doc = expectOk(await deleteSection(board.boardId, parent));
    expect(doc.sections.map((s: any) => s.id)).toEqual([board.sectionId, holder]);
    expect(doc.version).toBe(3);
    expectError(await deleteSection(board.boardId, parent), 404, 'NOT_FOUND', 'Section not found');
  });
});
