import { unique } from '../support/unique';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { categorySection, createBoard, emptySection, expectError, expectOk, getBoard, item, position } from './helpers';

const server = useTestServer();

describe('GET /api/boards/{id}: the board document', () => {
  it('returns metadata, version 0, creator, settings columns, layouts, sections, items', async () => {
    const actor = await createActor(server);
    const board = await createBoard(server, { creatorId: actor.userId, name: unique('doc-') });
    await server.db('boards').where({ id: board.boardId }).update({ pageTitle: 'My page', customCss: '.a{}' });
    const doc = expectOk(await getBoard(server, board.boardId));
    expect(doc).toMatchObject({
      id: board.boardId,
      version: 0,
      isPublic: false,
      creatorId: actor.userId,
      creator: { id: actor.userId, name: actor.username, image: null, email: null },
      pageTitle: 'My page',
      customCss: '.a{}',
      primaryColor: '#fa5252',
      opacity: 100,
      itemRadius: 'lg',
      disableStatus: false,
      layouts: [{ id: board.layoutId, name: 'Base', columnCount: 12, breakpoint: 0 }],
      sections: [{ id: board.sectionId, kind: 'empty', yOffset: 0, xOffset: 0 }],
      items: [],
    });
    for (const column of ['metaTitle', 'logoImageUrl', 'faviconImageUrl', 'backgroundImageUrl', 'backgroundImageAttachment', 'backgroundImageRepeat', 'backgroundImageSize', 'secondaryColor', 'iconColor']) {
      expect(doc).toHaveProperty(column);
    }
    expect(doc).not.toHaveProperty('revision');
  });

  it('sorts layouts by breakpoint ascending', async () => {
    const board = await createBoard(server);
    await server.db('layouts').insert([
      { id: unique('l'), boardId: board.boardId, name: 'Wide', columnCount: 16, breakpoint: 1400 },
      { id: unique('l'), boardId: board.boardId, name: 'Mid', columnCount: 8, breakpoint: 600 },
    ]);
    const doc = expectOk(await getBoard(server, board.boardId));
    expect(doc.layouts.map((l: any) => l.breakpoint)).toEqual([0, 600, 1400]);
  });

  it('shows category, empty and dynamic sections in their shapes and items with bindings', async () => {
    const board = await createBoard(server);
    const integrationId = unique('int');
    await server.db('integrations').insert({ id: integrationId, name: 'I', kind: 'mock', url: 'http://x' });
    const body = {
      sections: [
        emptySection(board.sectionId),
        categorySection('cat1', 'Media', 1),
        {
          id: 'dyn1',
          kind: 'dynamic',
          options: { title: 'Box' },
          layouts: [{ layoutId: board.layoutId, parentSectionId: board.sectionId, xOffset: 2, yOffset: 0, width: 2, height: 2 }],
        },
      ],
      items: [item('i1', [position(board.layoutId, 'dyn1', 0, 0, 1, 1)], { integrationIds: [integrationId], options: { showSeconds: true } })],
    };
    expectOk(await server.call('PUT', `/api/boards/${board.boardId}`, { body }));
    const doc = expectOk(await getBoard(server, board.boardId));
    expect(doc.sections).toEqual([
      { id: board.sectionId, kind: 'empty', yOffset: 0, xOffset: 0 },
      { id: 'cat1', kind: 'category', name: 'Media', yOffset: 1, xOffset: 0, collapsed: false },
      {
        id: 'dyn1',
        kind: 'dynamic',
        options: { title: 'Box', customCssClasses: [], borderColor: '' },
        layouts: [{ layoutId: board.layoutId, parentSectionId: board.sectionId, xOffset: 2, yOffset: 0, width: 2, height: 2 }],
      },
    ]);
    expect(doc.items).toEqual([
      {
        id: 'i1',
        kind: 'clock',
        options: { showSeconds: true },
        integrationIds: [integrationId],
        advancedOptions: { title: null, customCssClasses: [], borderColor: '' },
        layouts: [position(board.layoutId, 'dyn1', 0, 0, 1, 1)],
      },
    ]);
  });

  it('returns the caller’s own permission rows only', async () => {
    const actor = await createActor(server, { permissions: [] });
    const other = await createActor(server);
    const board = await createBoard(server);
    await server.db('board_user_permissions').insert([
      { boardId: board.boardId, userId: actor.userId, permission: 'modify' },
      { boardId: board.boardId, userId: other.userId, permission: 'full' },
    ]);
    await server.db('board_group_permissions').insert({ boardId: board.boardId, groupId: actor.groupId, permission: 'view' });
    const doc = expectOk(await getBoard(server, board.boardId, actor.key));
    expect(doc.userPermissions).toEqual([{ permission: 'modify' }]);
    expect(doc.groupPermissions).toEqual([{ groupId: actor.groupId, permission: 'view' }]);
    const adminDoc = expectOk(await getBoard(server, board.boardId));
    expect(adminDoc.userPermissions).toEqual([]);
    expect(adminDoc.groupPermissions).toEqual([]);
  });

  it('reports collapsed per caller', async () => {
    const actor = await createActor(server);
    const board = await createBoard(server, { isPublic: true });
    await server.db('sections').insert({ id: unique('cat'), boardId: board.boardId, kind: 'category', name: 'C', xOffset: 0, yOffset: 1 });
    const category = await server.db('sections').where({ boardId: board.boardId, kind: 'category' }).first();
    await server.db('section_collapse_states').insert({ userId: actor.userId, sectionId: category.id, collapsed: true });
    const mine = expectOk(await getBoard(server, board.boardId, actor.key));
    expect(mine.sections.find((s: any) => s.id === category.id).collapsed).toBe(true);
    const admin = expectOk(await getBoard(server, board.boardId));
    expect(admin.sections.find((s: any) => s.id === category.id).collapsed).toBe(false);
    const anonymous = expectOk(await getBoard(server, board.boardId, null));
    expect(anonymous.sections.find((s: any) => s.id === category.id).collapsed).toBe(false);
  });

  it('serves a public board without a key, and 404s a private one', async () => {
    const pub = await createBoard(server, { isPublic: true });
    const priv = await createBoard(server);
    const doc = expectOk(await getBoard(server, pub.boardId, null));
    expect(doc.userPermissions).toEqual([]);
    expectError(await getBoard(server, priv.boardId, null), 404, 'NOT_FOUND', 'Board not found');
  });

  it('answers 404 Board not found for a missing board and for a caller without view', async () => {
    const actor = await createActor(server);
    const board = await createBoard(server);
    expectError(await getBoard(server, 'no-such-board'), 404, 'NOT_FOUND', 'Board not found');
    expectError(await getBoard(server, board.boardId, actor.key), 404, 'NOT_FOUND', 'Board not found');
    await server.db('board_user_permissions').insert({ boardId: board.boardId, userId: actor.userId, permission: 'view' });
    expectOk(await getBoard(server, board.boardId, actor.key));
  });

  it('answers 401 for an invalid key even on a public board', async () => {
    const pub = await createBoard(server, { isPublic: true });
    expectError(await getBoard(server, pub.boardId, `nope1234.${'a'.repeat(48)}`), 401, 'UNAUTHORIZED');
  });

  it('skips items of a widget kind unknown to this build (PUT-13)', async () => {
    const board = await createBoard(server);
    await server.db('items').insert({ id: unique('legacy'), boardId: board.boardId, kind: 'retiredWidget', options: '{}', advancedOptions: '{}' });
    const doc = expectOk(await getBoard(server, board.boardId));
    expect(doc.items).toEqual([]);
  });

  it('sends a strong ETag that changes with the document and differs per caller state', async () => {
    const actor = await createActor(server);
    const board = await createBoard(server, { isPublic: true });
    const first = await getBoard(server, board.boardId);
    const again = await getBoard(server, board.boardId);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(again.headers.get('etag')).toBe(etag);
    await server.db('board_user_permissions').insert({ boardId: board.boardId, userId: actor.userId, permission: 'view' });
    expect((await getBoard(server, board.boardId, actor.key)).headers.get('etag')).not.toBe(etag);
    await server.db('boards').where({ id: board.boardId }).update({ pageTitle: 'changed' });
    expect((await getBoard(server, board.boardId)).headers.get('etag')).not.toBe(etag);
  });
});
