/**
 * A real OpenID provider for the tests: test/support/oidc/provider.mjs (the certified `oidc-provider` package) in its
 * own process. `startOidcProvider()` starts it; `afterAll(() => provider.stop())`.
 *
 * - `registerClient` registers a client by dynamic registration (RFC 7591), so the redirect URI can name a Tessera
 *   started after the provider.
 * - `setAccount` sets the claims the provider gives a subject (email, groups, …); the login form accepts any login
 *   (the subject) and any password; consent is given without a form.
 * - `authorize` drives the authorization-code flow with PKCE over plain HTTP (no browser) and returns the code and
 *   state the provider sent to the redirect URI; `obtainTokens` also redeems the code: for MCP's OAuth, pass
 *   `resource` to get a JWT access token whose audience is that resource.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface OidcClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface Claims {
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
  groups?: string[];
}

export interface AuthorizeOptions {
  client: OidcClient;
  /** The subject: the development login form takes any login. */
  login: string;
  scope?: string;
  /** RFC 8707 resource indicator: the access token's audience. */
  resource?: string;
}

export interface Tokens {
  access_token: string;
  id_token?: string;
  token_type: string;
  expires_in: number;
  scope?: string;
}

export interface OidcProviderFixture {
  issuer: string;
  registerClient(options: { redirectUris: string[]; postLogoutRedirectUris?: string[] }): Promise<OidcClient>;
  setAccount(subject: string, claims: Claims): Promise<void>;
  authorize(options: AuthorizeOptions & { state?: string; nonce?: string; codeChallenge?: string }): Promise<{ code: string; state: string }>;
  obtainTokens(options: AuthorizeOptions): Promise<Tokens>;
  stop(): Promise<void>;
}

export interface OidcProviderOptions {
  accessTokenTtl?: number;
  idTokenTtl?: number;
}

const base64url = (buffer: Buffer) => buffer.toString('base64url');

/** Cookies by name, as a browser would keep them for one host (paths are not told apart: the flow needs none). */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<OidcProviderFixture> {
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'oidc', 'provider.mjs')], {
    env: { ...process.env, OIDC_FIXTURE_OPTIONS: JSON.stringify(options), NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const issuer = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`the OpenID provider fixture exited (${code}): ${stderr}`)));
  });

  const registerClient: OidcProviderFixture['registerClient'] = async ({ redirectUris, postLogoutRedirectUris = [] }) => {
    const response = await fetch(`${issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: redirectUris,
        post_logout_redirect_uris: postLogoutRedirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    const body = (await response.json()) as { client_id: string; client_secret: string; error_description?: string };
    if (response.status !== 201) throw new Error(`client registration failed: ${response.status} ${body.error_description}`);
    return { clientId: body.client_id, clientSecret: body.client_secret, redirectUri: redirectUris[0] };
  };

  const setAccount: OidcProviderFixture['setAccount'] = async (subject, claims) => {
    const response = await fetch(`${issuer}/__test/accounts/${encodeURIComponent(subject)}`, {
      method: 'PUT',
      body: JSON.stringify(claims),
    });
    if (response.status !== 204) throw new Error(`setAccount failed: ${response.status}`);
  };

  const authorize: OidcProviderFixture['authorize'] = async ({ client, login, scope = 'openid email profile groups', resource, state, nonce, codeChallenge }) => {
    const jar = new CookieJar();
    const request = async (url: string, init: RequestInit = {}) => {
      const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as object), cookie: jar.header() } });
      jar.take(response);
      return response;
    };
    const params = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: 'code',
      scope,
      state: state ?? base64url(randomBytes(16)),
      nonce: nonce ?? base64url(randomBytes(16)),
      code_challenge: codeChallenge ?? '',
      code_challenge_method: 'S256',
    });
    if (resource) params.set('resource', resource);
    let response = await request(`${issuer}/auth?${params}`);
    // Follow the provider's redirects; answer its login form once; stop at the client's redirect URI.
    for (let hops = 0; hops < 10; hops++) {
      const location = response.headers.get('location');
      if (response.status === 200) {
        const html = await response.text();
        const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
        if (!action || !html.includes('name="login"')) throw new Error(`unexpected page from the provider: ${html.replace(/<style>[\s\S]*<\/style>/, "").slice(0, 3000)}`);
        response = await request(new URL(action, issuer).href, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString(),
        });
        continue;
      }
      if (!location) throw new Error(`the provider answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
      const next = new URL(location, issuer);
      if (next.href.startsWith(client.redirectUri)) {
        const error = next.searchParams.get('error');
        if (error) throw new Error(`the provider refused: ${error} ${next.searchParams.get('error_description') ?? ''}`);
        return { code: next.searchParams.get('code')!, state: next.searchParams.get('state')! };
      }
      response = await request(next.href);
    }
    throw new Error('too many redirects in the authorization flow');
  };

  const obtainTokens: OidcProviderFixture['obtainTokens'] = async (options) => {
    const verifier = base64url(randomBytes(32));
    const challenge = base64url(createHash('sha256').update(verifier).digest());
    const { code } = await authorize({ ...options, codeChallenge: challenge });
    const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: options.client.redirectUri, code_verifier: verifier });
    if (options.resource) body.set('resource', options.resource);
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(options.client.clientId)}:${encodeURIComponent(options.client.clientSecret)}`).toString('base64')}`,
      },
      body: body.toString(),
    });
    const tokens = (await response.json()) as Tokens & { error_description?: string };
    if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${tokens.error_description}`);
    return tokens;
  };

  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });

  return { issuer, registerClient, setAccount, authorize, obtainTokens, stop };
}
