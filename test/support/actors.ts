import type { TestServer } from './server';
import type { GlobalPermission } from '../../src/identity/permissions';

export interface Actor {
  userId: string;
  username: string;
  key: string;
  groupId: string | null;
}

let counter = 0;

/**
 * Creates a user over the admin API, optionally in a fresh group holding the given global permissions,
 * and an API key for it.
 */
export async function createActor(
  server: TestServer,
  options: { permissions?: GlobalPermission[]; password?: string; scopes?: GlobalPermission[]; name?: string } = {},
): Promise<Actor> {
  counter += 1;
  const username = options.name ?? `user${counter}_${Date.now().toString(36)}`;
  const created = await server.call('POST', '/api/users', {
    body: { username, password: options.password ?? 'password-123' },
  });
  if (created.status !== 201) throw new Error(`createUser: ${created.status} ${JSON.stringify(created.body)}`);
  const userId: string = created.body.userId;
  let groupId: string | null = null;
  if (options.permissions) {
    const group = await server.call('POST', '/api/groups', { body: { name: `group-${username}` } });
    groupId = group.body.groupId;
    await server.call('PUT', `/api/groups/${groupId}/permissions`, { body: { permissions: options.permissions } });
    await server.call('POST', `/api/groups/${groupId}/members`, { body: { userId } });
  }
  const key = await server.call('POST', '/api/api-keys', { body: { userId, scopes: options.scopes } });
  if (key.status !== 201) throw new Error(`createApiKey: ${key.status} ${JSON.stringify(key.body)}`);
  return { userId, username, key: key.body.apiKey, groupId };
}
