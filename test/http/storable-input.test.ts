import { categorySection, createBoard, emptySection, item, position } from '../boards-document/helpers';
import { expectError } from '../support/expect';
import { call, useTestServer } from '../support/server';
import { unique } from '../support/unique';

/**
 * Text PostgreSQL cannot store (lone UTF-16 surrogates, NUL) is refused by one check of every request, whatever
 * route or field it is sent to: a 400 naming its JSON pointer, never a database error.
 */
const server = useTestServer();

const reason = 'lone UTF-16 surrogates and NUL characters cannot be stored';

function expectInvalidText(result: { status: number; body: any }, path: string): void {
  expectError(result, 400, 'BAD_REQUEST', `Invalid text at ${path}: ${reason}`);
  expect(result.body.data).toEqual({ path });
}

describe('unstorable text in a request body', () => {
  it.each([
    ['a lone surrogate', 'a\ud800'],
    ['a NUL', 'a\u0000'],
  ])('%s in a category name of PUT /api/boards/{id}', async (_label, name) => {
    const board = await createBoard(server);
    const body = { sections: [emptySection(board.sectionId), categorySection(unique('cat'), name)], items: [] };
    expectInvalidText(await server.call('PUT', `/api/boards/${board.boardId}`, { body }), '/sections/1/name');
    expect(await server.db('sections').where({ boardId: board.boardId })).toHaveLength(1);
  });

  it('in a section name of POST and PATCH /api/boards/{id}/sections', async () => {
    const board = await createBoard(server);
    const added = await server.call('POST', `/api/boards/${board.boardId}/sections`, { body: categorySection(unique('cat'), '\udc00') });
    expectInvalidText(added, '/name');
    const cat = categorySection(unique('cat'), 'Fine');
    expect((await server.call('POST', `/api/boards/${board.boardId}/sections`, { body: cat })).status).toBe(201);
    const patched = await server.call('PATCH', `/api/boards/${board.boardId}/sections/${cat.id}`, { body: { ...cat, name: 'x\ud83d' } });
    expectInvalidText(patched, '/name');
    expect((await server.db('sections').where({ id: cat.id }).first('name')).name).toBe('Fine');
  });

  it('in a layout name of PATCH /api/boards/{id}/layouts', async () => {
    const board = await createBoard(server);
    const layouts = [{ id: board.layoutId, name: 'Base\ud800', columnCount: 12, breakpoint: 0 }];
    expectInvalidText(await server.call('PATCH', `/api/boards/${board.boardId}/layouts`, { body: { layouts } }), '/layouts/0/name');
  });

  it('in an option key and an option value of an item', async () => {
    const board = await createBoard(server);
    const put = (options: unknown) =>
      server.call('PUT', `/api/boards/${board.boardId}`, {
        body: { sections: [emptySection(board.sectionId)], items: [item(unique('item'), [position(board.layoutId, board.sectionId)], { options })] },
      });
    expectInvalidText(await put({ ['k\ud800']: 1 }), '/items/0/options/k\ud800');
    expectInvalidText(await put({ deep: ['ok', 'bad\u0000'] }), '/items/0/options/deep/1');
    expectInvalidText(await server.call('POST', '/api/boards/items', { body: { boardId: board.boardId, kind: 'clock', options: { a: '\udfff' } } }), '/options/a');
    expect(await server.db('items').where({ boardId: board.boardId })).toHaveLength(0);
  });

  it('in a board name, an app name, an integration name and a board setting', async () => {
    expectInvalidText(await server.call('POST', '/api/boards', { body: { name: 'board\ud800', columnCount: 1, isPublic: false } }), '/name');
    const app = await server.call('POST', '/api/apps', { body: { name: `${unique('app')}\ud800`, iconUrl: 'https://cdn.example.com/icon.svg' } });
    expectInvalidText(app, '/name');
    const integration = { name: 'a\u0000b', kind: 'jellyfin', url: 'http://jellyfin.internal:8096' };
    expectInvalidText(await server.call('POST', '/api/integrations', { body: integration }), '/name');
    const board = await createBoard(server);
    expectInvalidText(await server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { pageTitle: 'a\u0000b' } }), '/pageTitle');
  });
});

