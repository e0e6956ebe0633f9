/**
 * MCPAUTH-1..8: the MCP endpoint as an OAuth protected resource (MCP 2025-11-25 authorization, RFC 9728), against a
 * real OpenID provider (test/support/oidcProvider.ts: the certified oidc-provider package in its own process, giving
 * JWT access tokens whose audience is the requested resource) and the official MCP TypeScript SDK client.
 *
 * The resource identifier is a public URL (`http://tessera.test/api/mcp`), as behind a reverse proxy: the server
 * itself is reached at its own address, and the token's audience is the configured identifier, never the Host.
 */
import { createServer } from 'node:net';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SignJWT, importPKCS8 } from 'jose';
import { createActor, type Actor } from '../support/actors';
import { startOidcProvider, type OidcClient, type OidcProviderFixture } from '../support/oidcProvider';
import { startTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk } from '../boards-document/helpers';
import { loadConfig, ConfigError } from '../../src/config/config';

const resource = 'http://tessera.test/api/mcp';
const metadataUrl = 'http://tessera.test/.well-known/oauth-protected-resource/api/mcp';
const challenge = `Bearer resource_metadata="${metadataUrl}"`;
const rpcHeaders = { Accept: 'application/json, text/event-stream' };
const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

/** The SDK's client over Streamable HTTP with the token as `Authorization: Bearer` (MCPAUTH-5). */
async function connect(server: TestServer, token: string, path = '/api/mcp'): Promise<Client> {
  const client = new Client({ name: 'tessera-oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.directUrl}${path}`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** A JWT signed by a key of our own: the provider never issued it. */
async function forgedToken(claims: { iss: string; sub: string; aud: string }, kid = 'forged'): Promise<string> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = await importPKCS8(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256');
  return new SignJWT({ scope: 'mcp' })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
    .setIssuer(claims.iss)
    .setSubject(claims.sub)
    .setAudience(claims.aud)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key);
}

const redirectUris = ['http://127.0.0.1:9/callback'];

/**
 * MCPAUTH-7, OIDC-10: the provider account (subject = the actor's username) linked to the actor, as its first sign-in
 * through the provider links it (the page's sign-in is tested in test/identity/oidc.test.ts).
 */
async function linkIdentity(server: TestServer, provider: OidcProviderFixture, actor: Actor): Promise<void> {
  await server.db('oidc_identities').insert({ issuer: provider.issuer, subject: actor.username, user_id: actor.userId });
}

/** A provider subject linked to a Tessera user, with a private board of its own. */
async function userWithBoard(server: TestServer, provider: OidcProviderFixture, prefix: string): Promise<{ actor: Actor; boardId: string }> {
  const actor = await createActor(server, { name: unique(prefix), permissions: ['board-create'] });
  await provider.setAccount(actor.username, { preferred_username: actor.username });
  await linkIdentity(server, provider, actor);
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { key: actor.key, body: { name: unique(`${prefix}board-`), columnCount: 12, isPublic: false } }), 201);
  return { actor, boardId };
}

describe('MCPAUTH-1: configuration', () => {
  it('MCPAUTH-1: OAuth for MCP needs both the issuer and the resource URL; bad values stop the start', () => {
    expect(loadConfig({}).mcpOAuth).toBeNull();
    expect(loadConfig({ AUTH_OIDC_ISSUER: 'https://auth.example.com' }).mcpOAuth).toBeNull();
    expect(loadConfig({ AUTH_OIDC_ISSUER: 'https://auth.example.com', MCP_RESOURCE_URL: 'https://t.example.com/api/mcp' }).mcpOAuth).toEqual({
      issuer: 'https://auth.example.com',
      resource: 'https://t.example.com/api/mcp',
    });
    expect(() => loadConfig({ MCP_RESOURCE_URL: 'https://t.example.com/api/mcp' })).toThrow(ConfigError);
    expect(() => loadConfig({ MCP_RESOURCE_URL: 'https://t.example.com/api/mcp' })).toThrow('MCP_RESOURCE_URL needs AUTH_OIDC_ISSUER');
    for (const bad of ['https://t.example.com/', 'ftp://t.example.com/api/mcp', 'https://t.example.com/api/mcp#x', 'not a url']) {
      expect(() => loadConfig({ AUTH_OIDC_ISSUER: 'https://auth.example.com', MCP_RESOURCE_URL: bad })).toThrow(/^MCP_RESOURCE_URL must be/);
    }
    expect(() => loadConfig({ AUTH_OIDC_ISSUER: 'auth.example.com' })).toThrow(/^AUTH_OIDC_ISSUER must be/);
  });
});

