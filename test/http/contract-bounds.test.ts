import { expectError } from '../support/expect';
import { useTestServer } from '../support/server';
import { createBoard } from '../boards-document/helpers';

/**
 * INPUT-6: the request bounds declared for Spectral's OWASP rules are the server's (requests are validated against
 * the same document): one past each bound added with them is a 400 naming it, and nothing is written.
 */
const server = useTestServer();

const maxLengthIssue = (result: { body: any }, path: string) =>
  expect(result.body.data.issues).toEqual(expect.arrayContaining([expect.objectContaining({ instancePath: path, keyword: 'maxLength' })]));

describe('request bounds', () => {
  it('INPUT-6: a settings iconColor of blank text stops at 64 characters', async () => {
    const board = await createBoard(server);
    const patch = (iconColor: string) => server.call('PATCH', `/api/boards/${board.boardId}/settings`, { body: { iconColor } });
    expect((await patch('#fa5252')).status).toBe(204);
    expect((await patch(' '.repeat(64))).status).toBe(204);
    const tooLong = await patch(' '.repeat(65));
    expectError(tooLong, 400, 'BAD_REQUEST', 'Input validation failed');
    maxLengthIssue(tooLong, '/requestBody/iconColor');
    const read = await server.call('GET', `/api/boards/${board.boardId}`);
    expect(read.body.iconColor).toBeNull();
  });

  it('INPUT-6: an API key expiresAt stops at 64 characters', async () => {
    const keys = async () => Number((await server.db('api_keys').count({ n: '*' }))[0].n);
    const before = await keys();
    const tooLong = await server.call('POST', '/api/api-keys', { body: { name: 'bounded', expiresAt: `2099-01-01T00:00:00.${'0'.repeat(44)}Z` } });
    expectError(tooLong, 400, 'BAD_REQUEST', 'Input validation failed');
    maxLengthIssue(tooLong, '/requestBody/expiresAt');
    expect(await keys()).toBe(before);
  });

  it("INPUT-6: a board file's source.exportedAt stops at 64 characters", async () => {
    const board = await createBoard(server);
    const file = (await server.call('GET', `/api/boards/${board.boardId}/export`)).body;
    const boards = async () => Number((await server.db('boards').count({ n: '*' }))[0].n);
    const before = await boards();
    const tooLong = await server.call('POST', '/api/boards/import?onConflict=rename', {
      body: { ...file, source: { ...file.source, exportedAt: `2099-01-01T00:00:00.${'0'.repeat(44)}Z` } },
    });
    expectError(tooLong, 400, 'BAD_REQUEST', 'Input validation failed');
    maxLengthIssue(tooLong, '/requestBody/source/exportedAt');
    expect(await boards()).toBe(before);
  });
});
