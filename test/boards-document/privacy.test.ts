import { createActor, type Actor } from '../support/actors';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk } from './helpers';

const server = useTestServer();

/** A user with an e-mail address who may create boards, and a public board it created. */
async function publicBoardOfCreatorWithEmail(): Promise<{ creator: Actor; email: string; boardId: string }> {
  const name = unique('mailer');
  const email = `${name}@example.com`;
  const { userId } = expectOk(await server.call('POST', '/api/users', { body: { username: name, password: 'password-123', email } }), 201);
  const group = expectOk(await server.call('POST', '/api/groups', { body: { name: unique('creators') } }), 201);
  expectOk(await server.call('PUT', `/api/groups/${group.groupId}/permissions`, { body: { permissions: ['board-create'] } }));
  await server.call('POST', `/api/groups/${group.groupId}/members`, { body: { userId } });
  const { apiKey } = expectOk(await server.call('POST', '/api/api-keys', { body: { userId } }), 201);
  const creator: Actor = { userId, username: name, key: apiKey, groupId: group.groupId };
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { key: apiKey, body: { name: unique('priv-'), columnCount: 12, isPublic: true } }), 201);
  return { creator, email, boardId };
}

const listedCreator = (boards: any[], boardId: string) => boards.find((board) => board.id === boardId)?.creator;

describe('PRIV-1: a creator e-mail is shown to the creator itself and to admins only', () => {
  it('PRIV-1: GET /api/boards/{id} shows the e-mail to the creator and admins, null to anonymous callers and other users', async () => {
    const { creator, email, boardId } = await publicBoardOfCreatorWithEmail();
    const other = await createActor(server);
    // Each read twice: the second is served from the document cache, which must not hand one caller's document to another.
    for (let round = 0; round < 2; round++) {
      expect(expectOk(await server.call('GET', `/api/boards/${boardId}`, { key: null })).creator).toEqual({ id: creator.userId, name: creator.username, image: null, email: null });
      expect(expectOk(await server.call('GET', `/api/boards/${boardId}`, { key: other.key })).creator.email).toBeNull();
      expect(expectOk(await server.call('GET', `/api/boards/${boardId}`, { key: creator.key })).creator.email).toBe(email);
      expect(expectOk(await server.call('GET', `/api/boards/${boardId}`)).creator.email).toBe(email);
    }
  });

  it('PRIV-1: the ETag differs between a document with the e-mail and one without, so a 304 never stands for the other', async () => {
    const { boardId } = await publicBoardOfCreatorWithEmail();
    const anonymous = await server.call('GET', `/api/boards/${boardId}`, { key: null });
    const admin = await server.call('GET', `/api/boards/${boardId}`);
    expect(anonymous.headers.get('etag')).not.toBe(admin.headers.get('etag'));
    const revalidated = await server.call('GET', `/api/boards/${boardId}`, { headers: { 'If-None-Match': anonymous.headers.get('etag')! } });
    expect(revalidated.status).toBe(200);
    expect(revalidated.body.creator.email).toMatch(/@example\.com$/);
  });

  it('PRIV-1: GET /api/boards and tRPC board.getAllBoards hide the e-mail from anonymous callers and other users', async () => {
    const { creator, email, boardId } = await publicBoardOfCreatorWithEmail();
    const other = await createActor(server);
    expect(listedCreator(expectOk(await server.call('GET', '/api/boards', { key: null })), boardId).email).toBeNull();
    expect(listedCreator(expectOk(await server.call('GET', '/api/boards', { key: other.key })), boardId).email).toBeNull();
    expect(listedCreator(expectOk(await server.call('GET', '/api/boards', { key: creator.key })), boardId).email).toBe(email);
    expect(listedCreator(expectOk(await server.call('GET', '/api/boards')), boardId).email).toBe(email);
    const anonymousTrpc = expectOk(await server.call('GET', '/api/trpc/board.getAllBoards', { key: null }));
    expect(listedCreator(anonymousTrpc.result.data.json, boardId)).toEqual({ id: creator.userId, name: creator.username, image: null, email: null });
  });

  it('PRIV-1: the board as it was after a revision hides the e-mail the same way', async () => {
    const { email, boardId } = await publicBoardOfCreatorWithEmail();
    for (let round = 0; round < 2; round++) {
      expect(expectOk(await server.call('GET', `/api/boards/${boardId}/history/1`, { key: null })).creator.email).toBeNull();
      expect(expectOk(await server.call('GET', `/api/boards/${boardId}/history/1`)).creator.email).toBe(email);
    }
  });
});

describe('PRIV-2: anonymous readers see who acted by name only', () => {
  it('PRIV-2: the history of a public board read anonymously shows the actor name, no user or API key id', async () => {
    const { creator, boardId } = await publicBoardOfCreatorWithEmail();
    expectOk(await server.call('PATCH', `/api/boards/${boardId}/settings`, { key: creator.key, body: { pageTitle: 'Seen' } }), 204);
    const anonymous = expectOk(await server.call('GET', `/api/boards/${boardId}/history`, { key: null }));
    expect(anonymous.entries.map((entry: any) => entry.actor)).toEqual([
      { userId: null, name: creator.username, apiKeyId: null },
      { userId: null, name: creator.username, apiKeyId: null },
    ]);
    const signedIn = expectOk(await server.call('GET', `/api/boards/${boardId}/history`));
    expect(signedIn.entries[0].actor.userId).toBe(creator.userId);
    expect(signedIn.entries[0].actor.apiKeyId).toEqual(expect.any(String));
  });
});
