/**
 * KEY-7..KEY-11, AGENT-14..AGENT-18: what one API key may reach (boards, MCP mode, agent-approved applies) on every
 * surface, and the person at the client confirming apply_proposal through MCP elicitation, with the official MCP SDK
 * client and the official tRPC client over HTTP against the real app.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createTRPCUntypedClient, httpLink, TRPCClientError } from '@trpc/client';
import superjson from 'superjson';
import { createActor, type Actor } from '../support/actors';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

const server = useTestServer();
const onPostgres = process.env.TEST_DATABASE_URL !== undefined;

const json = (result: any) => JSON.parse(result.content[0].text);
const boardNotFound = { message: 'Board not found', code: 'NOT_FOUND', data: {} };

let clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
});

type Person = 'accept' | 'decline' | 'cancel' | 'unable';

/**
 * The SDK's client with the key; `person` is who answers its elicitations (`unable`: a client without the
 * elicitation capability). `fetch` may route each request elsewhere (another instance). Every question asked is kept.
 */
async function open(key: string, person: Person, options: { url?: string; fetch?: typeof fetch; name?: string } = {}) {
  const asked: any[] = [];
  const client = new Client({ name: options.name ?? 'keys-test', version: '1.0.0' }, person === 'unable' ? {} : { capabilities: { elicitation: { form: {} } } });
  if (person !== 'unable') {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return person === 'accept' ? { action: 'accept', content: { approve: true } } : { action: person };
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${options.url ?? server.directUrl}/api/mcp`), { requestInit: { headers: { ApiKey: key } }, fetch: options.fetch }),
  );
  clients.push(client);
  return { client, asked };
}

async function newBoard(isPublic = false): Promise<any> {
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('keys-'), columnCount: 12, isPublic } }), 201);
  return expectOk(await server.call('GET', `/api/boards/${boardId}`));
}

const readBoard = async (id: string) => expectOk(await server.call('GET', `/api/boards/${id}`));

/** An admin-made key of the user with these bounds (KEY-7..KEY-10). */
async function keyOf(actor: Actor, bounds: Record<string, unknown>): Promise<string> {
  return expectOk(await server.call('POST', '/api/api-keys', { body: { userId: actor.userId, ...bounds } }), 201).apiKey;
}

/** Boards A and B the agent may modify, a public board P, and the agent's key limited to A. */
async function scene() {
  const [a, b, p] = [await newBoard(), await newBoard(), await newBoard(true)];
  const agent = await createActor(server);
  for (const board of [a, b]) {
    expectOk(await server.call('PUT', `/api/boards/${board.id}/permissions`, { body: { users: [{ userId: agent.userId, permission: 'modify' }], groups: [] } }));
  }
  const scoped = await keyOf(agent, { boardIds: [a.id] });
  return { a, b, p, agent, scoped };
}

/** A proposal to add one clock to the board, through save_board. */
async function proposeClock(client: Client, board: any) {
  const items = [item(unique('clock'), [position(board.layouts[0].id, board.sections[0].id)])];
  const result = await client.callTool({ name: 'save_board', arguments: { id: board.id, sections: board.sections, items, expectedVersion: board.version } });
  return { result, proposal: result.isError ? null : json(result) };
}

function trpc(key: string) {
  return createTRPCUntypedClient({ links: [httpLink({ url: `${server.url}/api/trpc`, transformer: superjson, headers: { ApiKey: key } })] });
}

describe('KEY-7, KEY-8: a key limited to boards', () => {
  it('KEY-8: REST: lists its board only; every other board (public ones too) is 404 Board not found on every route; creating a board is 403', async () => {
    const { a, b, p, agent, scoped } = await scene();
    const listed = expectOk(await server.call('GET', '/api/boards', { key: scoped }));
    expect(listed.map((board: any) => board.id)).toEqual([a.id]);
    // The same user's unlimited key sees them all (control).
    expect(expectOk(await server.call('GET', '/api/boards', { key: agent.key })).map((board: any) => board.id)).toEqual(expect.arrayContaining([a.id, b.id, p.id]));
    expect(expectOk(await server.call('GET', `/api/boards/${a.id}`, { key: scoped })).id).toBe(a.id);
    const { itemId } = expectOk(await server.call('POST', '/api/boards/items', { body: { boardId: b.id, kind: 'clock' } }), 201);
    for (const other of [b, p]) {
      for (const path of [
        `/api/boards/${other.id}`,
        `/api/boards/by-name/${encodeURIComponent(other.name)}`,
        `/api/boards/${other.id}/history`,
        `/api/boards/${other.id}/export`,
        `/api/boards/${other.id}/apps`,
      ]) {
        const answer = await server.call('GET', path, { key: scoped });
        expect({ path, status: answer.status, body: answer.body }).toEqual({ path, status: 404, body: boardNotFound });
      }
    }
    const data = await server.call('GET', `/api/boards/${b.id}/items/${itemId}/data`, { key: scoped });
    expect({ status: data.status, body: data.body }).toEqual({ status: 404, body: boardNotFound });
    const events = await fetch(`${server.directUrl}/api/boards/${b.id}/events`, { headers: { ApiKey: scoped, Accept: 'text/event-stream' } });
    expect(events.status).toBe(404);
    await events.body?.cancel();
    const save = await server.call('PUT', `/api/boards/${b.id}`, { key: scoped, body: { sections: b.sections, items: [] } });
    expect({ status: save.status, body: save.body }).toEqual({ status: 404, body: boardNotFound });
    const plan = await server.call('POST', `/api/boards/${b.id}/plan`, { key: scoped, body: { sections: b.sections, items: [] } });
    expect(plan.status).toBe(404);
    const created = await server.call('POST', '/api/boards', { key: scoped, body: { name: unique('scoped-'), columnCount: 12, isPublic: false } });
    expect({ status: created.status, body: created.body }).toEqual({
      status: 403,
      body: { message: 'Permission denied: an API key limited to boards cannot create boards', code: 'FORBIDDEN', data: {} },
    });
    const duplicated = await server.call('POST', `/api/boards/${a.id}/duplicate`, { key: scoped, body: { name: unique('scoped-copy-') } });
    expect(duplicated.status).toBe(403);
    // Its own board it writes as its owner may.
    const own = await server.call('PUT', `/api/boards/${a.id}`, { key: scoped, body: { sections: a.sections, items: [] } });
    expect(own.status).toBe(200);
  });

  it('KEY-8: tRPC: getAllBoards lists its board only; another board by name is NOT_FOUND', async () => {
    const { a, b, scoped } = await scene();
    const client = trpc(scoped);
    expect(((await client.query('board.getAllBoards', undefined)) as any[]).map((board) => board.id)).toEqual([a.id]);
    expect(((await client.query('board.getBoardByName', { name: a.name })) as any).id).toBe(a.id);
    const error = await client.query('board.getBoardByName', { name: b.name }).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<any>).message).toBe('Board not found');
    expect((error as TRPCClientError<any>).data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
  });

  it('KEY-8: MCP: list_boards shows its board only; get_board of another is NOT_FOUND; it cannot propose on another board or create one', async () => {
    const { a, b, p, agent, scoped } = await scene();
    const { client } = await open(scoped, 'unable');
    const listed = await client.callTool({ name: 'list_boards', arguments: {} });
    expect((listed.structuredContent as any).items.map((board: any) => board.id)).toEqual([a.id]);
    for (const other of [b, p]) {
      expect((await client.callTool({ name: 'get_board', arguments: { id: other.id } })).structuredContent).toEqual(boardNotFound);
      expect((await client.callTool({ name: 'get_board', arguments: { name: other.name } })).structuredContent).toEqual(boardNotFound);
    }
    const refused = await proposeClock(client, b);
    expect(refused.result.isError).toBe(true);
    expect(refused.result.structuredContent).toEqual(boardNotFound);
    const created = await client.callTool({ name: 'create_board', arguments: { name: unique('scoped-mcp-'), columnCount: 12, isPublic: false } });
    expect(created.structuredContent).toEqual({ message: 'Permission denied: an API key limited to boards cannot create boards', code: 'FORBIDDEN', data: {} });
    const { proposal } = await proposeClock(client, a);
    expect(proposal).toMatchObject({ status: 'proposed', boards: [{ boardId: a.id, name: a.name, version: a.version }] });
    // A proposal of the same user on another board (made with its unlimited key) is not this key's to see.
    const { proposal: elsewhere } = await proposeClock((await open(agent.key, 'unable')).client, b);
    const hidden = await server.call('GET', `/api/mcp/proposals/${elsewhere.proposalId}`, { key: scoped });
    expect({ status: hidden.status, body: hidden.body }).toEqual({ status: 404, body: { message: 'Proposal not found', code: 'NOT_FOUND', data: {} } });
    expect(expectOk(await server.call('GET', `/api/mcp/proposals/${proposal.proposalId}`, { key: scoped })).proposalId).toBe(proposal.proposalId);
  });

  it('KEY-7, KEY-11: boardIds must be boards the owner may view (400); a scoped key makes keys within its boards only (403), its own by default', async () => {
    const { a, b, agent, scoped } = await scene();
    const stranger = await newBoard();
    const unknown = await server.call('POST', '/api/api-keys', { body: { userId: agent.userId, boardIds: [a.id, stranger.id, 'nosuchboard'] } });
    expect({ status: unknown.status, body: unknown.body }).toEqual({
      status: 400,
      body: { message: `Unknown board ids: ${stranger.id}, nosuchboard`, code: 'BAD_REQUEST', data: { boardIds: [stranger.id, 'nosuchboard'] } },
    });
    const wider = await server.call('POST', '/api/api-keys', { key: scoped, body: { boardIds: [a.id, b.id] } });
    expect({ status: wider.status, body: wider.body }).toEqual({
      status: 403,
      body: { message: 'Permission denied: an API key cannot create a key for boards beyond its own', code: 'FORBIDDEN', data: { boardIds: [b.id] } },
    });
    const inherited = expectOk(await server.call('POST', '/api/api-keys', { key: scoped, body: { name: 'child' } }), 201);
    expect(inherited).toMatchObject({ boardIds: [a.id], mcpMode: null, agentApprove: false });
    const approving = await server.call('POST', '/api/api-keys', { key: scoped, body: { agentApprove: true } });
    expect(approving.body).toEqual({ message: 'Permission denied: an API key cannot create a key that approves its own proposals', code: 'FORBIDDEN', data: {} });
    const listed = expectOk(await server.call('GET', '/api/api-keys', { key: agent.key }));
    expect(listed.find((key: any) => key.id === inherited.id)).toMatchObject({ boardIds: [a.id], mcpMode: null, agentApprove: false });
    // KEY-5: the scoped key does not see its owner's unlimited key among the keys it manages.
    const seenByScoped = expectOk(await server.call('GET', '/api/api-keys', { key: scoped }));
    expect(seenByScoped.every((key: any) => key.boardIds !== null)).toBe(true);
  });
});

describe('KEY-9, AGENT-18: a key narrows the MCP mode, never widens it', () => {
  it('AGENT-18: a read-only key on a propose server lists no writing tool and is refused one, naming the key', async () => {
    const { a, agent } = await scene();
    const readOnlyKey = await keyOf(agent, { mcpMode: 'read-only' });
    const { client } = await open(readOnlyKey, 'unable');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['get_board', 'list_boards', 'plan_board_save']));
    for (const name of ['save_board', 'create_board', 'apply_proposal', 'reject_proposal']) expect(names).not.toContain(name);
    const refused = await proposeClock(client, a);
    expect(refused.result.structuredContent).toEqual({ message: "The tool save_board writes, and this API key's MCP mode is read-only", code: 'FORBIDDEN', data: { tool: 'save_board', mode: 'read-only' } });
    expect((await readBoard(a.id)).version).toBe(a.version);
  });

  it('KEY-9: a write key on a propose server still only proposes; an API key cannot make a key with a wider mode than its own', async () => {
    const { a, agent } = await scene();
    const writeKey = await keyOf(agent, { mcpMode: 'write' });
    const { proposal } = await proposeClock((await open(writeKey, 'unable')).client, a);
    expect(proposal).toMatchObject({ status: 'proposed' });
    expect((await readBoard(a.id)).version).toBe(a.version);
    const proposeKey = await keyOf(agent, { mcpMode: 'propose' });
    const wider = await server.call('POST', '/api/api-keys', { key: proposeKey, body: { mcpMode: 'write' } });
    expect({ status: wider.status, body: wider.body }).toEqual({
      status: 403,
      body: { message: 'Permission denied: an API key cannot create a key with a wider MCP mode than its own', code: 'FORBIDDEN', data: { mcpMode: 'propose' } },
    });
    expect(expectOk(await server.call('POST', '/api/api-keys', { key: proposeKey, body: {} }), 201).mcpMode).toBe('propose');
    const invalid = await server.call('POST', '/api/api-keys', { body: { mcpMode: 'sometimes' } });
    expect(invalid.status).toBe(400);
  });
});

describe('AGENT-14..AGENT-17: apply_proposal asks the person, or waits for one', () => {
  it('AGENT-17: elicitation accepted: the person is asked with the summary, then it is applied; audited with client, approver and approval', async () => {
    const { a, agent, scoped } = await scene();
    const { client, asked } = await open(scoped, 'accept', { name: 'claude-code-test' });
    const { proposal } = await proposeClock(client, a);
    const applied = await client.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } });
    expect(json(applied)).toMatchObject({ status: 'applied', proposalId: proposal.proposalId });
    expect(asked).toEqual([
      {
        mode: 'form',
        message: `Apply this change? ${proposal.summary}. Review it at /proposals/${proposal.proposalId}.`,
        requestedSchema: expect.objectContaining({ type: 'object', required: ['approve'] }),
      },
    ]);
    expect((await readBoard(a.id)).version).toBe(a.version + 1);
    const [entry] = expectOk(await server.call('GET', `/api/audit?action=mcp.proposal.apply&target=${proposal.proposalId}`));
    expect(entry).toMatchObject({
      surface: 'mcp',
      actor: { userId: agent.userId },
      details: {
        client: 'claude-code-test',
        proposedBy: { client: 'claude-code-test' },
        approvedBy: { userId: agent.userId, username: agent.username, apiKeyId: expect.any(String) },
        approval: 'elicitation',
      },
    });
  });

  it('AGENT-17: elicitation declined or cancelled: nothing written, the tool says so, the proposal stays for the page', async () => {
    const { a, scoped } = await scene();
    for (const person of ['decline', 'cancel'] as const) {
      const { client, asked } = await open(scoped, person);
      const { proposal } = await proposeClock(client, a);
      const answer = await client.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } });
      expect(answer.isError).toBeFalsy();
      expect(json(answer)).toMatchObject({ status: person === 'decline' ? 'declined' : 'cancelled', proposalId: proposal.proposalId, previewUrl: `/proposals/${proposal.proposalId}` });
      expect(asked).toHaveLength(1);
      expect((await readBoard(a.id)).version).toBe(a.version);
      expect(expectOk(await server.call('GET', `/api/mcp/proposals/${proposal.proposalId}`, { key: scoped })).proposalId).toBe(proposal.proposalId);
    }
  });

  it('AGENT-17: a client without elicitation: the proposal waits for a person; approved on the page it is written', async () => {
    const { a, scoped } = await scene();
    const { client } = await open(scoped, 'unable');
    const { proposal } = await proposeClock(client, a);
    const waiting = await client.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } });
    expect(waiting.isError).toBeFalsy();
    expect(json(waiting)).toMatchObject({ status: 'awaiting-approval', proposalId: proposal.proposalId, previewUrl: `/proposals/${proposal.proposalId}` });
    expect((await readBoard(a.id)).version).toBe(a.version);
    const approved = expectOk(await server.call('POST', `/api/mcp/proposals/${proposal.proposalId}/approve`));
    expect(approved).toMatchObject({ status: 'applied' });
    expect((await readBoard(a.id)).version).toBe(a.version + 1);
    const [entry] = expectOk(await server.call('GET', `/api/audit?action=mcp.proposal.apply&target=${proposal.proposalId}`));
    expect(entry.details).toMatchObject({ approval: 'review', proposedBy: { client: 'keys-test' } });
  });

  it('AGENT-17, KEY-10: a key holding agentApprove applies its own proposal without a person', async () => {
    const { a, agent } = await scene();
    const approving = await keyOf(agent, { boardIds: [a.id], agentApprove: true });
    const { client } = await open(approving, 'unable', { name: 'ci-agent' });
    const { proposal } = await proposeClock(client, a);
    const applied = await client.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } });
    expect(json(applied)).toMatchObject({ status: 'applied' });
    expect((await readBoard(a.id)).version).toBe(a.version + 1);
    const [entry] = expectOk(await server.call('GET', `/api/audit?action=mcp.proposal.apply&target=${proposal.proposalId}`));
    expect(entry.details).toMatchObject({ client: 'ci-agent', approval: 'agentApprove', approvedBy: { userId: agent.userId } });
  });

  it('AGENT-14: initialize answers an Mcp-Session-Id; another key cannot use the session (served as a client that declared nothing)', async () => {
    const { a, agent, scoped } = await scene();
    const init = await fetch(`${server.directUrl}/api/mcp`, {
      method: 'POST',
      headers: { ApiKey: scoped, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'raw', version: '1' } } }),
    });
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id');
    expect(sessionId).toMatch(/^[a-z0-9]+$/);
    await init.text();
    const { client } = await open(scoped, 'unable');
    const { proposal } = await proposeClock(client, a);
    // The agent's other key presents the session of the scoped key: not its session, so nothing is asked and it waits.
    const other = await fetch(`${server.directUrl}/api/mcp`, {
      method: 'POST',
      headers: { ApiKey: agent.key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sessionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'apply_proposal', arguments: { id: proposal.proposalId } } }),
    });
    expect(other.headers.get('content-type')).toMatch(/^application\/json/);
    const body: any = await other.json();
    expect(JSON.parse(body.result.content[0].text)).toMatchObject({ status: 'awaiting-approval' });
  });

  (onPostgres ? it : it.skip)('AGENT-16: the answer to an elicitation posted to another instance reaches the instance whose tool call waits (PostgreSQL)', async () => {
    const { a, scoped } = await scene();
    const sibling = await server.startSibling();
    // A load balancer of two: each request of the client goes to the other instance than the one before; the apply
    // call and the answer to its elicitation are then served by different instances.
    const bases = [server.directUrl, sibling.url];
    let turn = 0;
    const seen: string[] = [];
    const alternate: typeof fetch = (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      const base = new URL(bases[turn++ % 2]);
      url.host = base.host;
      const body = typeof init?.body === 'string' ? init.body : '';
      if (body.includes('"apply_proposal"')) seen.push(`apply ${url.host}`);
      if (body.includes('"elicit-')) seen.push(`answer ${url.host}`);
      return fetch(url, init);
    };
    const { client, asked } = await open(scoped, 'accept', { fetch: alternate });
    const { proposal } = await proposeClock(client, a);
    const applied = await client.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } });
    expect(json(applied)).toMatchObject({ status: 'applied' });
    expect(asked).toHaveLength(1);
    const [call, answer] = seen.map((line) => line.split(' '));
    expect([call[0], answer[0]]).toEqual(['apply', 'answer']);
    expect(call[1]).not.toBe(answer[1]);
    expect((await readBoard(a.id)).version).toBe(a.version + 1);
  });
});
