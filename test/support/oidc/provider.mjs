// A real OpenID provider for the tests (the certified `oidc-provider` package), run as its own process because the
// package is ESM-only. Started by test/support/oidcProvider.ts, which reads the issuer URL from the first line this
// prints. Options come as JSON in OIDC_FIXTURE_OPTIONS: { accessTokenTtl, idTokenTtl } in seconds.
//
// What it offers the tests: dynamic client registration (so a client can name the redirect URI of a Tessera started
// after the provider), the development login form (any login, any password: the login is the subject), consent given
// automatically, resource indicators with JWT access tokens whose audience is the requested resource (MCP's OAuth),
// RP-initiated logout, and test-only routes under /__test to set an account's claims.
import http from 'node:http';
import Provider from 'oidc-provider';

const options = JSON.parse(process.env.OIDC_FIXTURE_OPTIONS ?? '{}');
const accounts = new Map(); // subject -> claims besides `sub`

const server = http.createServer();
// Idle connections are closed by the client, never by the server while a request may be on its way: with Node's 5 s
// default, a test's first request after about 5 s of quiet met a socket the server was closing ("other side closed").
server.keepAliveTimeout = 60_000;
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const scopesOf = (value) => (typeof value === 'string' ? value.split(' ').filter(Boolean) : []);

const provider = new Provider(issuer, {
  clients: [],
  cookies: { keys: ['tessera-test-fixture-cookie-key'] },
  pkce: { required: () => true },
  scopes: ['openid', 'email', 'profile', 'groups', 'offline_access', 'mcp'],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'preferred_username'],
    groups: ['groups'],
  },
  ttl: {
    AccessToken: options.accessTokenTtl ?? 600,
    IdToken: options.idTokenTtl ?? 600,
  },
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    rpInitiatedLogout: { enabled: true },
    resourceIndicators: {
      enabled: true,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => ({
        scope: 'mcp',
        audience: resource,
        accessTokenFormat: 'jwt',
        accessTokenTTL: options.accessTokenTtl ?? 600,
      }),
    },
  },
  async findAccount(_ctx, sub) {
    return { accountId: sub, claims: async () => ({ sub, ...(accounts.get(sub) ?? {}) }) };
  },
  // Consent is given without a form: every scope, claim and resource the client asks for.
  async loadExistingGrant(ctx) {
    const { oidc } = ctx;
    const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId);
    const grant = grantId
      ? await oidc.provider.Grant.find(grantId)
      : new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
    grant.addOIDCScope(scopesOf(oidc.params.scope).join(' '));
    grant.addOIDCClaims(['sub', 'email', 'email_verified', 'name', 'preferred_username', 'groups']);
    const resources = [oidc.params.resource].flat().filter(Boolean);
    for (const resource of resources) grant.addResourceScope(resource, 'mcp');
    await grant.save();
    return grant;
  },
});
provider.on('server_error', (_ctx, error) => console.error('oidc fixture server_error', error));

const readJson = (req) =>
  new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      try { resolve(body ? JSON.parse(body) : {}); } catch (error) { reject(error); }
    });
  });

const callback = provider.callback();
server.on('request', async (req, res) => {
  const match = /^\/__test\/accounts\/([^/?]+)$/.exec(req.url ?? '');
  if (match && req.method === 'PUT') {
    accounts.set(decodeURIComponent(match[1]), await readJson(req));
    res.writeHead(204).end();
    return;
  }
  callback(req, res);
});

process.stdout.write(`${issuer}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
