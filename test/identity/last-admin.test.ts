import { runCli } from '../../src/cli/main';
import { createActor } from '../support/actors';
import { expectError } from '../support/expect';
import { useTestServer } from '../support/server';

// Its own server: on the old code these changes leave the instance with no admin, which every later test needs.
const server = useTestServer();
const lastAdmin = 'This change would leave no user with the admin permission';

async function adminGroupId(): Promise<string> {
  const groups = await server.call('GET', '/api/groups');
  return groups.body.find((group: any) => group.name === 'admins').id;
}

const me = async (key?: string) => (await server.call('GET', '/api/auth/session', key ? { key } : {})).body;

describe('ADMIN-1: no change leaves the instance without a user holding admin', () => {
  it('ADMIN-1: the last admin cannot leave the last group holding admin (409, nothing written)', async () => {
    const admins = await adminGroupId();
    const self = await me();
    expectError(await server.call('DELETE', `/api/groups/${admins}/members/${self.userId}`), 409, 'CONFLICT', lastAdmin);
    expect((await me()).permissions).toContain('admin');
  });

  it('ADMIN-1: the last group holding admin cannot lose it, nor be deleted', async () => {
    const admins = await adminGroupId();
    expectError(await server.call('PUT', `/api/groups/${admins}/permissions`, { body: { permissions: ['board-create'] } }), 409, 'CONFLICT', lastAdmin);
    expectError(await server.call('DELETE', `/api/groups/${admins}`), 409, 'CONFLICT', lastAdmin);
    const groups = await server.call('GET', '/api/groups');
    expect(groups.body.find((group: any) => group.id === admins).permissions).toEqual(['admin']);
  });

  it('ADMIN-1: the last admin user cannot be deleted (the local CLI, which needs no admin caller)', async () => {
    const self = await me();
    await expect(runCli(['users', 'delete', self.username], server.db)).rejects.toThrow(lastAdmin);
    expect((await me()).userId).toBe(self.userId);
  });

  it('ADMIN-1: changes that leave another admin are allowed', async () => {
    const second = await createActor(server, { permissions: ['admin'] });
    expect((await server.call('PUT', `/api/groups/${second.groupId}/permissions`, { body: { permissions: ['board-create'] } })).status).toBe(200);
    expect((await server.call('PUT', `/api/groups/${second.groupId}/permissions`, { body: { permissions: ['admin'] } })).status).toBe(200);
    expect((await server.call('DELETE', `/api/groups/${second.groupId}/members/${second.userId}`)).status).toBe(204);
    expect((await server.call('DELETE', `/api/users/${second.userId}`)).status).toBe(204);
  });

  it('ADMIN-1: two admins removing each other at once: one succeeds, the other gets 409, one admin is left', async () => {
    const admins = await adminGroupId();
    const self = await me();
    const other = await createActor(server, { permissions: ['admin'] });
    const [first, second] = await Promise.all([
      server.call('DELETE', `/api/groups/${other.groupId}/members/${other.userId}`),
      server.call('DELETE', `/api/groups/${admins}/members/${self.userId}`, { key: other.key }),
    ]);
    // The loser is refused by ADMIN-1 (409) when both passed their permission checks before either committed, else
    // it is no admin any more by its own check (403); never do both succeed.
    const statuses = [first.status, second.status];
    expect(statuses.filter((status) => status === 204)).toHaveLength(1);
    const loser = first.status === 204 ? second : first;
    if (loser.status === 409) expect(loser.body).toMatchObject({ code: 'CONFLICT', message: lastAdmin });
    else expect(loser.status).toBe(403);
    const stillAdmin = [(await me()).permissions.includes('admin'), (await me(other.key)).permissions.includes('admin')];
    expect(stillAdmin.filter(Boolean)).toHaveLength(1);
  });
});
