import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectError } from '../support/expect';
import { categorySection, createIntegration, emptySection, expectOk, item, position } from '../boards-document/helpers';

const server = useTestServer();

const conflictMessage = 'This board was modified by another request. Reload the latest board and retry.';

async function newBoard(columnCount = 12) {
  const created = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('plan-'), columnCount, isPublic: false } }), 201);
  const doc = expectOk(await server.call('GET', `/api/boards/${created.boardId}`));
  return { boardId: created.boardId as string, layoutId: doc.layouts[0].id as string, sectionId: doc.sections[0].id as string };
}
const get = async (boardId: string) => expectOk(await server.call('GET', `/api/boards/${boardId}`));
const plan = (boardId: string, body: unknown, options: { key?: string; headers?: Record<string, string> } = {}) =>
  server.call('POST', `/api/boards/${boardId}/plan`, { body, ...options });
const put = (boardId: string, body: unknown) => server.call('PUT', `/api/boards/${boardId}`, { body });
const content = (doc: any) => ({ sections: doc.sections, items: doc.items });
const noChange = { added: [], removed: [], updated: [] };

/** The board as the store holds it: version, ETag and history length, all of which a plan must leave alone. */
async function fingerprint(boardId: string) {
  const read = await server.call('GET', `/api/boards/${boardId}`);
  const entries = (await server.db('board_history').where({ boardId }).count({ n: '*' }))[0].n;
  return { version: read.body.version, etag: read.headers.get('etag'), entries, revision: (await server.db('boards').where({ id: boardId }).first('revision')).revision };
}

