import { runCli } from '../../src/cli/main';
import { describeError } from '../../src/cli/errors';
import { ApiError } from '../../src/core/errors';
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
    await runCli(['users', 'create', 'pw-user', '--password', 'first-pass-1'], server.db);
    await runCli(['users', 'set-password', 'pw-user', '--password', 'brand-new-pass'], server.db);
    const login = await server.call('POST', '/api/auth/login', { key: null, body: { username: 'pw-user', password: 'brand-new-pass' } });
    expect(login.status).toBe(200);
  });

  it('refuses unknown commands, users and permissions', async () => {
    await expect(runCli(['frobnicate'], server.db)).rejects.toThrow('Unknown command: frobnicate');
    await expect(runCli(['api-keys', 'create', 'nobody'], server.db)).rejects.toThrow('No user named "nobody"');
    await expect(runCli(['groups', 'set-permissions', 'cli-group', 'root'], server.db)).rejects.toThrow('Unknown permissions: root');
  });

  /** The error a command failed with (it must fail). */
  async function refusal(argv: string[]): Promise<ApiError> {
    const error = await runCli(argv, server.db).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }

  const issuePaths = (error: ApiError) => (error.data.issues as { instancePath: string }[]).map((issue) => issue.instancePath);

  it("CLI-3: users create refuses what POST /api/users refuses ('evil;rm', a short password), with the route's 400, and creates nothing", async () => {
    const error = await refusal(['users', 'create', 'evil;rm', '--password', 'x']);
    expect({ status: error.status, code: error.code, message: error.message }).toEqual({ status: 400, code: 'BAD_REQUEST', message: 'Input validation failed' });
    expect(issuePaths(error).sort()).toEqual(['/requestBody/password', '/requestBody/username']);
    expect(describeError(error)).toBe(
      'Input validation failed: username must match pattern "^[A-Za-z0-9_.@-]+$"; password must NOT have fewer than 8 characters (BAD_REQUEST)',
    );
    expect(await server.db('users').where({ username: 'evil;rm' }).first()).toBeUndefined();
    expect(issuePaths(await refusal(['users', 'create', 'mail-user', '--password', 'long-enough-1', '--email', 'not-an-email']))).toEqual(['/requestBody/email']);
    expect(await server.db('users').where({ username: 'mail-user' }).first()).toBeUndefined();
    await expect(runCli(['users', 'create', 'no-pass-user'], server.db)).rejects.toThrow('Missing --password');
  });

  it('CLI-3: set-password, groups create, groups set-permissions and api-keys create refuse what their REST operations refuse; nothing written', async () => {
    await runCli(['users', 'create', 'rules-user', '--password', 'rules-pass-1'], server.db);
    const before = (await server.db('users').where({ username: 'rules-user' }).first('passwordHash')).passwordHash;
    expect(issuePaths(await refusal(['users', 'set-password', 'rules-user', '--password', 'short']))).toEqual(['/password']);
    expect((await server.db('users').where({ username: 'rules-user' }).first('passwordHash')).passwordHash).toBe(before);

    expect(issuePaths(await refusal(['groups', 'create', 'bad;group']))).toEqual(['/requestBody/name']);
    expect(await server.db('groups').where({ name: 'bad;group' }).first()).toBeUndefined();

    await runCli(['groups', 'create', 'rules-group'], server.db);
    const tooMany = ['board-create', 'board-create'];
    expect(issuePaths(await refusal(['groups', 'set-permissions', 'rules-group', ...tooMany]))).toEqual(['/requestBody/permissions']);

    const keys = async () => Number((await server.db('api_keys').count('* as n'))[0].n);
    const count = await keys();
    expect(issuePaths(await refusal(['api-keys', 'create', 'rules-user', '--expires-at', 'tomorrow']))).toEqual(['/requestBody/expiresAt']);
    expect(issuePaths(await refusal(['api-keys', 'create', 'rules-user', '--name', 'line\nbreak']))).toEqual(['/requestBody/name']);
    expect(await keys()).toBe(count);
  });
});
