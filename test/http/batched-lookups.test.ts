import { createActor, Actor } from '../support/actors';
import { expectError } from '../support/expect';
import { useTestServer } from '../support/server';
import { createBoard, grantBoard, TestBoard } from '../boards-document/helpers';

/**
 * Key checks and board access checks of requests arriving together share one query (src/db/batchedLookup.ts).
 * Sent all at once, a mix of callers and boards must each get exactly the answer it would get alone, and a change
 * in the database must be seen by the very next batch.
 */
const server = useTestServer();
let viewer: Actor;
let stranger: Actor;
let grouped: Actor;
let privateBoard: TestBoard;
let publicBoard: TestBoard;
let groupBoard: TestBoard;

beforeAll(async () => {
  viewer = await createActor(server);
  stranger = await createActor(server);
  grouped = await createActor(server, { permissions: [] });
  privateBoard = await createBoard(server);
  publicBoard = await createBoard(server, { isPublic: true });
  groupBoard = await createBoard(server);
  await grantBoard(server, privateBoard.boardId, viewer.userId, 'view');
  await server.db('board_group_permissions').insert({ boardId: groupBoard.boardId, groupId: grouped.groupId, permission: 'view' });
});

const read = (boardId: string, key: string | null) => server.call('GET', `/api/boards/${boardId}`, { key });

describe('batched key and board access checks', () => {
  it('answers every request of a concurrent mix as it would answer it alone', async () => {
    const cases: { key: string | null; boardId: string; status: number }[] = [
      { key: server.adminKey, boardId: privateBoard.boardId, status: 200 },
      { key: viewer.key, boardId: privateBoard.boardId, status: 200 },
      { key: stranger.key, boardId: privateBoard.boardId, status: 404 },
      { key: stranger.key, boardId: publicBoard.boardId, status: 200 },
      { key: null, boardId: publicBoard.boardId, status: 200 },
      { key: null, boardId: privateBoard.boardId, status: 404 },
      { key: grouped.key, boardId: groupBoard.boardId, status: 200 },
      { key: viewer.key, boardId: groupBoard.boardId, status: 404 },
      { key: `${viewer.key.split('.')[0]}.${'x'.repeat(40)}`, boardId: privateBoard.boardId, status: 401 },
      { key: 'unknownkey.' + 'y'.repeat(40), boardId: publicBoard.boardId, status: 401 },
      { key: server.adminKey, boardId: 'no-such-board', status: 404 },
    ];
    // Several copies of each, interleaved, so that batches hold different callers and boards side by side.
    const requests = Array.from({ length: 4 }, () => cases).flat();
    const results = await Promise.all(requests.map((c) => read(c.boardId, c.key)));
    results.forEach((result, i) => {
      const expected = requests[i];
      if (expected.status === 200) {
        expect({ status: result.status, id: result.body.id }).toEqual({ status: 200, id: expected.boardId });
      } else if (expected.status === 404) {
        expectError(result, 404, 'NOT_FOUND', 'Board not found');
      } else {
        expectError(result, 401, 'UNAUTHORIZED', 'Invalid API key');
      }
    });
  });

  it('sees a revoked grant and a deleted key in the next batch', async () => {
    const reader = await createActor(server);
    await grantBoard(server, privateBoard.boardId, reader.userId, 'view');
    expect((await Promise.all([read(privateBoard.boardId, reader.key), read(privateBoard.boardId, reader.key)])).map((r) => r.status)).toEqual([200, 200]);

    await server.db('board_user_permissions').where({ boardId: privateBoard.boardId, userId: reader.userId }).del();
    const afterRevoke = await Promise.all([read(privateBoard.boardId, reader.key), read(publicBoard.boardId, reader.key)]);
    expectError(afterRevoke[0], 404, 'NOT_FOUND', 'Board not found');
    expect(afterRevoke[1].status).toBe(200);

    await server.db('api_keys').where({ id: reader.key.split('.')[0] }).del();
    const afterDelete = await Promise.all([read(publicBoard.boardId, reader.key), read(publicBoard.boardId, viewer.key)]);
    expectError(afterDelete[0], 401, 'UNAUTHORIZED', 'Invalid API key');
    expect(afterDelete[1].status).toBe(200);
  });
});