describe('unstorable text in parameters', () => {
  it('a NUL in a query parameter or a path parameter', async () => {
    const search = await server.call('GET', '/api/apps/search?query=a%00b');
    expectError(search, 400, 'BAD_REQUEST', `Invalid text in query parameter query: ${reason}`);
    expect(search.body.data).toEqual({ in: 'query', path: '/query' });
    const board = await server.call('GET', '/api/boards/a%00b');
    expectError(board, 400, 'BAD_REQUEST', `Invalid text in path parameter id: ${reason}`);
  });

  it('a NUL in a query parameter the route ignores (the style sheet\'s v)', async () => {
    const style = await server.call('GET', '/boards/home/custom.css?v=a%00b');
    expectError(style, 400, 'BAD_REQUEST', `Invalid text in query parameter v: ${reason}`);
    expect(style.body.data).toEqual({ in: 'query', path: '/v' });
  });
});

/**
 * Widget options are not validated, but a number is stored as sent or refused: JSON.parse would turn `1e400` into
 * Infinity (stored as null) and round `12345678901234567890`.
 */
describe('numbers that would not be stored as sent', () => {
  /** The JSON text of `value` with each `"NUMBER:<text>"` string replaced by the raw number text. */
  const rawJson = (value: unknown) => JSON.stringify(value).replace(/"NUMBER:([^"]+)"/g, '$1');
  // Straight to the server: a proxy in front (the contract run's Prism) parses and re-serializes JSON bodies, which
  // is the very rounding under test.
  const send = (method: string, path: string, value: unknown) =>
    call(server.directUrl, method, path, { key: server.adminKey, raw: rawJson(value), headers: { 'Content-Type': 'application/json' } });

  function expectInvalidNumber(result: { status: number; body: any }, path: string): void {
    expectError(result, 400, 'BAD_REQUEST', `Invalid number at ${path}: it cannot be stored exactly (out of range or too precise)`);
    expect(result.body.data).toEqual({ path });
  }

  it.each([
    ['1e400', '/items/0/options/big'],
    ['-1e400', '/items/0/options/big'],
    ['1e-400', '/items/0/options/big'],
    ['12345678901234567890', '/items/0/options/big'],
    ['0.1000000000000000000001', '/items/0/options/big'],
  ])('PUT /api/boards/{id} refuses %s in item options', async (number, path) => {
    const board = await createBoard(server);
    const options = { fine: 'NUMBER:1.0', big: `NUMBER:${number}` };
    const body = { sections: [emptySection(board.sectionId)], items: [item(unique('item'), [position(board.layoutId, board.sectionId)], { options })] };
    expectInvalidNumber(await send('PUT', `/api/boards/${board.boardId}`, body), path);
    expect(await server.db('items').where({ boardId: board.boardId })).toHaveLength(0);
  });

  it('POST /api/boards/items and PATCH an item refuse them, and keep numbers that round-trip', async () => {
    const board = await createBoard(server);
    const added = await send('POST', '/api/boards/items', { boardId: board.boardId, kind: 'clock', options: { n: ['NUMBER:12345678901234567890'] } });
    expectInvalidNumber(added, '/options/n/0');
    const created = await send('POST', '/api/boards/items', {
      boardId: board.boardId,
      kind: 'clock',
      options: { a: 'NUMBER:1.0', b: 'NUMBER:1e2', c: 'NUMBER:0.10', d: 'NUMBER:-0', e: 'NUMBER:0.30000000000000004', f: 'NUMBER:5e-324' },
    });
    expect(created.status).toBe(201);
    const stored = await server.db('items').where({ id: created.body.itemId }).first('options');
    expect(stored.options).toEqual({ a: 1, b: 100, c: 0.1, d: 0, e: 0.30000000000000004, f: 5e-324 });
    const patched = await send('PATCH', `/api/boards/${board.boardId}/items/${created.body.itemId}`, { options: { x: 'NUMBER:1e400' } });
    expectInvalidNumber(patched, '/options/x');
    expect((await server.db('items').where({ id: created.body.itemId }).first('options')).options).toEqual(stored.options);
  });
});
