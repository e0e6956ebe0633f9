/**
 * AGENT-12: the MCP proposal preview page in headless Debian chromium (playwright-core, as the board page's test):
 * the proposed board with the changed tiles marked and the summary beside it, approving writes the change, and a
 * viewer who is not signed in gets the sign-in form. Every request off the instance is blocked and fails the test.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BrowserContext, Page } from 'playwright-core';
import { createActor, type Actor } from '../support/actors';
import { instanceOnlyPage, launchBrowser, TestBrowser } from '../support/browser';
import { startTestServer, TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

const artifacts = path.resolve(__dirname, '../../artifacts');

let server: TestServer;
let launched: TestBrowser | undefined;
let browser: BrowserContext | undefined;
let clients: Client[] = [];
beforeAll(async () => {
  launched = await launchBrowser();
  browser = launched.context;
  server = await startTestServer();
}, 120_000);
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
});
afterAll(async () => {
  await launched?.close();
  await server?.stop();
});

/** A signed-out page that may only talk to the instance. */
async function openPage(): Promise<{ page: Page; offsite: string[]; errors: string[] }> {
  return instanceOnlyPage(browser!, server.directUrl, 1280);
}

async function callTool(key: string, name: string, args: Record<string, unknown>) {
  const client = new Client({ name: 'preview-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.directUrl}/api/mcp`), { requestInit: { headers: { ApiKey: key } } }));
  clients.push(client);
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBeFalsy();
  return JSON.parse((result.content as any)[0].text);
}

/**
 * A private board holding two clocks; the agent (modify) proposes to keep one and move it, remove the other and add a
 * third; the reviewer (modify, with a password) reviews it.
 */
async function scene() {
  const name = unique('preview-');
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false } }), 201);
  const start = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const [layout, section] = [start.layouts[0].id, start.sections[0].id];
  const [kept, removed, added] = [unique('kept'), unique('gone'), unique('new')];
  expectOk(
    await server.call('PUT', `/api/boards/${boardId}`, {
      body: { sections: start.sections, items: [item(kept, [position(layout, section, 0, 0)]), item(removed, [position(layout, section, 4, 0)])], expectedVersion: start.version },
    }),
  );
  const board = expectOk(await server.call('GET', `/api/boards/${boardId}`));
  const agent = await createActor(server);
  const reviewer = await createActor(server, { password: 'preview-pass-1' });
  const grants = { users: [{ userId: agent.userId, permission: 'modify' }, { userId: reviewer.userId, permission: 'modify' }], groups: [] };
  expectOk(await server.call('PUT', `/api/boards/${boardId}/permissions`, { body: grants }));
  const items = [item(kept, [position(layout, section, 0, 2)]), item(added, [position(layout, section, 6, 0)])];
  const proposal = await callTool(agent.key, 'save_board', { id: boardId, sections: board.sections, items, expectedVersion: board.version });
  return { board, agent, reviewer, proposal, kept, removed, added };
}

async function signInOnPage(page: Page, actor: Actor, password: string): Promise<void> {
  await page.fill('form.login input[name=username]', actor.username);
  await page.fill('form.login input[name=password]', password);
  await page.click('form.login button[type=submit]');
}

describe('AGENT-12: the proposal preview page', () => {
  it('AGENT-12, PAGE-5: the page keeps the pages\' policy, for a reviewer (200, with the data block) and anyone else (404, without)', async () => {
    const { reviewer, proposal } = await scene();
    const url = `${server.directUrl}${proposal.previewUrl}`;
    const [shown, hidden] = await Promise.all([fetch(url, { headers: { ApiKey: reviewer.key } }), fetch(url)]);
    expect([shown.status, hidden.status]).toEqual([200, 404]);
    for (const response of [shown, hidden]) {
      expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self';/);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
    const [page, missing] = [await shown.text(), await hidden.text()];
    expect(page).toContain('<script type="application/json" id="proposal-data">');
    expect(missing).not.toContain('proposal-data');
    expect(missing).not.toContain(proposal.proposalId);
  });

  it('AGENT-12: signed out: 404 with the sign-in form; signed in as a reviewer: the proposed tiles marked, the summary and plan; Approve writes it', async () => {
    const { board, reviewer, proposal, kept, removed, added } = await scene();
    const { page, offsite, errors } = await openPage();
    const response = await page.goto(`${server.directUrl}${proposal.previewUrl}`);
    expect(response?.status()).toBe(404);
    await page.waitForSelector('form.login');
    expect(await page.locator('h1').innerText()).toBe('Proposal not found');
    expect(await page.locator('.tile').count()).toBe(0);

    await signInOnPage(page, reviewer, 'preview-pass-1');
    await page.waitForSelector(`.tile.added[data-item-id="${added}"]`);
    expect(await page.locator(`.tile.moved[data-item-id="${kept}"]`).count()).toBe(1);
    expect(await page.locator(`.tile.removed[data-item-id="${removed}"]`).count()).toBe(1);
    expect(await page.locator('.proposal .summary').innerText()).toBe(proposal.summary);
    expect(await page.locator('.proposal pre.json').innerText()).toContain(added);
    expect((await server.call('GET', `/api/boards/${board.id}`)).body.version).toBe(board.version);
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: path.join(artifacts, 'proposal-preview.png'), fullPage: true });

    await page.click('.proposal button.approve');
    await page.waitForSelector('.proposal .message:has-text("Approved")');
    expect(await page.locator('.proposal .message a.board-link').getAttribute('href')).toBe(`/boards/${encodeURIComponent(board.name)}`);
    const after = expectOk(await server.call('GET', `/api/boards/${board.id}`));
    expect(after.version).toBe(board.version + 1);
    expect(after.items.map((i: any) => i.id).sort()).toEqual([kept, added].sort());
    expect(offsite).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('AGENT-12: a proposal without a plan shows its summary and arguments; Reject drops it and writes nothing', async () => {
    const { board, agent, reviewer } = await scene();
    const proposal = await callTool(agent.key, 'add_item', { boardId: board.id, kind: 'clock' });
    expect(proposal.plan).toBeNull();
    const { page, errors } = await openPage();
    expect((await page.request.post(`${server.directUrl}/api/auth/login`, { data: { username: reviewer.username, password: 'preview-pass-1' } })).status()).toBe(200);
    await page.goto(`${server.directUrl}${proposal.previewUrl}`);
    await page.waitForSelector('.proposal .summary');
    expect(await page.locator('.proposal .summary').innerText()).toBe(proposal.summary);
    expect(await page.locator('.proposal h3:has-text("Arguments")').count()).toBe(1);
    expect(await page.locator('.proposal pre.json').innerText()).toContain(board.id);
    await page.click('.proposal button.reject');
    await page.waitForSelector('.proposal .message:has-text("Rejected")');
    expect((await server.call('GET', `/api/mcp/proposals/${proposal.proposalId}`)).status).toBe(404);
    expect(expectOk(await server.call('GET', `/api/boards/${board.id}`)).version).toBe(board.version);
    expect(errors).toEqual([]);
    await page.close();
  });
});