describe('POST /api/boards/{id}/plan', () => {
  it('PLAN-2: the body of a GET plans no change; PLAN-1: nothing is written', async () => {
    const board = await newBoard();
    const doc = await get(board.boardId);
    const before = await fingerprint(board.boardId);
    const planned = expectOk(await plan(board.boardId, { ...content(doc), expectedVersion: doc.version }));
    expect(planned).toEqual({ version: 0, changes: { sections: noChange, items: noChange }, ignored: [], warnings: [] });
    expect(await fingerprint(board.boardId)).toEqual(before);
  });

  it('PLAN-2: a save right after its plan changes exactly what the plan listed, and the plan wrote nothing', async () => {
    const board = await newBoard();
    const keep = unique('keep');
    const drop = unique('drop');
    const cat = categorySection(unique('cat'), 'Old', 2);
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId), cat], items: [item(keep, [position(board.layoutId, board.sectionId)]), item(drop, [position(board.layoutId, cat.id, 1)])] }));
    const doc = await get(board.boardId);
    const added = unique('added');
    const body = {
      expectedVersion: doc.version,
      sections: [doc.sections[0], { ...doc.sections[1], name: 'Renamed' }, emptySection(unique('s'), 5)],
      items: [{ ...doc.items.find((i: any) => i.id === keep), options: { showSeconds: true } }, item(added, [position(board.layoutId, board.sectionId, 3)])],
    };
    const before = await fingerprint(board.boardId);
    const planned = expectOk(await plan(board.boardId, body));
    expect(await fingerprint(board.boardId)).toEqual(before);
    expect(planned.changes.items).toEqual({ added: [added], removed: [drop], updated: [keep] });
    expect(planned.changes.sections).toEqual({ added: [body.sections[2].id], removed: [], updated: [cat.id] });
    expectOk(await put(board.boardId, body));
    const diff = expectOk(await server.call('GET', `/api/boards/${board.boardId}/diff?from=2&to=3`));
    expect({ sections: diff.changes.sections, items: diff.changes.items }).toEqual(planned.changes);
  });

  it('PLAN-3: each ignored part names its rule and its place in the payload', async () => {
    const board = await newBoard();
    const layouts = (await get(board.boardId)).layouts;
    expectOk(await server.call('PATCH', `/api/boards/${board.boardId}/layouts`, { body: { layouts: [...layouts, { id: 'w', name: 'Wide', columnCount: 20, breakpoint: 900 }] } }));
    const withWide = await get(board.boardId);
    const wide = withWide.layouts.find((l: any) => l.name === 'Wide').id;
    const existing = unique('existing');
    const cat = categorySection(unique('cat'), 'Cat', 1);
    // The item is stored with a position on Base only.
    await server.db('items').insert({ id: existing, boardId: board.boardId, kind: 'clock', options: '{}', advancedOptions: JSON.stringify({ title: null, customCssClasses: [], borderColor: '' }) });
    await server.db('item_layouts').insert({ itemId: existing, layoutId: board.layoutId, sectionId: board.sectionId, xOffset: 0, yOffset: 0, width: 1, height: 1 });
    await server.db('sections').insert({ id: cat.id, boardId: board.boardId, kind: 'category', xOffset: 0, yOffset: 1, name: 'Cat' });
    const ghost = unique('ghost');
    await server.db('items').insert({ id: ghost, boardId: board.boardId, kind: 'retiredWidget', options: '{}', advancedOptions: '{}' });
    // Rows written behind the service's back: move the revision so that cached documents are not served.
    await server.db('boards').where({ id: board.boardId }).increment('revision', 1);
    const doc = await get(board.boardId);
    const body = {
      sections: [{ ...doc.sections[0], kind: 'category', name: 'Now a category', collapsed: false }, { ...cat, xOffset: 4, collapsed: true }],
      items: [{ ...doc.items[0], layouts: [...doc.items[0].layouts, position(wide, board.sectionId, 0, 0)] }],
    };
    const planned = expectOk(await plan(board.boardId, body));
    expect(planned.changes).toEqual({ sections: noChange, items: noChange });
    expect(planned.ignored).toEqual(
      expect.arrayContaining([
        { rule: 'PUT-6', path: '/sections/0/kind', message: `Section ${board.sectionId} is stored as empty; a save never changes a section's kind (delete it and add a new one)` },
        { rule: 'PUT-7', path: '/sections/1/xOffset', message: `xOffset of section ${cat.id} is stored as 0: order category and empty sections with yOffset` },
        { rule: 'PUT-8', path: '/sections/1/collapsed', message: `collapsed of section ${cat.id} is per-user state and is not written by a save` },
        { rule: 'PUT-5', path: '/items/0/layouts/1', message: `Item ${existing} has no position in layout ${wide}: a save only updates an existing item's existing positions` },
        { rule: 'PUT-13', path: null, message: `Item ${ghost} of widget kind "retiredWidget", unknown to this server, is kept as stored` },
      ]),
    );
    expect(planned.ignored).toHaveLength(5);
    expect(planned.warnings).toContainEqual({
      code: 'MISSING_POSITION',
      path: '/items/0/layouts',
      message: `Item ${existing} has no position in layout Wide: a later layout change places it anew (PUT-10)`,
    });
  });

  it('PLAN-4: positions past the columns, overlaps, app ids one cannot see and unsupported integrations are warned about, and still saved', async () => {
    const board = await newBoard(4);
    const doc = await get(board.boardId);
    const mock = await createIntegration(server, 'mock');
    const anchor = await createIntegration(server, 'anchor');
    const [a, b, c, d] = [unique('a'), unique('b'), unique('c'), unique('d')];
    const body = {
      sections: doc.sections,
      items: [
        item(a, [position(board.layoutId, board.sectionId, 3, 0, 2, 1)]),
        item(b, [position(board.layoutId, board.sectionId, 0, 0, 2, 2)]),
        item(c, [position(board.layoutId, board.sectionId, 1, 1, 1, 1)], { kind: 'app', options: { appId: 'no-such-app' } }),
        item(d, [position(board.layoutId, board.sectionId, 0, 5)], { kind: 'downloads', integrationIds: [mock, anchor] }),
      ],
    };
    const planned = expectOk(await plan(board.boardId, body));
    const layoutName = doc.layouts[0].name;
    expect(planned.warnings).toEqual(
      expect.arrayContaining([
        { code: 'OUTSIDE_COLUMNS', path: '/items/0/layouts/0', message: `Item ${a} reaches column 5 of layout ${layoutName}, which has 4 columns` },
        { code: 'OVERLAP', path: '/items/2/layouts', message: `Items ${b} and ${c} overlap in section ${board.sectionId} of layout ${layoutName}` },
        { code: 'UNKNOWN_APP', path: '/items/2/options', message: `Item ${c} names app no-such-app, which is not an app you can see` },
        {
          code: 'UNSUPPORTED_INTEGRATION',
          path: '/items/3/integrationIds',
          message: `Item ${d} (downloads) is bound to integration ${anchor} of kind anchor, which the widget does not support`,
        },
      ]),
    );
    expect(planned.warnings.filter((w: any) => w.code === 'UNSUPPORTED_INTEGRATION')).toHaveLength(1);
    expectOk(await put(board.boardId, body));
  });

  it('PLAN-4, WIDGET-2: options the widget does not define (with the name meant) and of the wrong type are warned about, and stored as sent', async () => {
    const board = await newBoard();
    const doc = await get(board.boardId);
    const clock = unique('clock');
    const body = { sections: doc.sections, items: [item(clock, [position(board.layoutId, board.sectionId)], { options: { is24hourformat: true, showSeconds: 'yes' } })] };
    const planned = expectOk(await plan(board.boardId, body));
    expect(planned.warnings).toEqual([
      {
        code: 'UNKNOWN_OPTION',
        path: '/items/0/options/is24hourformat',
        message: `Item ${clock} (clock): option "is24hourformat" is not an option of clock widgets (did you mean "is24HourFormat"?)`,
      },
      { code: 'OPTION_TYPE', path: '/items/0/options/showSeconds', message: `Item ${clock} (clock): option "showSeconds" expects a boolean, got "yes"` },
    ]);
    const saved = expectOk(await put(board.boardId, body));
    expect(saved.items[0].options).toEqual({ is24hourformat: true, showSeconds: 'yes' });
  });

  it('PLAN-1: every check of the save, with its answer; nothing written', async () => {
    const board = await newBoard();
    const doc = await get(board.boardId);
    const before = await fingerprint(board.boardId);
    const viewer = await createActor(server);
    expectError(await plan(board.boardId, content(doc), { key: viewer.key }), 404, 'NOT_FOUND', 'Board not found');
    expectError(await plan(board.boardId, { sections: doc.sections }), 400, 'BAD_REQUEST', 'Input validation failed');
    expectError(await plan(board.boardId, { ...content(doc), expectedVersion: 4 }), 409, 'CONFLICT', conflictMessage);
    expectError(await plan(board.boardId, content(doc), { headers: { 'If-Match': '"other"' } }), 412, 'PRECONDITION_FAILED', 'Board has changed since the ETag was issued');
    const integration = await createIntegration(server);
    const editor = await createActor(server, { permissions: ['board-modify-all'] });
    const binding = { sections: doc.sections, items: [item(unique('i'), [position(board.layoutId, board.sectionId)], { integrationIds: [integration] })] };
    expectError(await plan(board.boardId, binding, { key: editor.key }), 403, 'FORBIDDEN', `No access to integrations: ${integration}`);
    const other = await newBoard();
    const otherDoc = await get(other.boardId);
    expectError(await plan(board.boardId, { sections: [...doc.sections, otherDoc.sections[0]], items: [] }), 409, 'CONFLICT', `Ids already used on another board: ${other.sectionId}`);
    expectError(
      await plan(board.boardId, { sections: doc.sections, items: [item(unique('i'), [position('nowhere', board.sectionId)])] }),
      400,
      'BAD_REQUEST',
      'Positions reference layouts not on this board: nowhere',
    );
    expect(await fingerprint(board.boardId)).toEqual(before);
    expectError(await plan(board.boardId, content(doc), { key: null as unknown as string }), 401, 'UNAUTHORIZED');
  });
});

