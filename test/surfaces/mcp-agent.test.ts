/**
 * AGENT-*: MCP tool annotations, MCP_MODE and proposals, with the official MCP SDK client over HTTP against the real
 * app: the default mode (propose) and a read-only instance.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { annotationsOf } from '../../src/mcp/annotations';
import { toolDefinitions } from '../../src/mcp/tools';
import { McpProposal } from '../../src/db/models/McpProposal';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

const server = useTestServer();
const readOnly = useTestServer({ MCP_MODE: 'read-only' });
const onPostgres = process.env.TEST_DATABASE_URL !== undefined;

const json = (result: any) => JSON.parse(result.content[0].text);

let clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
});

/** The SDK's client over Streamable HTTP to `baseUrl`, with the key. */
async function open(baseUrl: string, key: string): Promise<Client> {
  // AGENT-17: a client that can ask its person (elicitation), who accepts every proposal it is shown.
  const client = new Client({ name: 'agent-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), { requestInit: { headers: { ApiKey: key } } }));
  clients.push(client);
  return client;
}

async function newBoard(): Promise<any> {
  const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('agent-'), columnCount: 12, isPublic: false } }), 201);
  return expectOk(await server.call('GET', `/api/boards/${boardId}`));
}

const readBoard = async (id: string) => expectOk(await server.call('GET', `/api/boards/${id}`));

/** A proposal to add one clock to the board, through save_board. */
async function proposeSave(client: Client, board: any) {
  const items = [item(unique('clock'), [position(board.layouts[0].id, board.sections[0].id)])];
  const args = { id: board.id, sections: board.sections, items, expectedVersion: board.version };
  const result = await client.callTool({ name: 'save_board', arguments: args });
  expect(result.isError).toBeFalsy();
  return { proposal: json(result), args, items };
}

describe('AGENT-1: tool annotations', () => {
  it('AGENT-1: annotationsOf: GET and dry runs read-only; DELETE, PUT, PATCH and prune/force/onConflict destructive; PUT and DELETE idempotent', () => {
    const facts = (method: any, path: string, argumentNames: string[] = [], reachesUpstream = false) => ({ method, path, argumentNames, reachesUpstream });
    expect(annotationsOf(facts('get', '/api/boards'))).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(annotationsOf(facts('post', '/api/boards/{id}/plan'))).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(annotationsOf(facts('post', '/api/boards'))).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    expect(annotationsOf(facts('post', '/api/boards/apply', ['dryRun', 'prune', 'force']))).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(annotationsOf(facts('put', '/api/boards/{id}'))).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(annotationsOf(facts('delete', '/api/boards/{id}'))).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(annotationsOf(facts('get', '/api/boards/{id}/items/{itemId}/data', [], true)).openWorldHint).toBe(true);
  });

  it('AGENT-1: every listed tool carries the four hints, consistent with the method of its REST operation in the served document', async () => {
    const client = await open(server.directUrl, server.adminKey);
    const { tools } = await client.listTools();
    const document = expectOk(await server.call('GET', '/api/openapi.json'));
    const operations = new Map<string, { method: string; path: string; names: string[] }>();
    for (const [path, pathItem] of Object.entries<any>(document.paths)) {
      for (const method of ['get', 'put', 'post', 'patch', 'delete']) {
        const operation = pathItem[method];
        if (operation) operations.set(operation.operationId, { method, path, names: (operation.parameters ?? []).map((p: any) => p.name) });
      }
    }
    const definitions = new Map(toolDefinitions.map((definition) => [definition.name, definition.operationId]));
    const checked: string[] = [];
    for (const tool of tools) {
      const hints = tool.annotations!;
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) expect({ tool: tool.name, hint, type: typeof hints[hint] }).toEqual({ tool: tool.name, hint, type: 'boolean' });
      const operationId = definitions.get(tool.name);
      if (!operationId) continue;
      const { method, path, names } = operations.get(operationId)!;
      const expected = {
        tool: tool.name,
        readOnly: method === 'get' || (method === 'post' && path.endsWith('/plan')),
        destructive: method === 'delete' || method === 'put' || method === 'patch' || names.some((name) => ['prune', 'force', 'onConflict'].includes(name)),
        idempotent: method === 'get' || method === 'put' || method === 'delete' || path.endsWith('/plan'),
        openWorld: tool.name === 'get_item_data',
      };
      expect({ tool: tool.name, readOnly: hints.readOnlyHint, destructive: hints.destructiveHint, idempotent: hints.idempotentHint, openWorld: hints.openWorldHint }).toEqual(expected);
      checked.push(tool.name);
    }
    expect(checked.sort()).toEqual([...definitions.keys()].sort());
    expect(tools.find((tool) => tool.name === 'apply_proposal')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    expect(tools.find((tool) => tool.name === 'reject_proposal')!.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
  });
});

describe('AGENT-3: read-only mode', () => {
  it('AGENT-3: lists only reading tools and refuses a writing tool with a tool error, writing nothing', async () => {
    const client = await open(readOnly.directUrl, readOnly.adminKey);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(5);
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['get_board', 'list_boards', 'plan_board_save', 'board_history', 'get_item_data']));
    for (const name of ['save_board', 'delete_board', 'create_board', 'apply_proposal', 'reject_proposal']) expect(names).not.toContain(name);

    const before = (await readOnly.call('GET', '/api/boards')).body;
    const refused = await client.callTool({ name: 'create_board', arguments: { name: unique('ro-'), columnCount: 12, isPublic: false } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      message: 'The tool create_board writes, and this MCP endpoint is read-only (MCP_MODE=read-only)',
      code: 'FORBIDDEN',
      data: { tool: 'create_board', mode: 'read-only' },
    });
    expect((refused.content as any)[0].text).toBe('The tool create_board writes, and this MCP endpoint is read-only (MCP_MODE=read-only) (FORBIDDEN)');
    expect((await client.callTool({ name: 'apply_proposal', arguments: { id: 'x' } })).isError).toBe(true);
    expect((await readOnly.call('GET', '/api/boards')).body).toEqual(before);
    // The other surfaces are not MCP's modes: REST still writes.
    expectOk(await readOnly.call('POST', '/api/boards', { body: { name: unique('ro-rest-'), columnCount: 12, isPublic: false } }), 201);
  });
});