describe('MCPAUTH: the MCP endpoint as an OAuth protected resource', () => {
  // Each test runs code flows at the provider and several requests: a loaded machine needs more than the default limit.
  jest.setTimeout(180_000);
  let provider: OidcProviderFixture;
  let other: OidcProviderFixture;
  let server: TestServer;
  let client: OidcClient;
  let otherClient: OidcClient;
  const sdkClients: Client[] = [];

  beforeAll(async () => {
    [provider, other] = await Promise.all([startOidcProvider(), startOidcProvider()]);
    server = await startTestServer({ MCP_MODE: 'read-only', AUTH_OIDC_ISSUER: provider.issuer, MCP_RESOURCE_URL: resource });
    [client, otherClient] = await Promise.all([provider.registerClient({ redirectUris }), other.registerClient({ redirectUris })]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(sdkClients.map((sdkClient) => sdkClient.close()));
    await server?.stop();
    await Promise.all([provider?.stop(), other?.stop()]);
  });
  const open = async (token: string, path?: string) => {
    const sdkClient = await connect(server, token, path);
    sdkClients.push(sdkClient);
    return sdkClient;
  };
  const token = async (login: string, options: { resource?: string; from?: 'provider' | 'other' } = {}) => {
    const from = options.from === 'other' ? other : provider;
    const tokens = await from.obtainTokens({ client: options.from === 'other' ? otherClient : client, login, scope: 'openid mcp', resource: options.resource ?? resource });
    return tokens.access_token;
  };

  it('MCPAUTH-2: the protected-resource metadata names the resource and the provider, at both well-known addresses', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
      const answer = await server.call('GET', path, { key: null });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ resource, authorization_servers: [provider.issuer], bearer_methods_supported: ['header'], resource_name: 'Tessera MCP' });
    }
    // Tessera is not an authorization server: that metadata is the provider's (MCP-5).
    expect((await server.call('GET', '/.well-known/oauth-authorization-server', { key: null })).status).toBe(404);
  });

  it('MCPAUTH-3: without credentials, 401 with the Bearer challenge naming the metadata, and the usual error body', async () => {
    for (const path of ['/api/mcp', '/api/mcp/mcp']) {
      const none = await server.call('POST', path, { key: null, body: listTools, headers: rpcHeaders });
      expect(none.status).toBe(401);
      expect(none.body).toEqual({ message: 'Authentication required', code: 'UNAUTHORIZED', data: {} });
      expect(none.headers.get('www-authenticate')).toBe(challenge);
    }
    // The rest of the API keeps its own challenge (AUTH-5).
    expect((await server.call('GET', '/api/users', { key: null })).headers.get('www-authenticate')).toBe('ApiKey realm="tessera", Bearer realm="tessera"');
  });

  it('MCPAUTH-5, MCPAUTH-7: a provider token through the MCP SDK client acts as its user: that user\'s private board, not another\'s', async () => {
    const alice = await userWithBoard(server, provider, 'alice');
    const bob = await userWithBoard(server, provider, 'bob');
    const mcp = await open(await token(alice.actor.username));
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['list_boards', 'get_board']));
    const listed = await mcp.callTool({ name: 'list_boards', arguments: {} });
    expect(listed.isError).toBeFalsy();
    const ids = (listed.structuredContent as { items: { id: string }[] }).items.map((board) => board.id);
    expect(ids).toContain(alice.boardId);
    expect(ids).not.toContain(bob.boardId);
    const hidden = await mcp.callTool({ name: 'get_board', arguments: { id: bob.boardId } });
    expect(hidden.isError).toBe(true);
    expect(hidden.structuredContent).toEqual({ message: 'Board not found', code: 'NOT_FOUND', data: {} });
    // Bob's token, at the other path of the endpoint, sees Bob's board.
    const bobs = await open(await token(bob.actor.username), '/api/mcp/mcp');
    const own = await bobs.callTool({ name: 'get_board', arguments: { id: bob.boardId } });
    expect(own.isError).toBeFalsy();
    expect((own.structuredContent as { id: string }).id).toBe(bob.boardId);
  });

  it('MCPAUTH-4: API keys keep working on the MCP endpoint; a provider token is no credential for REST', async () => {
    const alice = await userWithBoard(server, provider, 'keyed');
    const viaKey = new Client({ name: 'tessera-oauth-test', version: '1.0.0' });
    await viaKey.connect(new StreamableHTTPClientTransport(new URL(`${server.directUrl}/api/mcp`), { requestInit: { headers: { ApiKey: alice.actor.key } } }));
    sdkClients.push(viaKey);
    const listed = await viaKey.callTool({ name: 'list_boards', arguments: {} });
    expect((listed.structuredContent as { items: { id: string }[] }).items.map((board) => board.id)).toContain(alice.boardId);
    const rest = await server.call('GET', '/api/boards', { key: null, headers: { Authorization: `Bearer ${await token(alice.actor.username)}` } });
    expect(rest.status).toBe(401);
    expect(rest.body.code).toBe('UNAUTHORIZED');
    expect(rest.headers.get('www-authenticate')).toBe('ApiKey realm="tessera", Bearer realm="tessera"');
  });

  const refused = async (bearer: string, message: string) => {
    const answer = await server.call('POST', '/api/mcp', { key: null, body: listTools, headers: { ...rpcHeaders, Authorization: `Bearer ${bearer}` } });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ message, code: 'UNAUTHORIZED', data: {} });
    expect(answer.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="${message}", resource_metadata="${metadataUrl}"`);
  };

  it('MCPAUTH-6: a forged token (signed by another key) is 401 invalid_token with the challenge, whatever key id it names', async () => {
    const alice = await userWithBoard(server, provider, 'forged');
    await refused(await forgedToken({ iss: provider.issuer, sub: alice.actor.username, aud: resource }), 'Invalid access token');
    // The provider's own key id, another key's signature.
    const real = await token(alice.actor.username);
    const kid = JSON.parse(Buffer.from(real.split('.')[0], 'base64url').toString()).kid as string;
    await refused(await forgedToken({ iss: provider.issuer, sub: alice.actor.username, aud: resource }, kid), 'Invalid access token');
    // A real token with its payload changed keeps a signature that no longer matches.
    const [header, payload, signature] = real.split('.');
    const changed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'admin' })).toString('base64url');
    await refused(`${header}.${changed}.${signature}`, 'Invalid access token');
    await expect(connect(server, `${header}.${changed}.${signature}`)).rejects.toThrow();
  });

  it('MCPAUTH-6: a token of the provider for another resource is 401 (wrong audience)', async () => {
    const alice = await userWithBoard(server, provider, 'aud');
    await refused(await token(alice.actor.username, { resource: 'http://elsewhere.test/api/mcp' }), 'Access token not issued for this resource');
  });

  it('MCPAUTH-6: a token of another provider (a second issuer) is 401, even for this resource', async () => {
    const alice = await userWithBoard(server, provider, 'iss');
    await other.setAccount(alice.actor.username, {});
    await refused(await token(alice.actor.username, { from: 'other' }), 'Access token from another issuer');
  });

  it('MCPAUTH-7: a valid token whose subject is no Tessera user is 401', async () => {
    await refused(await token(unique('nobody')), 'No Tessera user for this access token');
  });

  it('MCPAUTH-7, OIDC-10: a subject equal to a username but never linked to that user is 401 (identity is not by name)', async () => {
    const unlinked = await createActor(server, { name: unique('unlinked') });
    await refused(await token(unlinked.username), 'No Tessera user for this access token');
  });
});

describe('MCPAUTH-6: an expired token', () => {
  let provider: OidcProviderFixture;
  let server: TestServer;
  beforeAll(async () => {
    provider = await startOidcProvider({ accessTokenTtl: 1 });
    server = await startTestServer({ MCP_MODE: 'read-only', AUTH_OIDC_ISSUER: provider.issuer, MCP_RESOURCE_URL: resource });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await provider?.stop();
  });

  it('MCPAUTH-6: a token past its expiry (and the bounded clock tolerance) is 401 Access token expired with the challenge', async () => {
    const actor = await createActor(server, { name: unique('expiring') });
    await linkIdentity(server, provider, actor);
    const client = await provider.registerClient({ redirectUris });
    const { access_token: accessToken } = await provider.obtainTokens({ client, login: actor.username, scope: 'openid mcp', resource });
    const exp = JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()).exp as number;
    expect(exp - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(1);
    const send = () => server.call('POST', '/api/mcp', { key: null, body: listTools, headers: { ...rpcHeaders, Authorization: `Bearer ${accessToken}` } });
    // Accepted within the tolerance (MCPAUTH-6: at most 30 s), then refused: polled, never timed.
    const deadline = Date.now() + 120_000;
    let answer = await send();
    while (answer.status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      answer = await send();
    }
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ message: 'Access token expired', code: 'UNAUTHORIZED', data: {} });
    expect(answer.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="Access token expired", resource_metadata="${metadataUrl}"`);
    // Never accepted past the tolerance.
    expect(Date.now() / 1000).toBeGreaterThan(exp);
  }, 180_000);
});

