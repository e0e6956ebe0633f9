/**
 * Sign-in through an OpenID provider over HTTP (OIDC-*): the real provider of test/support/oidcProvider.ts (the
 * certified `oidc-provider`, in its own process) and the real app. The fixture drives the provider's side (its login
 * form, consent) with the state, nonce and PKCE challenge Tessera put in its redirect, and hands back the code; the
 * test then calls Tessera's callback as the browser would, with the browser's sign-in cookie. The whole flow in
 * Chromium is test/pages/oidc-signin.test.ts.
 */
import { startOidcProvider, type OidcClient, type OidcProviderFixture } from '../support/oidcProvider';
import { startTestServer, type TestServer } from '../support/server';
import { expectError } from '../support/expect';
import { safeReturnPath } from '../../src/identity/oidc/rules';

const baseUrl = 'http://tessera.test';
const redirectUri = `${baseUrl}/api/auth/callback/oidc`;

function oidcEnv(provider: OidcProviderFixture, client: OidcClient, extra: Record<string, string> = {}): Record<string, string> {
  return {
    AUTH_PROVIDERS: 'credentials,oidc',
    AUTH_OIDC_ISSUER: provider.issuer,
    AUTH_OIDC_CLIENT_ID: client.clientId,
    AUTH_OIDC_CLIENT_SECRET: client.clientSecret,
    AUTH_OIDC_CLIENT_NAME: 'Fixture ID',
    AUTH_OIDC_ADMIN_GROUP: 'tessera-admins',
    BASE_URL: baseUrl,
    ...extra,
  };
}

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .find((pair) => pair.startsWith(`${name}=`) && pair.length > name.length + 1) ?? null;

interface Started {
  status: number;
  location: URL;
  cookie: string;
  setCookie: string;
}

// The sign-in's redirects go to the server itself (directUrl): the contract run's Prism proxy follows redirects, so
// through it a test would see where a 302 leads, not the 302. A test below takes both routes through the proxy.
async function startSignIn(server: TestServer, returnTo?: string): Promise<Started> {
  const query = returnTo === undefined ? '' : `?returnTo=${encodeURIComponent(returnTo)}`;
  const response = await fetch(`${server.directUrl}/api/auth/signin/oidc${query}`, { redirect: 'manual' });
  const setCookie = response.headers.getSetCookie().join('\n');
  return { status: response.status, location: new URL(response.headers.get('location') ?? 'about:blank'), cookie: cookieOf(response, 'tessera_oidc') ?? '', setCookie };
}

