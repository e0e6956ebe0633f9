import { unique } from '../support/unique';
import type { TestServer } from '../support/server';
export { expectError } from '../support/expect';


/** Creates a board over the API with the given key (the admin key by default) and returns its id. */
export async function createBoard(
  server: TestServer,
  options: { key?: string; name?: string; columnCount?: number; isPublic?: boolean } = {},
): Promise<string> {
  const result = await server.call('POST', '/api/boards', {
    key: options.key ?? server.adminKey,
    body: { name: options.name ?? unique('board-'), columnCount: options.columnCount ?? 12, isPublic: options.isPublic ?? false },
  });
  if (result.status !== 201) throw new Error(`createBoard: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body.boardId;
}

export async function grantUser(server: TestServer, boardId: string, userId: string, permission: 'view' | 'modify' | 'full'): Promise<void> {
  await server.db('board_user_permissions').insert({ boardId, userId, permission });
}

export async function grantGroup(server: TestServer, boardId: string, groupId: string, permission: 'view' | 'modify' | 'full'): Promise<void> {
  await server.db('board_group_permissions').insert({ boardId, groupId, permission });
}

export async function boardRow(server: TestServer, boardId: string): Promise<Record<string, any> | undefined> {
  return server.db('boards').where({ id: boardId }).first();
}
