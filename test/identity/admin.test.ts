import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';

const server = useTestServer();

describe('users', () => {
  it('creates, lists and deletes a user', async () => {
    const created = await server.call('POST', '/api/users', { body: { username: 'carol', password: 'carol-pass-1', email: 'carol@example.com' } });
    expect(created.status).toBe(201);
    const list = await server.call('GET', '/api/users');
    const carol = list.body.find((u: any) => u.username === 'carol');
    expect(carol).toMatchObject({ id: created.body.userId, email: 'carol@example.com', groupIds: [] });
    expect(JSON.stringify(list.body)).not.toContain('password');
    const row = await server.db('users').where({ id: created.body.userId }).first();
    expect(row.passwordHash).toMatch(/^\$2[aby]\$10\$/);
    expect((await server.call('DELETE', `/api/users/${created.body.userId}`)).status).toBe(204);
    expect((await server.call('GET', '/api/users')).body.some((u: any) => u.username === 'carol')).toBe(false);
  });

  it('refuses a case-insensitive username collision with 409', async () => {
    await server.call('POST', '/api/users', { body: { username: 'Dave', password: 'dave-pass-1' } });
    const again = await server.call('POST', '/api/users', { body: { username: 'dave', password: 'dave-pass-2' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'CONFLICT', message: 'Username already taken' });
  });

  it('creates a user straight into groups, refusing unknown group ids', async () => {
    const group = await server.call('POST', '/api/groups', { body: { name: 'readers' } });
    const ok = await server.call('POST', '/api/users', { body: { username: 'erin', password: 'erin-pass-1', groupIds: [group.body.groupId] } });
    expect(ok.status).toBe(201);
    const groups = await server.call('GET', '/api/groups');
    expect(groups.body.find((g: any) => g.name === 'readers').memberIds).toEqual([ok.body.userId]);
    const bad = await server.call('POST', '/api/users', { body: { username: 'frank', password: 'frank-pass-1', groupIds: ['nosuchgroup'] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST', message: 'Unknown group ids: nosuchgroup' });
    expect((await server.call('GET', '/api/users')).body.some((u: any) => u.username === 'frank')).toBe(false);
  });

  it('validates the body with the issues in data', async () => {
    const result = await server.call('POST', '/api/users', { body: { username: 'has space', password: 'x', extra: 1 } });
    expect(result.status).toBe(400);
    expect(result.body.code).toBe('BAD_REQUEST');
    expect(result.body.message).toBe('Input validation failed');
    const paths = result.body.data.issues.map((i: any) => i.instancePath);
    expect(paths).toEqual(expect.arrayContaining(['/requestBody/username', '/requestBody/password']));
    expect(result.body.data.issues.some((i: any) => i.params?.additionalProperty === 'extra')).toBe(true);
  });

  it('refuses a password longer than 72 bytes', async () => {
    const result = await server.call('POST', '/api/users', { body: { username: 'gina', password: 'é'.repeat(40) } });
    expect(result.status).toBe(400);
    expect(result.body.message).toBe('Password must be at most 72 bytes long');
  });

  it('does not let an admin delete itself', async () => {
    const me = await server.call('GET', '/api/auth/session');
    const result = await server.call('DELETE', `/api/users/${me.body.userId}`);
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ code: 'BAD_REQUEST', message: 'Cannot delete your own user' });
  });

  it('answers 404 for an unknown user', async () => {
    const result = await server.call('DELETE', '/api/users/nosuchuser');
    expect(result.status).toBe(404);
    expect(result.body).toMatchObject({ code: 'NOT_FOUND', message: 'User not found' });
  });
});

describe('groups', () => {
  it('creates a group, manages members and permissions', async () => {
    const user = await createActor(server);
    const group = await server.call('POST', '/api/groups', { body: { name: 'editors' } });
    expect(group.status).toBe(201);
    const groupId = group.body.groupId;
    expect((await server.call('POST', `/api/groups/${groupId}/members`, { body: { userId: user.userId } })).status).toBe(204);
    // idempotent
    expect((await server.call('POST', `/api/groups/${groupId}/members`, { body: { userId: user.userId } })).status).toBe(204);
    const perms = await server.call('PUT', `/api/groups/${groupId}/permissions`, { body: { permissions: ['board-create', 'app-create'] } });
    expect(perms.status).toBe(200);
    expect(perms.body.permissions).toEqual(['board-create', 'app-create']);
    const session = await server.call('GET', '/api/auth/session', { key: user.key });
    expect(session.body.permissions).toEqual(['board-create', 'app-create']);

    const replaced = await server.call('PUT', `/api/groups/${groupId}/permissions`, { body: { permissions: [] } });
    expect(replaced.body.permissions).toEqual([]);
    expect((await server.call('GET', '/api/auth/session', { key: user.key })).body.permissions).toEqual([]);

    expect((await server.call('DELETE', `/api/groups/${groupId}/members/${user.userId}`)).status).toBe(204);
    const gone = await server.call('DELETE', `/api/groups/${groupId}/members/${user.userId}`);
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe('Membership not found');
    expect((await server.call('DELETE', `/api/groups/${groupId}`)).status).toBe(204);
    expect((await server.call('DELETE', `/api/groups/${groupId}`)).body.message).toBe('Group not found');
  });

  it('refuses unknown permission names and duplicate group names', async () => {
    const group = await server.call('POST', '/api/groups', { body: { name: 'Ops' } });
    const bad = await server.call('PUT', `/api/groups/${group.body.groupId}/permissions`, { body: { permissions: ['root'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Input validation failed');
    const dup = await server.call('POST', '/api/groups', { body: { name: 'ops' } });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'CONFLICT', message: 'Group name already taken' });
  });

  it('answers 404 for members of unknown groups or users', async () => {
    const noGroup = await server.call('POST', '/api/groups/nosuchgroup/members', { body: { userId: 'x' } });
    expect(noGroup.body).toMatchObject({ code: 'NOT_FOUND', message: 'Group not found' });
    const group = await server.call('POST', '/api/groups', { body: { name: 'lonely' } });
    const noUser = await server.call('POST', `/api/groups/${group.body.groupId}/members`, { body: { userId: 'nosuchuser' } });
    expect(noUser.body).toMatchObject({ code: 'NOT_FOUND', message: 'User not found' });
  });
});

describe('api keys', () => {
  it('lets any user create, list and revoke its own keys, never showing secrets', async () => {
    const user = await createActor(server);
    const created = await server.call('POST', '/api/api-keys', { key: user.key, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.body.apiKey).toMatch(/^[0-9a-f]{12}\.[0-9a-f]{64}$/);
    const list = await server.call('GET', '/api/api-keys', { key: user.key });
    expect(list.body.map((k: any) => k.id)).toContain(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain(created.body.apiKey.split('.')[1]);
    expect((await server.call('DELETE', `/api/api-keys/${created.body.id}`, { key: user.key })).status).toBe(204);
    expect((await server.call('GET', '/api/auth/session', { key: created.body.apiKey })).status).toBe(401);
  });

  it("refuses a non-admin creating, listing or revoking another user's keys", async () => {
    const alice = await createActor(server);
    const bob = await createActor(server);
    const create = await server.call('POST', '/api/api-keys', { key: alice.key, body: { userId: bob.userId } });
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({ code: 'FORBIDDEN', message: 'Permission denied' });
    expect((await server.call('GET', `/api/api-keys?userId=${bob.userId}`, { key: alice.key })).status).toBe(403);
    const bobKeys = await server.call('GET', `/api/api-keys?userId=${bob.userId}`);
    const revoke = await server.call('DELETE', `/api/api-keys/${bobKeys.body[0].id}`, { key: alice.key });
    expect(revoke.status).toBe(404);
    expect(revoke.body.message).toBe('API key not found');
    expect((await server.call('GET', '/api/auth/session', { key: bob.key })).status).toBe(200);
  });

  it('lets an admin create a key for another user, and 404s an unknown user', async () => {
    const user = await createActor(server);
    const created = await server.call('POST', '/api/api-keys', { body: { userId: user.userId, scopes: ['board-create'] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ userId: user.userId, scopes: ['board-create'] });
    const missing = await server.call('POST', '/api/api-keys', { body: { userId: 'nosuchuser' } });
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND', message: 'User not found' });
  });
});

describe('admin-only routes', () => {
  it.each([
    ['GET', '/api/users', undefined],
    ['POST', '/api/users', { username: 'zed', password: 'zed-pass-123' }],
    ['DELETE', '/api/users/whatever', undefined],
    ['GET', '/api/groups', undefined],
    ['POST', '/api/groups', { name: 'sneaky' }],
    ['DELETE', '/api/groups/whatever', undefined],
    ['POST', '/api/groups/whatever/members', { userId: 'x' }],
    ['DELETE', '/api/groups/whatever/members/x', undefined],
    ['PUT', '/api/groups/whatever/permissions', { permissions: ['admin'] }],
  ])('%s %s is 403 for a non-admin and 401 anonymously', async (method, path, body) => {
    const user = await createActor(server, { permissions: ['board-full-all', 'app-full-all', 'integration-full-all'] });
    const denied = await server.call(method, path, { key: user.key, body });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'FORBIDDEN', message: 'Permission denied' });
    const anonymous = await server.call(method, path, { key: null, body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('UNAUTHORIZED');
  });
});