async function callback(server: TestServer, cookie: string | null, query: Record<string, string>) {
  const response = await fetch(`${server.directUrl}/api/auth/callback/oidc?${new URLSearchParams(query)}`, {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: response.status, headers: response.headers, body, session: cookieOf(response, 'tessera_session') };
}

/** The whole flow for `login` (the subject): start, the provider's side, the callback. */
async function signIn(server: TestServer, provider: OidcProviderFixture, client: OidcClient, login: string, returnTo?: string) {
  const started = await startSignIn(server, returnTo);
  expect(started.status).toBe(302);
  const { code, state } = await provider.authorize({
    client,
    login,
    state: started.location.searchParams.get('state')!,
    nonce: started.location.searchParams.get('nonce')!,
    codeChallenge: started.location.searchParams.get('code_challenge')!,
  });
  return { started, code, state, answer: await callback(server, started.cookie, { code, state, iss: provider.issuer }) };
}

async function whoAmI(server: TestServer, sessionCookie: string) {
  const response = await fetch(`${server.url}/api/auth/session`, { headers: { cookie: sessionCookie } });
  return { status: response.status, body: (await response.json()) as { username: string; userId: string; permissions: string[] } };
}

async function groupsOf(server: TestServer, userId: string): Promise<string[]> {
  const groups = await server.call('GET', '/api/groups');
  return (groups.body as { name: string; memberIds: string[] }[]).filter((group) => group.memberIds.includes(userId)).map((group) => group.name).sort();
}

describe('OIDC: sign-in through an OpenID provider (HTTP)', () => {
  let provider: OidcProviderFixture;
  let client: OidcClient;
  let server: TestServer;

  beforeAll(async () => {
    provider = await startOidcProvider();
    client = await provider.registerClient({ redirectUris: [redirectUri], postLogoutRedirectUris: [`${baseUrl}/`] });
    server = await startTestServer(oidcEnv(provider, client));
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await provider?.stop();
  });

  it('OIDC-3, OIDC-4: a malformed start or return is a 400 BAD_REQUEST (also through the contract proxy, which sees no redirect)', async () => {
    const start = await server.call('GET', `/api/auth/signin/oidc?returnTo=/${'x'.repeat(2000)}`, { key: null });
    expect({ status: start.status, code: start.body?.code }).toEqual({ status: 400, code: 'BAD_REQUEST' });
    const finish = await server.call('GET', `/api/auth/callback/oidc?state=${'x'.repeat(513)}`, { key: null });
    expect({ status: finish.status, code: finish.body?.code }).toEqual({ status: 400, code: 'BAD_REQUEST' });
  });

  it('OIDC-6: the providers route names the button and keeps password sign-in', async () => {
    const answer = await server.call('GET', '/api/auth/providers', { key: null });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ credentials: true, oidc: { name: 'Fixture ID', autoLogin: false, signInPath: '/api/auth/signin/oidc' } });
  });

  it('OIDC-3, OIDC-20: the start redirects to the provider with PKCE, state and nonce, and sets a short-lived HttpOnly Lax cookie', async () => {
    const started = await startSignIn(server, '/boards/home');
    expect(started.status).toBe(302);
    expect(started.location.origin + started.location.pathname).toBe(`${provider.issuer}/auth`);
    const params = started.location.searchParams;
    expect(params.get('client_id')).toBe(client.clientId);
    expect(params.get('redirect_uri')).toBe(redirectUri);
    expect(params.get('response_type')).toBe('code');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(params.get('nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(params.get('scope')).toBe('openid email profile groups');
    expect(started.setCookie).toMatch(/^tessera_oidc=[^;]+; Path=\/api\/auth\/callback; HttpOnly; SameSite=Lax; Max-Age=600$/);
  });

  it('OIDC-11, OIDC-14, OIDC-16: a first sign-in creates the user with its groups, sets the session, returns to the path and is audited', async () => {
    await provider.setAccount('sub-carol', { email: 'carol@example.com', email_verified: true, preferred_username: 'carol', groups: ['family', 'media'] });
    const { answer } = await signIn(server, provider, client, 'sub-carol', '/boards/kitchen?x=1');
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/boards/kitchen?x=1');
    expect(answer.headers.getSetCookie().join('\n')).toMatch(/tessera_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax/);
    expect(answer.headers.getSetCookie().join('\n')).toMatch(/tessera_oidc=; Path=\/api\/auth\/callback; HttpOnly; SameSite=Lax; Max-Age=0/);
    const me = await whoAmI(server, answer.session!);
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('carol');
    expect(me.body.permissions).not.toContain('admin');
    expect(await groupsOf(server, me.body.userId)).toEqual(['family', 'media']);
    const audit = await server.call('GET', `/api/audit?action=auth.login&target=${me.body.userId}`);
    expect(audit.body[0]).toMatchObject({ outcome: 'success', details: { method: 'oidc', subject: 'sub-carol', username: 'carol', account: 'created', groupsJoined: ['family', 'media'] } });
  });

  it('OIDC-10, OIDC-14: the next sign-in finds the user by subject (a renamed account too) and follows the claim both ways; local memberships stay', async () => {
    await provider.setAccount('sub-dave', { preferred_username: 'dave', groups: ['family'] });
    const first = await signIn(server, provider, client, 'sub-dave');
    const dave = (await whoAmI(server, first.answer.session!)).body;
    // An admin adds dave to a local group by hand.
    const local = await server.call('POST', '/api/groups', { body: { name: 'dave-local' } });
    expect((await server.call('POST', `/api/groups/${local.body.groupId}/members`, { body: { userId: dave.userId } })).status).toBe(204);
    // The provider renames the account and moves it from family to media.
    await provider.setAccount('sub-dave', { preferred_username: 'david', groups: ['media'] });
    const second = await signIn(server, provider, client, 'sub-dave');
    expect(second.answer.status).toBe(302);
    const again = (await whoAmI(server, second.answer.session!)).body;
    expect(again.userId).toBe(dave.userId);
    expect(again.username).toBe('dave');
    expect(await groupsOf(server, dave.userId)).toEqual(['dave-local', 'media']);
    // A claim with no groups ends every provider membership, never the local one.
    await provider.setAccount('sub-dave', { preferred_username: 'dave', groups: [] });
    await signIn(server, provider, client, 'sub-dave');
    expect(await groupsOf(server, dave.userId)).toEqual(['dave-local']);
  });

  it('OIDC-14: a claimed group the user is a local member of stays local (a later claim without it leaves it)', async () => {
    await provider.setAccount('sub-erin', { preferred_username: 'erin', groups: [] });
    const erin = (await whoAmI(server, (await signIn(server, provider, client, 'sub-erin')).answer.session!)).body;
    const group = await server.call('POST', '/api/groups', { body: { name: 'erin-both' } });
    await server.call('POST', `/api/groups/${group.body.groupId}/members`, { body: { userId: erin.userId } });
    await provider.setAccount('sub-erin', { preferred_username: 'erin', groups: ['erin-both'] });
    await signIn(server, provider, client, 'sub-erin');
    await provider.setAccount('sub-erin', { preferred_username: 'erin', groups: [] });
    await signIn(server, provider, client, 'sub-erin');
    expect(await groupsOf(server, erin.userId)).toEqual(['erin-both']);
  });

  it('OIDC-15: the admin group grants admin, and leaving it in the provider revokes it', async () => {
    await provider.setAccount('sub-fay', { preferred_username: 'fay', groups: ['tessera-admins'] });
    const first = await signIn(server, provider, client, 'sub-fay');
    expect((await whoAmI(server, first.answer.session!)).body.permissions).toContain('admin');
    await provider.setAccount('sub-fay', { preferred_username: 'fay', groups: ['family'] });
    const second = await signIn(server, provider, client, 'sub-fay');
    const me = await whoAmI(server, second.answer.session!);
    expect(me.body.permissions).not.toContain('admin');
    // The first session is the same user: its permissions are read on every request, so admin is gone there too.
    expect((await whoAmI(server, first.answer.session!)).body.permissions).not.toContain('admin');
  });

  it('OIDC-12: with linking off, a provider account whose name a local user has is refused with 409, no second user', async () => {
    await server.call('POST', '/api/users', { body: { username: 'gina', password: 'gina-password-1', email: 'gina@example.com' } });
    await provider.setAccount('sub-gina', { preferred_username: 'gina', email: 'gina@example.com', email_verified: true });
    const { answer } = await signIn(server, provider, client, 'sub-gina');
    expectError(answer, 409, 'CONFLICT', 'A local user named "gina" already exists; an admin can allow a first sign-in to take over the local user with AUTH_OIDC_LINK_EXISTING=email or username');
    expect(answer.session).toBeNull();
    const users = await server.call('GET', '/api/users');
    expect((users.body as { username: string }[]).filter((user) => user.username.toLowerCase() === 'gina')).toHaveLength(1);
    const audit = await server.call('GET', '/api/audit?action=auth.login&outcome=failure');
    expect(audit.body.some((entry: any) => entry.details.method === 'oidc' && entry.details.status === 409)).toBe(true);
  });

  it('OIDC-20: a wrong state is a 400 and burns the sign-in; a replayed callback is a 400; no cookie is a 400', async () => {
    await provider.setAccount('sub-hal', { preferred_username: 'hal' });
    const started = await startSignIn(server);
    const { code } = await provider.authorize({
      client,
      login: 'sub-hal',
      state: started.location.searchParams.get('state')!,
      nonce: started.location.searchParams.get('nonce')!,
      codeChallenge: started.location.searchParams.get('code_challenge')!,
    });
    const wrong = await callback(server, started.cookie, { code, state: 'not-the-state', iss: provider.issuer });
    expectError(wrong, 400, 'BAD_REQUEST', "The state of the provider's answer is not the one of this sign-in; start again");
    const again = await callback(server, started.cookie, { code, state: started.location.searchParams.get('state')!, iss: provider.issuer });
    expectError(again, 400, 'BAD_REQUEST', 'No sign-in is under way in this browser, or it expired or was finished already; start again');
    expectError(await callback(server, null, { code, state: 'x' }), 400, 'BAD_REQUEST', 'No sign-in is under way in this browser, or it expired or was finished already; start again');
  });

  it('OIDC-20: a successful callback replayed with the same cookie and code is a 400: the sign-in is single use', async () => {
    await provider.setAccount('sub-ida', { preferred_username: 'ida' });
    const { started, code, state, answer } = await signIn(server, provider, client, 'sub-ida');
    expect(answer.status).toBe(302);
    const replay = await callback(server, started.cookie, { code, state, iss: provider.issuer });
    expectError(replay, 400, 'BAD_REQUEST', 'No sign-in is under way in this browser, or it expired or was finished already; start again');
  });

  it('OIDC-5: a code redeemed by another sign-in (its PKCE verifier and nonce) is refused with 401', async () => {
    await provider.setAccount('sub-jo', { preferred_username: 'jo' });
    const victim = await startSignIn(server);
    const attacker = await startSignIn(server);
    // The provider issued the code for the attacker's sign-in; the victim's browser brings it back with its own cookie.
    const { code } = await provider.authorize({
      client,
      login: 'sub-jo',
      state: victim.location.searchParams.get('state')!,
      nonce: attacker.location.searchParams.get('nonce')!,
      codeChallenge: attacker.location.searchParams.get('code_challenge')!,
    });
    const answer = await callback(server, victim.cookie, { code, state: victim.location.searchParams.get('state')!, iss: provider.issuer });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('UNAUTHORIZED');
    expect(answer.body.message).toMatch(/^Sign-in failed: /);
    expect(answer.session).toBeNull();
  });

  it('OIDC-5: an ID token whose nonce is not the sign-in\'s is refused with 401', async () => {
    await provider.setAccount('sub-kim', { preferred_username: 'kim' });
    const started = await startSignIn(server);
    const { code, state } = await provider.authorize({
      client,
      login: 'sub-kim',
      state: started.location.searchParams.get('state')!,
      nonce: 'a-nonce-of-another-sign-in-000000',
      codeChallenge: started.location.searchParams.get('code_challenge')!,
    });
    const answer = await callback(server, started.cookie, { code, state, iss: provider.issuer });
    expect(answer.status).toBe(401);
    expect(answer.body.message).toMatch(/^Sign-in failed: the provider's answer did not validate/);
  });

  it('OIDC-5: the provider\'s refusal (error=access_denied) is a 401 naming it', async () => {
    const started = await startSignIn(server);
    const answer = await callback(server, started.cookie, { error: 'access_denied', state: started.location.searchParams.get('state')!, iss: provider.issuer });
    expectError(answer, 401, 'UNAUTHORIZED', 'Sign-in failed: the provider refused the sign-in (access_denied)');
  });

  it.each([
    ['https://evil.example/'],
    ['//evil.example/path'],
    ['/\\evil.example'],
    ['\\\\evil.example'],
    ['javascript:alert(1)'],
    ['boards/home'],
    ['/ok\r\nSet-Cookie: x=1'],
  ])('OIDC-21: the return path %p is not followed: the sign-in returns to /', async (returnTo) => {
    expect(safeReturnPath(returnTo)).toBe('/');
    await provider.setAccount('sub-lee', { preferred_username: 'lee' });
    const { answer } = await signIn(server, provider, client, 'sub-lee', returnTo);
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/');
  });

  it('OIDC-21: a path on this origin is kept with its query and fragment', () => {
    expect(safeReturnPath('/boards/a%20b?x=1#top')).toBe('/boards/a%20b?x=1#top');
    expect(safeReturnPath(undefined)).toBe('/');
  });

  it('OIDC-17: logging out of a provider session answers the provider\'s logout URL with the ID token hint; a password session answers 204', async () => {
    await provider.setAccount('sub-max', { preferred_username: 'max' });
    const { answer } = await signIn(server, provider, client, 'sub-max');
    const logout = await fetch(`${server.url}/api/auth/logout`, { method: 'POST', headers: { cookie: answer.session! } });
    expect(logout.status).toBe(200);
    const endSession = new URL(((await logout.json()) as { endSessionUrl: string }).endSessionUrl);
    expect(endSession.origin).toBe(provider.issuer);
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${baseUrl}/`);
    expect(endSession.searchParams.get('id_token_hint')).toMatch(/^ey/);
    expect((await whoAmI(server, answer.session!)).status).toBe(401);
    // The provider accepts it: its logout page (a confirmation form) answers 200.
    expect((await fetch(endSession, { redirect: 'manual' })).status).toBe(200);
  });
});

describe('OIDC: linking and AUTH_PROVIDERS=oidc', () => {
  let provider: OidcProviderFixture;
  let client: OidcClient;
  let server: TestServer;

  beforeAll(async () => {
    provider = await startOidcProvider();
    client = await provider.registerClient({ redirectUris: [redirectUri] });
    server = await startTestServer(oidcEnv(provider, client, { AUTH_PROVIDERS: 'oidc', AUTH_OIDC_LINK_EXISTING: 'email', AUTH_OIDC_AUTO_LOGIN: 'true' }));
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await provider?.stop();
  });

  it('OIDC-8: a password login is refused with 403 naming the reason; API keys keep working', async () => {
    await server.call('POST', '/api/users', { body: { username: 'nina', password: 'nina-password-1', email: 'Nina@Example.com' } });
    const answer = await server.call('POST', '/api/auth/login', { key: null, body: { username: 'nina', password: 'nina-password-1' } });
    expectError(answer, 403, 'FORBIDDEN', 'Password sign-in is turned off on this instance (AUTH_PROVIDERS=oidc); sign in with Fixture ID');
    expect((await server.call('GET', '/api/auth/session')).status).toBe(200);
    expect((await server.call('GET', '/api/auth/providers', { key: null })).body).toEqual({ credentials: false, oidc: { name: 'Fixture ID', autoLogin: true, signInPath: '/api/auth/signin/oidc' } });
  });

  it('OIDC-12: with AUTH_OIDC_LINK_EXISTING=email a verified e-mail address links the local user (no second user)', async () => {
    await provider.setAccount('sub-nina', { preferred_username: 'nina-at-idp', email: 'nina@example.com', email_verified: true, groups: ['family'] });
    const { answer } = await signIn(server, provider, client, 'sub-nina');
    expect(answer.status).toBe(302);
    const me = (await whoAmI(server, answer.session!)).body;
    expect(me.username).toBe('nina');
    const users = (await server.call('GET', '/api/users')).body as { username: string }[];
    expect(users.filter((user) => user.username.startsWith('nina'))).toHaveLength(1);
  });

  it('OIDC-12: an unverified e-mail address never links: the name clash is refused with 409', async () => {
    await server.call('POST', '/api/users', { body: { username: 'omar', password: 'omar-password-1', email: 'omar@example.com' } });
    await provider.setAccount('sub-omar', { preferred_username: 'omar', email: 'omar@example.com', email_verified: false });
    const { answer } = await signIn(server, provider, client, 'sub-omar');
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('CONFLICT');
  });
});

describe('OIDC: expiry and outages', () => {
  let provider: OidcProviderFixture;
  let client: OidcClient;
  let server: TestServer;

  beforeAll(async () => {
    provider = await startOidcProvider({ idTokenTtl: 1 });
    client = await provider.registerClient({ redirectUris: [redirectUri] });
    server = await startTestServer(oidcEnv(provider, client));
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await provider?.stop();
  });

  it('OIDC-23: an ID token expired beyond the clock tolerance is refused with 401', async () => {
    await provider.setAccount('sub-pia', { preferred_username: 'pia' });
    const started = await startSignIn(server);
    const { code, state } = await provider.authorize({
      client,
      login: 'sub-pia',
      state: started.location.searchParams.get('state')!,
      nonce: started.location.searchParams.get('nonce')!,
      codeChallenge: started.location.searchParams.get('code_challenge')!,
    });
    // The ID token is minted when the code is redeemed and lives 1 s (idTokenTtl); Tessera's clock is set 10 s ahead,
    // beyond the 5 s tolerance, instead of waiting: the validation reads Date.now(). (Not further: the embedded
    // database's clock moves with it, and the sign-in must still be live, OIDC-20.)
    const realNow = Date.now;
    const spy = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 10_000);
    try {
      const answer = await callback(server, started.cookie, { code, state, iss: provider.issuer });
      expect(answer.status).toBe(401);
      expect(answer.body.message).toBe("Sign-in failed: the provider's answer did not validate (JWT timestamp claim value failed validation)");
    } finally {
      spy.mockRestore();
    }
  });

  it('OIDC-24: the provider down answers 502 with a clear message (the callback and a fresh start), never a 500', async () => {
    await provider.setAccount('sub-quinn', { preferred_username: 'quinn' });
    const started = await startSignIn(server);
    const { code, state } = await provider.authorize({
      client,
      login: 'sub-quinn',
      state: started.location.searchParams.get('state')!,
      nonce: started.location.searchParams.get('nonce')!,
      codeChallenge: started.location.searchParams.get('code_challenge')!,
    });
    await provider.stop();
    const message = `The sign-in provider (${provider.issuer}) cannot be reached or answered in a way Tessera cannot use; try again later`;
    expectError(await callback(server, started.cookie, { code, state, iss: provider.issuer }), 502, 'BAD_GATEWAY', message);
    // Another instance (a server whose process never read the discovery document) cannot start a sign-in either.
    const other = await startTestServer(oidcEnv(provider, { ...client, clientId: `${client.clientId}-other` }));
    try {
      const answer = await fetch(`${other.directUrl}/api/auth/signin/oidc`, { redirect: 'manual' });
      expect(answer.status).toBe(502);
      expect(await answer.json()).toEqual({ message, code: 'BAD_GATEWAY', data: { issuer: provider.issuer } });
    } finally {
      await other.stop();
    }
  });
});
