/**
 * Sign-in through an OpenID provider in headless Debian chromium (OIDC-6, OIDC-14, OIDC-17): the real provider of
 * test/support/oidcProvider.ts (the certified `oidc-provider`, its own development login form) and the real app on a
 * port chosen before it starts, so that BASE_URL, the redirect URI registered at the provider, names it.
 */
import { createServer } from 'node:net';
import { launchBrowser, TestBrowser } from '../support/browser';
import { startOidcProvider, type OidcClient, type OidcProviderFixture } from '../support/oidcProvider';
import { startTestServer, type TestServer } from '../support/server';
import { createBoard } from '../boards-document/helpers';

/** A port free now (the server takes it a moment later; nothing else on the machine picks ports this way). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

let provider: OidcProviderFixture;
let launched: TestBrowser | undefined;
const servers: TestServer[] = [];

async function startTessera(extra: Record<string, string>): Promise<{ server: TestServer; base: string; client: OidcClient }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const client = await provider.registerClient({ redirectUris: [`${base}/api/auth/callback/oidc`], postLogoutRedirectUris: [`${base}/`] });
  const server = await startTestServer(
    {
      AUTH_PROVIDERS: 'credentials,oidc',
      AUTH_OIDC_ISSUER: provider.issuer,
      AUTH_OIDC_CLIENT_ID: client.clientId,
      AUTH_OIDC_CLIENT_SECRET: client.clientSecret,
      AUTH_OIDC_CLIENT_NAME: 'Fixture ID',
      BASE_URL: base,
      ...extra,
    },
    { port },
  );
  servers.push(server);
  return { server, base, client };
}

/** A private board that members of the group `family` may view. */
async function familyBoard(server: TestServer, name: string): Promise<void> {
  const group = await server.call('POST', '/api/groups', { body: { name: 'family' } });
  const { boardId } = await createBoard(server, { name, isPublic: false });
  const grant = await server.call('PUT', `/api/boards/${boardId}/permissions`, { body: { users: [], groups: [{ groupId: group.body.groupId, permission: 'view' }] } });
  expect(grant.status).toBe(200);
}

beforeAll(async () => {
  provider = await startOidcProvider();
  launched = await launchBrowser();
}, 120_000);
afterEach(async () => {
  for (const page of launched?.context.pages() ?? []) await page.close();
  await launched?.context.clearCookies();
});
afterAll(async () => {
  await launched?.close();
  for (const server of servers) await server.stop();
  await provider?.stop();
});

describe('OIDC in the browser', () => {
  it('OIDC-6, OIDC-14, OIDC-17: the button, the provider\'s login, back signed in with the groups applied, and sign-out at both ends', async () => {
    const { server, base } = await startTessera({});
    await familyBoard(server, 'family-room');
    await provider.setAccount('sub-rosa', { preferred_username: 'rosa', email: 'rosa@example.com', email_verified: true, groups: ['family'] });
    const page = await launched!.context.newPage();
    await page.goto(`${base}/boards/family-room`);
    // Anonymous: the board is not found, and the form offers the provider.
    await page.getByRole('heading', { name: 'Board not found' }).waitFor();
    await page.getByRole('link', { name: 'Sign in with Fixture ID' }).click();
    // The provider's own login form (the fixture's development form: any login is the subject).
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.locator('input[name=login]').fill('sub-rosa');
    await page.locator('input[name=password]').fill('anything');
    await page.locator('button[type=submit]').click();
    // Back on the board it started from, signed in, the board readable through the group the claim named.
    await page.waitForURL(`${base}/boards/family-room`);
    await page.locator('.topbar .who').filter({ hasText: 'rosa' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Board not found' }).count()).toBe(0);
    const cookies = await launched!.context.cookies(base);
    expect(cookies.find((cookie) => cookie.name === 'tessera_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    // Sign-out ends the Tessera session and goes to the provider's logout, which comes back to the instance.
    await page.locator('.topbar .signout').click();
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.locator('button[name=logout][value=yes]').click();
    await page.waitForURL(`${base}/`);
    expect((await launched!.context.cookies(base)).find((cookie) => cookie.name === 'tessera_session')).toBeUndefined();
    // The provider's session ended too: signing in again asks for the login.
    await page.goto(`${base}/boards/family-room`);
    await page.getByRole('link', { name: 'Sign in with Fixture ID' }).click();
    await page.locator('input[name=login]').waitFor();
  });

  it('OIDC-6: with AUTH_OIDC_AUTO_LOGIN a page that needs a signed-in user goes straight to the provider and back', async () => {
    const { server, base } = await startTessera({ AUTH_OIDC_AUTO_LOGIN: 'true', AUTH_PROVIDERS: 'oidc' });
    await familyBoard(server, 'family-auto');
    await provider.setAccount('sub-sam', { preferred_username: 'sam', groups: ['family'] });
    const page = await launched!.context.newPage();
    await page.goto(`${base}/boards/family-auto`);
    await page.locator('input[name=login]').waitFor();
    expect(page.url().startsWith(provider.issuer)).toBe(true);
    await page.locator('input[name=login]').fill('sub-sam');
    await page.locator('input[name=password]').fill('anything');
    await page.locator('button[type=submit]').click();
    await page.waitForURL(`${base}/boards/family-auto`);
    await page.locator('.topbar .who').filter({ hasText: 'sam' }).waitFor();
  });
});
