/**
 * AGENT-9..11: a person reviews an MCP proposal: its previewUrl, reading it as a reviewer, approving (written as the
 * proposing key, audited with the approver) and rejecting over REST, with the SDK client making the proposals.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { approvalLevel } from '../../src/mcp/agent';
import { McpProposal } from '../../src/db/models/McpProposal';
import { createActor, type Actor } from '../support/actors';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

const server = useTestServer();

let clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
});

async function open(key: string): Promise<Client> {
  // AGENT-17: a client that can ask its person (elicitation), who accepts every proposal it is shown.
  const client = new Client({ name: 'review-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.directUrl}/api/mcp`), { requestInit: { headers: { ApiKey: key } } }));
  clients.push(client);
  return client;
}

const readBoard = async (id: string) => expectOk(await server.call('GET', `/api/boards/${id}`));
const notFound = { message: 'Proposal not found', code: 'NOT_FOUND', data: {} };
const answer = (result: { status: number; body: unknown }) => ({ status: result.status, body: result.body });

/** A private board; the agent's user may modify it, the reviewer too, the viewer only view it. */
async function scene() {
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('review-'), columnCount: 12, isPublic: false } }), 201);
  const agent = await createActor(server);
  const reviewer = await createActor(server, { password: 'reviewer-pass-1' });
  const viewer = await createActor(server);
  const grants = { users: [{ userId: agent.userId, permission: 'modify' }, { userId: reviewer.userId, permission: 'modify' }, { userId: viewer.userId, permission: 'view' }], groups: [] };
  expectOk(await server.call('PUT', `/api/boards/${boardId}/permissions`, { body: grants }));
  return { board: await readBoard(boardId), agent, reviewer, viewer };
}

/** The agent proposes to add one clock through save_board. */
async function proposeClock(agent: Actor, board: any) {
  const items = [item(unique('clock'), [position(board.layouts[0].id, board.sections[0].id)])];
  const result = await (await open(agent.key)).callTool({ name: 'save_board', arguments: { id: board.id, sections: board.sections, items, expectedVersion: board.version } });
  expect(result.isError).toBeFalsy();
  return { proposal: JSON.parse((result.content as any)[0].text), items };
}

async function cookieOf(actor: Actor, password: string): Promise<string> {
  const login = await server.call('POST', '/api/auth/login', { key: null, body: { username: actor.username, password } });
  expect(login.status).toBe(200);
  return login.headers.get('set-cookie')!.split(';')[0];
}