describe('AGENT-4, AGENT-5: proposals (propose is the default mode)', () => {
  it('AGENT-4: a writing tool writes nothing and answers a proposal: id, the REST plan, a summary, the boards at their versions', async () => {
    const client = await open(server.directUrl, server.adminKey);
    const board = await newBoard();
    const { proposal, args } = await proposeSave(client, board);
    const restPlan = expectOk(await server.call('POST', `/api/boards/${board.id}/plan`, { body: { sections: args.sections, items: args.items, expectedVersion: board.version } }));
    expect(proposal).toMatchObject({
      status: 'proposed',
      proposalId: expect.any(String),
      tool: 'save_board',
      plan: restPlan,
      boards: [{ boardId: board.id, name: board.name, version: board.version }],
      summary: `save_board on board "${board.name}" (version ${board.version}): items +1 -0 ~0, sections +0 -0 ~0`,
    });
    expect(Date.parse(proposal.expiresAt) - Date.parse(proposal.createdAt)).toBe(3600_000);
    const after = await readBoard(board.id);
    expect(after.version).toBe(board.version);
    expect(after.items).toEqual([]);
    // A tool without a dry run (add_item) proposes too, with a null plan; its board is the body's boardId.
    const added = json(await client.callTool({ name: 'add_item', arguments: { boardId: board.id, kind: 'clock' } }));
    expect(added).toMatchObject({ status: 'proposed', plan: null, boards: [{ boardId: board.id, version: board.version }] });
    expect((await readBoard(board.id)).items).toEqual([]);
    // A proposal's errors are the dry run's: a bad save is refused at once.
    const bad = await client.callTool({ name: 'save_board', arguments: { ...args, expectedVersion: board.version + 5 } });
    expect(bad.structuredContent).toMatchObject({ code: 'CONFLICT' });
  });

  it('AGENT-5, AGENT-7: apply_proposal writes exactly the planned change, once, audited with the proposing key and client', async () => {
    const client = await open(server.directUrl, server.adminKey);
    const board = await newBoard();
    const { proposal, items } = await proposeSave(client, board);
    const applied = await client.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } });
    expect(applied.isError).toBeFalsy();
    expect(json(applied)).toMatchObject({ status: 'applied', proposalId: proposal.proposalId, tool: 'save_board', result: { version: board.version + 1 } });
    const after = await readBoard(board.id);
    expect(after.version).toBe(board.version + 1);
    expect(after.items.map((i: any) => i.id)).toEqual([items[0].id]);
    const again = await client.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } });
    expect(again.structuredContent).toEqual({ message: 'Proposal not found', code: 'NOT_FOUND', data: {} });
    const entries = expectOk(await server.call('GET', `/api/audit?action=mcp.proposal.apply&target=${proposal.proposalId}`));
    expect(entries).toEqual([
      expect.objectContaining({
        surface: 'mcp',
        outcome: 'success',
        target: { type: 'mcpProposal', id: proposal.proposalId },
        details: expect.objectContaining({
          tool: 'save_board',
          boards: [{ boardId: board.id, name: board.name, version: board.version }],
          proposedBy: { apiKeyId: expect.any(String), client: 'agent-test' },
          client: 'agent-test',
          approval: 'elicitation',
        }),
      }),
    ]);
    const history = expectOk(await server.call('GET', `/api/boards/${board.id}/history`));
    expect(history.entries[0]).toMatchObject({ operation: 'saveBoard' });
  });

  it('AGENT-5: a proposed delete_board (no dry run) deletes the board only when applied, with its own audit entry too', async () => {
    const client = await open(server.directUrl, server.adminKey);
    const board = await newBoard();
    const proposed = json(await client.callTool({ name: 'delete_board', arguments: { id: board.id } }));
    expect(proposed).toMatchObject({ status: 'proposed', tool: 'delete_board', plan: null, boards: [{ boardId: board.id, name: board.name, version: board.version }] });
    expect(proposed.summary).toBe(`delete_board on board "${board.name}" (version ${board.version})`);
    expect((await server.call('GET', `/api/boards/${board.id}`)).status).toBe(200);
    const applied = await client.callTool({ name: 'apply_proposal', arguments: { id: proposed.proposalId } });
    expect(json(applied)).toMatchObject({ status: 'applied', result: null });
    expect((await server.call('GET', `/api/boards/${board.id}`)).status).toBe(404);
    expect(expectOk(await server.call('GET', `/api/audit?action=board.delete&target=${board.id}`))).toEqual([expect.objectContaining({ surface: 'mcp' })]);
    expect(expectOk(await server.call('GET', `/api/audit?action=mcp.proposal.apply&target=${proposed.proposalId}`))).toHaveLength(1);
  });

  it('AGENT-5: a proposal on a board renamed since (its version unchanged, CONC-5) is refused too: the planned document is compared', async () => {
    const client = await open(server.directUrl, server.adminKey);
    const board = await newBoard();
    const proposed = json(await client.callTool({ name: 'add_item', arguments: { boardId: board.id, kind: 'clock' } }));
    expect((await server.call('PATCH', `/api/boards/${board.id}/name`, { body: { name: unique('renamed-') } })).status).toBe(204);
    expect((await readBoard(board.id)).version).toBe(board.version);
    const stale = await client.callTool({ name: 'apply_proposal', arguments: { id: proposed.proposalId } });
    expect(stale.structuredContent).toMatchObject({ code: 'CONFLICT', data: { boardId: board.id, name: board.name, plannedVersion: board.version, version: board.version } });
    expect((await readBoard(board.id)).items).toEqual([]);
  });

  it('AGENT-5: a proposal whose board changed since is refused with a 409-style error naming the board, and is gone', async () => {
    const client = await open(server.directUrl, server.adminKey);
    const board = await newBoard();
    const { proposal } = await proposeSave(client, board);
    // Someone else saves the board over REST meanwhile.
    expectOk(await server.call('PUT', `/api/boards/${board.id}`, { body: { sections: board.sections, items: [], expectedVersion: board.version } }));
    const changed = await readBoard(board.id);
    expect(changed.version).toBeGreaterThan(board.version);
    const stale = await client.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } });
    expect(stale.isError).toBe(true);
    expect(stale.structuredContent).toEqual({
      message: `Board "${board.name}" changed since the proposal was made; read it again and propose again`,
      code: 'CONFLICT',
      data: { boardId: board.id, name: board.name, plannedVersion: board.version, version: changed.version },
    });
    expect((await readBoard(board.id)).version).toBe(changed.version);
    expect((await client.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } })).structuredContent).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('AGENT-4: an expired proposal is gone: apply and reject answer Proposal not found, nothing written', async () => {
    const client = await open(server.directUrl, server.adminKey);
    const board = await newBoard();
    const { proposal } = await proposeSave(client, board);
    await McpProposal.query(server.db).findById(proposal.proposalId).patch({ expiresAt: new Date(Date.now() - 1000) } as never);
    for (const name of ['apply_proposal', 'reject_proposal']) {
      const refused = await client.callTool({ name, arguments: { id: proposal.proposalId } });
      expect(refused.structuredContent).toEqual({ message: 'Proposal not found', code: 'NOT_FOUND', data: {} });
    }
    expect((await readBoard(board.id)).version).toBe(board.version);
    // The next proposal made deletes the expired rows.
    await proposeSave(client, board);
    expect(await McpProposal.query(server.db).findById(proposal.proposalId)).toBeUndefined();
  });

  it('AGENT-6: reject_proposal drops a proposal (audited); another user never sees one', async () => {
    const client = await open(server.directUrl, server.adminKey);
    const board = await newBoard();
    const { proposal } = await proposeSave(client, board);
    const stranger = await createActor(server, { permissions: ['board-create'] });
    const other = await open(server.directUrl, stranger.key);
    expect((await other.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } })).structuredContent).toMatchObject({ code: 'NOT_FOUND' });
    expect((await other.callTool({ name: 'reject_proposal', arguments: { id: proposal.proposalId } })).structuredContent).toMatchObject({ code: 'NOT_FOUND' });
    const rejected = await client.callTool({ name: 'reject_proposal', arguments: { id: proposal.proposalId } });
    expect(json(rejected)).toMatchObject({ status: 'rejected', proposalId: proposal.proposalId });
    const bad = await client.callTool({ name: 'reject_proposal', arguments: { id: 'Not valid!' } });
    expect((bad.content as any)[0].text).toBe('Input validation failed (BAD_REQUEST): /id must be 1 to 64 lowercase letters and digits');
    expect((await client.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } })).structuredContent).toMatchObject({ code: 'NOT_FOUND' });
    expect((await readBoard(board.id)).version).toBe(board.version);
    expect(expectOk(await server.call('GET', `/api/audit?action=mcp.proposal.reject&target=${proposal.proposalId}`))).toEqual([
      expect.objectContaining({ surface: 'mcp', target: { type: 'mcpProposal', id: proposal.proposalId }, details: expect.objectContaining({ tool: 'save_board' }) }),
    ]);
  });

  it('AGENT-8: GET /api/mcp/proposals/{id} reads the caller\'s own proposal; another user, an applied one: 404 Proposal not found', async () => {
    const client = await open(server.directUrl, server.adminKey);
    const board = await newBoard();
    const { proposal } = await proposeSave(client, board);
    const { status: _status, next: _next, ...view } = proposal;
    expect(expectOk(await server.call('GET', `/api/mcp/proposals/${proposal.proposalId}`))).toEqual(view);
    const stranger = await createActor(server);
    const hidden = await server.call('GET', `/api/mcp/proposals/${proposal.proposalId}`, { key: stranger.key });
    expect({ status: hidden.status, body: hidden.body }).toEqual({ status: 404, body: { message: 'Proposal not found', code: 'NOT_FOUND', data: {} } });
    expect((await client.callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } })).isError).toBeFalsy();
    expect((await server.call('GET', `/api/mcp/proposals/${proposal.proposalId}`)).status).toBe(404);
  });

  (onPostgres ? it : it.skip)('AGENT-4: another instance on the same database applies a proposal made on the first', async () => {
    const sibling = await server.startSibling();
    const board = await newBoard();
    const { proposal, items } = await proposeSave(await open(server.directUrl, server.adminKey), board);
    const applied = await (await open(sibling.url, server.adminKey)).callTool({ name: 'apply_proposal', arguments: { id: proposal.proposalId } });
    expect(applied.isError).toBeFalsy();
    const after = await readBoard(board.id);
    expect(after.version).toBe(board.version + 1);
    expect(after.items.map((i: any) => i.id)).toEqual([items[0].id]);
  });
});
