import { runCli } from '../../src/cli/main';
import { useTestServer } from '../support/server';

const server = useTestServer();

describe('tessera CLI', () => {
  it('creates a user, a group with permissions and a key that works over HTTP', async () => {
    await runCli(['users', 'create', 'cli-user', '--password', 'cli-pass-123'], server.db);
    await runCli(['groups', 'create', 'cli-group'], server.db);
    await runCli(['groups', 'add-member', 'cli-group', 'cli-user'], server.db);
    await runCli(['groups', 'set-permissions', 'cli-group', 'board-create'], server.db);
    const key = (await runCli(['api-keys', 'create', 'cli-user', '--name', 'deploy', '--scope', 'board-create'], server.db)) as {
      apiKey: string;
      id: string;
    };
    const session = await server.call('GET', '/api/auth/session', { key: key.apiKey });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ username: 'cli-user', permissions: ['board-create'] });
    const keys = (await runCli(['api-keys', 'list', 'cli-user'], server.db)) as { id: string; name: string }[];
    expect(keys.map((k) => k.name)).toEqual(['deploy']);
    await runCli(['api-keys', 'delete', key.id], server.db);
    expect((await server.call('GET', '/api/auth/session', { key: key.apiKey })).status).toBe(401);
  });

  it('sets a password that logs in', async () => {
    await runCli(['users', 'create', 'pw-user'], server.db);
    await runCli(['users', 'set-password', 'pw-user', '--password', 'brand-new-pass'], server.db);
    const login = await server.call('POST', '/api/auth/login', { key: null, body: { username: 'pw-user', password: 'brand-new-pass' } });
    expect(login.status).toBe(200);
  });

  it('refuses unknown commands, users and permissions', async () => {
    await expect(runCli(['frobnicate'], server.db)).rejects.toThrow('Unknown command: frobnicate');
    await expect(runCli(['api-keys', 'create', 'nobody'], server.db)).rejects.toThrow('No user named "nobody"');
    await expect(runCli(['groups', 'set-permissions', 'cli-group', 'root'], server.db)).rejects.toThrow('Unknown permissions: root');
  });
});