describe('AGENT-9..11: people review proposals', () => {
  it('AGENT-10: approvalLevel: full for what needs full over REST, modify for the other writes', () => {
    expect(['deleteBoard', 'renameBoard', 'importBoard', 'applyBoardSet'].map((id) => approvalLevel(id as never))).toEqual(['full', 'full', 'full', 'full']);
    expect(['saveBoard', 'addBoardItem', 'saveBoardLayouts', 'restoreBoard'].map((id) => approvalLevel(id as never))).toEqual(['modify', 'modify', 'modify', 'modify']);
  });

  it('AGENT-9, AGENT-10: a reviewer with modify reads and approves (cookie session): written as the proposing key, audited with the approver; a viewer gets 404', async () => {
    const { board, agent, reviewer, viewer } = await scene();
    const { proposal, items } = await proposeClock(agent, board);
    expect(proposal.previewUrl).toBe(`/proposals/${proposal.proposalId}`);
    const { status: _status, next: _next, ...view } = proposal;
    // The proposer's own read and the reviewer's read answer the same; a viewer of the board may not review it.
    expect(expectOk(await server.call('GET', `/api/mcp/proposals/${proposal.proposalId}`, { key: agent.key }))).toEqual(view);
    expect(expectOk(await server.call('GET', `/api/mcp/proposals/${proposal.proposalId}`, { key: reviewer.key }))).toEqual(view);
    expect(answer(await server.call('GET', `/api/mcp/proposals/${proposal.proposalId}`, { key: viewer.key }))).toEqual({ status: 404, body: notFound });
    expect(answer(await server.call('POST', `/api/mcp/proposals/${proposal.proposalId}/approve`, { key: viewer.key }))).toEqual({ status: 404, body: notFound });
    expect(answer(await server.call('POST', `/api/mcp/proposals/${proposal.proposalId}/reject`, { key: viewer.key }))).toEqual({ status: 404, body: notFound });
    expect((await readBoard(board.id)).version).toBe(board.version);

    // SEC-5: a cookie approve another site's page could send (text/plain) is refused as every cookie write is.
    const cookie = await cookieOf(reviewer, 'reviewer-pass-1');
    const approve = `/api/mcp/proposals/${proposal.proposalId}/approve`;
    const text = await server.call('POST', approve, { key: null, raw: '', headers: { Cookie: cookie, 'Content-Type': 'text/plain' } });
    expect(answer(text)).toEqual({
      status: 403,
      body: { message: 'Cross-site request refused: a cookie-authenticated write may only send Content-Type: application/json', code: 'FORBIDDEN', data: {} },
    });
    const crossOrigin = await server.call('POST', approve, { key: null, headers: { Cookie: cookie, Origin: 'https://evil.example' } });
    expect(crossOrigin.status).toBe(403);
    expect((await readBoard(board.id)).version).toBe(board.version);

    const approved = await server.call('POST', approve, { key: null, headers: { Cookie: cookie } });
    expect(answer(approved)).toEqual({
      status: 200,
      body: { status: 'applied', proposalId: proposal.proposalId, tool: 'save_board', summary: proposal.summary, result: expect.objectContaining({ version: board.version + 1 }) },
    });
    const after = await readBoard(board.id);
    expect(after.version).toBe(board.version + 1);
    expect(after.items.map((i: any) => i.id)).toEqual([items[0].id]);
    // Once: a second approval, and the proposal's read, find none.
    expect(answer(await server.call('POST', approve, { key: null, headers: { Cookie: cookie } }))).toEqual({ status: 404, body: notFound });
    expect((await server.call('GET', `/api/mcp/proposals/${proposal.proposalId}`, { key: reviewer.key })).status).toBe(404);

    const entries = expectOk(await server.call('GET', `/api/audit?action=mcp.proposal.apply&target=${proposal.proposalId}`));
    expect(entries).toEqual([
      expect.objectContaining({
        surface: 'rest',
        actor: expect.objectContaining({ userId: agent.userId, apiKeyId: expect.any(String) }),
        details: expect.objectContaining({
          tool: 'save_board',
          proposedBy: { apiKeyId: expect.any(String), client: 'review-test' },
          approvedBy: { userId: reviewer.userId, username: reviewer.username, apiKeyId: null },
        }),
      }),
    ]);
    // The write itself is the proposing key's user's.
    const history = expectOk(await server.call('GET', `/api/boards/${board.id}/history`));
    expect(history.entries[0]).toMatchObject({ operation: 'saveBoard', actor: expect.objectContaining({ name: agent.username }) });
  });

  it('AGENT-10: an admin approves any proposal (API key); apply_proposal\'s entry names its own caller as approver', async () => {
    const { board, agent } = await scene();
    const { proposal } = await proposeClock(agent, board);
    expect(expectOk(await server.call('POST', `/api/mcp/proposals/${proposal.proposalId}/approve`))).toMatchObject({ status: 'applied' });
    expect((await readBoard(board.id)).version).toBe(board.version + 1);
    const second = await proposeClock(agent, await readBoard(board.id));
    expect((await (await open(agent.key)).callTool({ name: 'apply_proposal', arguments: { id: second.proposal.proposalId } })).isError).toBeFalsy();
    const [entry] = expectOk(await server.call('GET', `/api/audit?action=mcp.proposal.apply&target=${second.proposal.proposalId}`));
    expect(entry.details.approvedBy).toEqual({ userId: agent.userId, username: agent.username, apiKeyId: expect.any(String) });
  });

  it('AGENT-10: a board changed since the proposal: 409 naming the board (as AGENT-5), nothing written, the proposal gone', async () => {
    const { board, agent, reviewer } = await scene();
    const { proposal } = await proposeClock(agent, board);
    expectOk(await server.call('PUT', `/api/boards/${board.id}`, { body: { sections: board.sections, items: [], expectedVersion: board.version } }));
    const changed = await readBoard(board.id);
    const stale = await server.call('POST', `/api/mcp/proposals/${proposal.proposalId}/approve`, { key: reviewer.key });
    expect(answer(stale)).toEqual({
      status: 409,
      body: {
        message: `Board "${board.name}" changed since the proposal was made; read it again and propose again`,
        code: 'CONFLICT',
        data: { boardId: board.id, name: board.name, plannedVersion: board.version, version: changed.version },
      },
    });
    expect((await readBoard(board.id)).version).toBe(changed.version);
    expect((await server.call('POST', `/api/mcp/proposals/${proposal.proposalId}/approve`, { key: reviewer.key })).status).toBe(404);
  });

  it('AGENT-11: a reviewer rejects: nothing written, audited with who rejected; then it is gone', async () => {
    const { board, agent, reviewer } = await scene();
    const { proposal } = await proposeClock(agent, board);
    const rejected = await server.call('POST', `/api/mcp/proposals/${proposal.proposalId}/reject`, { key: reviewer.key });
    expect(answer(rejected)).toEqual({ status: 200, body: { status: 'rejected', proposalId: proposal.proposalId, tool: 'save_board', summary: proposal.summary } });
    expect((await readBoard(board.id)).version).toBe(board.version);
    expect(answer(await server.call('POST', `/api/mcp/proposals/${proposal.proposalId}/approve`, { key: reviewer.key }))).toEqual({ status: 404, body: notFound });
    const [entry] = expectOk(await server.call('GET', `/api/audit?action=mcp.proposal.reject&target=${proposal.proposalId}`));
    expect(entry).toMatchObject({ actor: { userId: reviewer.userId }, details: { tool: 'save_board', rejectedBy: { userId: reviewer.userId, username: reviewer.username, apiKeyId: expect.any(String) } } });
  });

  it('AGENT-9, AGENT-10: an expired proposal, or one whose key was revoked, is 404 to the reviewer; nothing written', async () => {
    const { board, agent, reviewer } = await scene();
    const { proposal } = await proposeClock(agent, board);
    await McpProposal.query(server.db).findById(proposal.proposalId).patch({ expiresAt: new Date(Date.now() - 1000) } as never);
    for (const [method, path] of [['GET', ''], ['POST', '/approve'], ['POST', '/reject']]) {
      expect(answer(await server.call(method, `/api/mcp/proposals/${proposal.proposalId}${path}`, { key: reviewer.key }))).toEqual({ status: 404, body: notFound });
    }
    const revoked = await proposeClock(agent, board);
    const [keyId] = agent.key.split('.');
    expect((await server.call('DELETE', `/api/api-keys/${keyId}`)).status).toBe(204);
    expect(answer(await server.call('POST', `/api/mcp/proposals/${revoked.proposal.proposalId}/approve`, { key: reviewer.key }))).toEqual({ status: 404, body: notFound });
    expect((await readBoard(board.id)).version).toBe(board.version);
  });
});