describe('MCPAUTH-8: the provider cannot be reached', () => {
  let server: TestServer;
  let deadIssuer: string;
  beforeAll(async () => {
    // An address where nothing listens: a port taken and given back.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: taken } = probe.address() as { port: number };
        probe.close(() => resolve(taken));
      });
    });
    deadIssuer = `http://127.0.0.1:${port}`;
    server = await startTestServer({ AUTH_OIDC_ISSUER: deadIssuer, MCP_RESOURCE_URL: resource });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('MCPAUTH-8: a token that needs the provider\'s keys is 503 with a clear message, never a 500; API keys still work', async () => {
    const actor = await createActor(server, { name: unique('offline') });
    const bearer = await forgedToken({ iss: deadIssuer, sub: actor.username, aud: resource });
    const answer = await server.call('POST', '/api/mcp', { key: null, body: listTools, headers: { ...rpcHeaders, Authorization: `Bearer ${bearer}` } });
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ message: 'The identity provider cannot be reached to check the access token; retry later', code: 'SERVICE_UNAVAILABLE', data: {} });
    // The metadata does not need the provider; API keys do not either.
    expect(expectOk(await server.call('GET', '/.well-known/oauth-protected-resource/api/mcp', { key: null })).authorization_servers).toEqual([deadIssuer]);
    const keyed = await server.call('POST', '/api/mcp', { key: null, body: listTools, headers: { ...rpcHeaders, ApiKey: actor.key } });
    expect(keyed.status).toBe(200);
    // Something that is not a JWT is an API key as before, a malformed one.
    const notJwt = await server.call('POST', '/api/mcp', { key: null, body: listTools, headers: { ...rpcHeaders, Authorization: `Bearer ${randomBytes(8).toString('hex')}` } });
    expect(notJwt.status).toBe(401);
    expect(notJwt.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="/);
  });
});