describe('POST /api/boards/{id}/layouts/plan', () => {
  it('PLAN-5: new layouts with their clone source, updated and deleted layouts, position counts; nothing written', async () => {
    const board = await newBoard(12);
    const doc = await get(board.boardId);
    expectOk(await put(board.boardId, { sections: doc.sections, items: [item(unique('a'), [position(board.layoutId, board.sectionId)]), item(unique('b'), [position(board.layoutId, board.sectionId, 2)])] }));
    expectOk(await server.call('PATCH', `/api/boards/${board.boardId}/layouts`, { body: { layouts: [doc.layouts[0], { id: 'x', name: 'Small', columnCount: 2, breakpoint: 300 }] } }));
    const layouts = (await get(board.boardId)).layouts;
    const small = layouts.find((l: any) => l.name === 'Small');
    const before = await fingerprint(board.boardId);
    const planned = expectOk(
      await server.call('POST', `/api/boards/${board.boardId}/layouts/plan`, {
        body: { layouts: [{ ...doc.layouts[0], columnCount: 6 }, { id: 'new', name: 'Tablet', columnCount: 8, breakpoint: 700 }] },
      }),
    );
    expect(planned).toEqual({
      version: 1,
      layouts: { created: [{ name: 'Tablet', columnCount: 8, breakpoint: 700, clonedFrom: board.layoutId }], deleted: [small.id], updated: [board.layoutId] },
      positions: { regenerated: { items: 4, sections: 0 }, removed: { items: 2, sections: 0 } },
    });
    expect(await fingerprint(board.boardId)).toEqual(before);
    expectError(await server.call('POST', `/api/boards/${board.boardId}/layouts/plan`, { body: { layouts: [] } }), 400, 'BAD_REQUEST', 'A board needs at least one layout');
  });
});
