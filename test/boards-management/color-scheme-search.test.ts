/**
 * THEME-1, THEME-2: the board settings `colorScheme` and `webSearchUrl` through HTTP: defaults, PATCH and read back,
 * the board file round trip, and refusals that write nothing.
 */
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { boardRow, createBoard, expectError } from './fixtures';

const server = useTestServer();

const readBoard = async (boardId: string) => {
  const result = await server.call('GET', `/api/boards/${boardId}`);
  expect(result.status).toBe(200);
  return result.body;
};

describe('THEME-1, THEME-2: colorScheme and webSearchUrl', () => {
  it('THEME-1: a new board follows the system (auto) and has no web search', async () => {
    const boardId = await createBoard(server);
    expect(await readBoard(boardId)).toMatchObject({ colorScheme: 'auto', webSearchUrl: null });
  });

  it('THEME-1, THEME-2: PATCH settings sets both, the document shows them, blank web search text is null again', async () => {
    const boardId = await createBoard(server);
    const before = await boardRow(server, boardId);
    const body = { colorScheme: 'dark', webSearchUrl: 'https://duckduckgo.com/?q={query}' };
    expect((await server.call('PATCH', `/api/boards/${boardId}/settings`, { body })).status).toBe(204);
    expect(await readBoard(boardId)).toMatchObject({ ...body, version: before!.version, pageTitle: before!.pageTitle });
    expect((await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { colorScheme: 'light' } })).status).toBe(204);
    expect(await readBoard(boardId)).toMatchObject({ colorScheme: 'light', webSearchUrl: body.webSearchUrl });
    expect((await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { webSearchUrl: '  ' } })).status).toBe(204);
    expect(await readBoard(boardId)).toMatchObject({ colorScheme: 'light', webSearchUrl: null });
  });

  it.each([
    ['an unknown colour scheme', { colorScheme: 'sepia' }],
    ['a null colour scheme', { colorScheme: null }],
    ['a web search without {query}', { webSearchUrl: 'https://duckduckgo.com/?q=' }],
    ['a web search that is not http(s)', { webSearchUrl: 'javascript:alert({query})' }],
    ['a web search of another scheme', { webSearchUrl: 'ftp://example.com/{query}' }],
    ['a web search with no host', { webSearchUrl: 'https://?q={query}' }],
    ['a web search that is not a URL', { webSearchUrl: 'https://exa mple.com/?q={query}' }],
    ['a web search that is a number', { webSearchUrl: 42 }],
  ])('THEME-2: %s is a 400 naming the field, nothing written', async (_label, body) => {
    const boardId = await createBoard(server);
    const before = await boardRow(server, boardId);
    const result = await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { pageTitle: 'changed', ...body } });
    expectError(result, 400, 'BAD_REQUEST', 'Input validation failed');
    const field = Object.keys(body)[0];
    expect(JSON.stringify(result.body.data.issues)).toContain(field);
    expect(await boardRow(server, boardId)).toEqual(before);
  });

  it('THEME-1, THEME-2: the board file carries both; export, import as a new board, export again gives them back', async () => {
    const boardId = await createBoard(server);
    const settings = { colorScheme: 'dark', webSearchUrl: 'https://www.google.com/search?q={query}' };
    expect((await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: settings })).status).toBe(204);
    const exported = await server.call('GET', `/api/boards/${boardId}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body.settings).toMatchObject(settings);
    const name = unique('theme-copy-');
    const { source: _source, ...file } = exported.body;
    const imported = await server.call('POST', '/api/boards/import', { body: { ...file, name } });
    expect(imported.status).toBe(201);
    expect(await readBoard(imported.body.boardId)).toMatchObject(settings);
    const again = await server.call('GET', `/api/boards/${imported.body.boardId}/export`);
    expect(again.body.settings).toEqual(exported.body.settings);
  });

  it('THEME-1: a board file without the settings gets auto and no web search', async () => {
    const boardId = await createBoard(server);
    expect((await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { colorScheme: 'dark' } })).status).toBe(204);
    const exported = (await server.call('GET', `/api/boards/${boardId}/export`)).body;
    const { colorScheme: _c, webSearchUrl: _w, ...rest } = exported.settings;
    const { source: _source, ...file } = exported;
    const imported = await server.call('POST', '/api/boards/import', { body: { ...file, name: unique('theme-default-'), settings: rest } });
    expect(imported.status).toBe(201);
    expect(await readBoard(imported.body.boardId)).toMatchObject({ colorScheme: 'auto', webSearchUrl: null });
  });

  it.each([
    ['an unknown colour scheme', { colorScheme: 'night' }],
    ['a web search without {query}', { webSearchUrl: 'https://example.com/search' }],
    ['a web search with no host', { webSearchUrl: 'http://?q={query}' }],
  ])('THEME-2: a board file with %s is a 400 naming the field, no board created', async (_label, bad) => {
    const boardId = await createBoard(server);
    const { source: _source, ...file } = (await server.call('GET', `/api/boards/${boardId}/export`)).body;
    const name = unique('theme-bad-');
    const result = await server.call('POST', '/api/boards/import', { body: { ...file, name, settings: { ...file.settings, ...bad } } });
    expectError(result, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(JSON.stringify(result.body.data.issues)).toContain(Object.keys(bad)[0]);
    expect(await server.db('boards').whereRaw('lower(name) = lower(?)', [name]).first()).toBeUndefined();
  });

  it('THEME-1, THEME-2: a revision recorded before the settings existed reads and restores them at their defaults, not at today\'s values', async () => {
    const boardId = await createBoard(server);
    const settings = { colorScheme: 'dark', webSearchUrl: 'https://duckduckgo.com/?q={query}' };
    expect((await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: settings })).status).toBe(204);
    const entries = (await server.call('GET', `/api/boards/${boardId}/history`)).body.entries;
    const first = Math.min(...entries.map((e: any) => e.revision));
    // As history written before migration 0019 holds them: snapshots without the two fields, no delta naming them.
    await server.db.raw(
      `UPDATE board_history SET snapshot = (snapshot::jsonb #- '{board,colorScheme}' #- '{board,webSearchUrl}')::json,
              reverse_delta = (reverse_delta::jsonb #- '{board,colorScheme}' #- '{board,webSearchUrl}')::json
        WHERE board_id = ?`,
      [boardId],
    );
    const old = await server.call('GET', `/api/boards/${boardId}/history/${first}`);
    expect(old.status).toBe(200);
    expect(old.body).toMatchObject({ colorScheme: 'auto', webSearchUrl: null });
    const restored = await server.call('POST', `/api/boards/${boardId}/restore`, { body: { revision: first } });
    expect(restored.status).toBe(200);
    expect(await readBoard(boardId)).toMatchObject({ colorScheme: 'auto', webSearchUrl: null });
  });
});
