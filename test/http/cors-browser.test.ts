/**
 * CORS-2..5 in Chromium: a page of a second origin, served by the test, calls the API with and without credentials;
 * a page of an origin not listed cannot read any answer, and its simple writes do nothing.
 */
import type { Page } from 'playwright-core';
import { createActor } from '../support/actors';
import { launchBrowser, TestBrowser } from '../support/browser';
import { startHttpFixture, HttpFixture } from '../support/httpFixture';
import { startTestServer, TestServer } from '../support/server';
import { unique } from '../support/unique';

let server: TestServer;
let browser: TestBrowser | undefined;
/** The listed origin's page and an unlisted one's, on other ports of 127.0.0.1 (another origin, the same site). */
let app: HttpFixture;
let other: HttpFixture;
const blank = { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!doctype html><title>client</title>' };

beforeAll(async () => {
  app = await startHttpFixture({ '/': blank });
  other = await startHttpFixture({ '/': blank });
  server = await startTestServer({ CORS_ORIGINS: app.url });
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await app?.close();
  await other?.close();
});

async function pageOf(origin: HttpFixture): Promise<Page> {
  const page = await browser!.context.newPage();
  await page.goto(`${origin.url}/`);
  return page;
}

/** fetch in the page: status, chosen headers and body, or the browser's refusal. */
type Fetched = { status: number; headers: Record<string, string | null>; body: any } | { refused: string };
async function fetchIn(page: Page, url: string, init: Record<string, unknown>, headerNames: string[] = []): Promise<Fetched> {
  return page.evaluate(
    async ({ url, init, headerNames }) => {
      try {
        const response = await fetch(url, init as RequestInit);
        const text = await response.text();
        const headers = Object.fromEntries(headerNames.map((name) => [name, response.headers.get(name)]));
        return { status: response.status, headers, body: text ? JSON.parse(text) : null };
      } catch (error) {
        return { refused: String(error) };
      }
    },
    { url, init, headerNames },
  );
}

const json = (body: unknown, headers: Record<string, string> = {}) => ({ headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('CORS in Chromium', () => {
  it('CORS-2..5: a listed origin signs in with credentials, creates a board with an Idempotency-Key and reads the exposed headers', async () => {
    const actor = await createActor(server, { permissions: ['board-create'], password: 'browser-pass-1' });
    const page = await pageOf(app);
    const api = server.directUrl;
    const login = await fetchIn(page, `${api}/api/auth/login`, { method: 'POST', credentials: 'include', ...json({ username: actor.username, password: 'browser-pass-1' }) });
    expect(login).toMatchObject({ status: 200 });
    const session = await fetchIn(page, `${api}/api/auth/session`, { credentials: 'include' }, ['ratelimit']);
    expect(session).toMatchObject({ status: 200, body: { userId: actor.userId, authMethod: 'session' } });
    expect((session as { headers: Record<string, string | null> }).headers.ratelimit).toMatch(/^"reads";r=\d+;t=\d+$/);

    const name = unique('browser');
    const create = () =>
      fetchIn(page, `${api}/api/boards`, { method: 'POST', credentials: 'include', ...json({ name, columnCount: 12, isPublic: false }, { 'Idempotency-Key': `"${name}"` }) }, [
        'location',
        'idempotent-replayed',
      ]);
    const created = await create();
    expect(created).toMatchObject({ status: 201, headers: { location: expect.stringMatching(/^\/api\/boards\//), 'idempotent-replayed': null } });
    const replayed = await create();
    expect(replayed).toEqual({ ...created, headers: { ...(created as { headers: object }).headers, 'idempotent-replayed': 'true' } });

    // A simple request (a POST without Content-Type needs no preflight) is refused even from the listed origin; the
    // page may read the refusal, and the session stands.
    const simple = await fetchIn(page, `${api}/api/auth/logout`, { method: 'POST', credentials: 'include' });
    expect(simple).toMatchObject({ status: 403, body: { message: 'Cross-site request refused: a write from another origin must send Content-Type: application/json' } });
    expect(await fetchIn(page, `${api}/api/auth/session`, { credentials: 'include' })).toMatchObject({ status: 200 });
    await page.close();
  });

  it('CORS-2, CORS-4: a listed origin\'s fetch without credentials, with an API key, reads the ETag', async () => {
    const board = await server.call('POST', '/api/boards', { body: { name: unique('browser'), columnCount: 12, isPublic: false } });
    const page = await pageOf(app);
    const read = await fetchIn(page, `${server.directUrl}/api/boards/${board.body.boardId}`, { credentials: 'omit', headers: { ApiKey: server.adminKey } }, ['etag']);
    expect(read).toMatchObject({ status: 200, headers: { etag: expect.stringMatching(/^"/) }, body: { id: board.body.boardId } });
    const anonymous = await fetchIn(page, `${server.directUrl}/api/info`, { credentials: 'omit' });
    expect(anonymous).toMatchObject({ status: 200 });
    await page.close();
  });

  it('CORS-2, CORS-5: an unlisted origin reads no answer, and its simple cross-origin writes create nothing', async () => {
    const actor = await createActor(server, { permissions: ['board-create'], password: 'browser-pass-2' });
    // Signed in on the listed origin: the unlisted page's requests carry the same cookie (same site).
    const signIn = await pageOf(app);
    expect(await fetchIn(signIn, `${server.directUrl}/api/auth/login`, { method: 'POST', credentials: 'include', ...json({ username: actor.username, password: 'browser-pass-2' }) })).toMatchObject({
      status: 200,
    });
    await signIn.close();
    const page = await pageOf(other);
    const api = server.directUrl;
    for (const credentials of ['include', 'omit']) {
      expect(await fetchIn(page, `${api}/api/info`, { credentials })).toEqual({ refused: expect.stringContaining('Failed to fetch') });
    }
    // A JSON write needs a preflight, which the unlisted origin does not pass: never sent.
    const name = unique('evil');
    expect(await fetchIn(page, `${api}/api/boards`, { method: 'POST', credentials: 'include', ...json({ name, columnCount: 12, isPublic: false }) })).toEqual({
      refused: expect.stringContaining('Failed to fetch'),
    });
    // Simple writes are sent (no-cors: the page cannot read the answer) and refused by the server (SEC-5).
    await fetchIn(page, `${api}/api/boards`, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ name, columnCount: 12, isPublic: false }) });
    await fetchIn(page, `${api}/api/auth/logout`, { method: 'POST', mode: 'no-cors', credentials: 'include' });
    expect((await server.call('GET', `/api/boards/by-name/${name}`)).status).toBe(404);
    const back = await pageOf(app);
    expect(await fetchIn(back, `${api}/api/auth/session`, { credentials: 'include' })).toMatchObject({ status: 200, body: { userId: actor.userId } });
    await back.close();
    await page.close();
  });
});
