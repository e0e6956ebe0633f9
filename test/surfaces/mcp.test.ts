import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

// AGENT-2: these tests write through the tools directly (the default mode, propose, is tested in mcp-agent.test.ts).
const server = useTestServer({ MCP_MODE: 'write' });
const conflictMessage = 'This board was modified by another request. Reload the latest board and retry.';

/** The SDK's own client over Streamable HTTP, with the key as `ApiKey` or as a bearer token (MCP-1). */
async function connect(key: string, options: { bearer?: boolean; path?: string } = {}): Promise<Client> {
  const headers: Record<string, string> = options.bearer ? { Authorization: `Bearer ${key}` } : { ApiKey: key };
  const client = new Client({ name: 'tessera-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.directUrl}${options.path ?? '/api/mcp'}`), { requestInit: { headers } }));
  return client;
}

const json = (result: any) => JSON.parse(result.content[0].text);

describe('MCP tools (MCP-1..4)', () => {
  let clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    clients = [];
  });
  const open = async (...args: Parameters<typeof connect>) => {
    const client = await connect(...args);
    clients.push(client);
    return client;
  };

  it('MCP-2: lists one tool per board operation, input schemas from the OpenAPI document, descriptions teaching the safe loop', async () => {
    const client = await open(server.adminKey);
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['get_board', 'list_boards', 'plan_board_save', 'save_board', 'add_item', 'update_item', 'delete_item', 'add_section', 'update_section',
      'delete_section', 'change_layouts', 'board_history', 'board_diff', 'restore_board', 'export_board', 'import_board', 'create_board', 'duplicate_board',
      'rename_board', 'delete_board', 'list_apps', 'create_app', 'list_integrations', 'apply_boards', 'board_drift']) {
      expect(names).toContain(name);
    }
    const save = tools.find((tool) => tool.name === 'save_board')!;
    const document = expectOk(await server.call('GET', '/api/openapi.json'));
    expect(Object.keys(save.inputSchema.properties!).sort()).toEqual(['expectedVersion', 'id', 'items', 'sections']);
    expect((save.inputSchema.properties as any).expectedVersion.maximum).toBe(document.components.schemas.SaveBoardRequest.properties.expectedVersion.maximum);
    expect(save.inputSchema.required).toEqual(['id', 'sections', 'items']);
    expect(save.description).toMatch(/expectedVersion/);
    expect(save.description).toMatch(/409/);
  });

  it('MCP-2: docs/using-the-api.md lists exactly the tools the server lists, in its order', async () => {
    const client = await open(server.adminKey);
    const { tools } = await client.listTools();
    const guide = readFileSync(path.resolve(__dirname, '../../docs/using-the-api.md'), 'utf8');
    const paragraph = /\*\*MCP\*\*[^]*?:\s+tools ([^]*?)\.\s+Their input schemas/.exec(guide)?.[1] ?? '';
    const documented = [...paragraph.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]);
    expect(documented).toEqual(tools.map((tool) => tool.name));
  });

  it('MCP-6: every tool input schema is in the portable subset: no type arrays, no $ref, a description on every property', async () => {
    const client = await open(server.adminKey);
    const { tools } = await client.listTools();
    const findings: string[] = [];
    const walk = (schema: any, path: string): void => {
      if (typeof schema !== 'object' || schema === null) return;
      if (Array.isArray(schema)) return schema.forEach((sub, i) => walk(sub, `${path}/${i}`));
      if (Array.isArray(schema.type)) findings.push(`${path}: type array ${JSON.stringify(schema.type)}`);
      if ('$ref' in schema) findings.push(`${path}: $ref`);
      if ('example' in schema || 'discriminator' in schema) findings.push(`${path}: OpenAPI keyword`);
      for (const [key, value] of Object.entries(schema)) {
        if (key === 'properties') {
          for (const [name, property] of Object.entries(value as object)) {
            if (typeof (property as any).description !== 'string' || (property as any).description === '') findings.push(`${path}/properties/${name}: no description`);
            walk(property, `${path}/properties/${name}`);
          }
        } else if (typeof value === 'object' && !['enum', 'const', 'required', 'default', 'examples'].includes(key)) {
          walk(value, `${path}/${key}`);
        }
      }
    };
    for (const tool of tools) walk(tool.inputSchema, tool.name);
    expect(findings).toEqual([]);
    // A nullable field of the document is an anyOf with a null branch, keeping its bounds.
    const appDescription = (tools.find((tool) => tool.name === 'create_app')!.inputSchema.properties as any).description;
    expect(appDescription.anyOf).toEqual([expect.objectContaining({ type: 'string', maxLength: 512 }), { type: 'null' }]);
    expect(appDescription.description).toMatch(/512/);
  });

  it('MCP-3: a read, plan, save loop; a stale save is a tool error with the REST 409 message and code', async () => {
    const client = await open(server.adminKey, { bearer: true });
    const created = await client.callTool({ name: 'create_board', arguments: { name: unique('mcp-'), columnCount: 12, isPublic: false } });
    const { boardId } = json(created);
    const read = await client.callTool({ name: 'get_board', arguments: { id: boardId } });
    const board = json(read);
    expect(read.structuredContent).toEqual(board);
    const items = [item(unique('clock'), [position(board.layouts[0].id, board.sections[0].id)])];
    const plan = await client.callTool({ name: 'plan_board_save', arguments: { id: boardId, sections: board.sections, items, expectedVersion: board.version } });
    expect(json(plan).changes.items.added).toEqual([items[0].id]);
    const saved = await client.callTool({ name: 'save_board', arguments: { id: boardId, sections: board.sections, items, expectedVersion: board.version } });
    expect(saved.isError).toBeFalsy();
    expect(json(saved).version).toBe(board.version + 1);

    const stale = await client.callTool({ name: 'save_board', arguments: { id: boardId, sections: board.sections, items: [], expectedVersion: board.version } });
    expect(stale.isError).toBe(true);
    expect(stale.structuredContent).toEqual({ message: conflictMessage, code: 'CONFLICT', data: {} });
    expect((stale.content as any)[0].text).toBe(`${conflictMessage} (CONFLICT) Read the board again with get_board, redo the change on it and send its version as expectedVersion.`); // AGENT-13
    const byName = await client.callTool({ name: 'get_board', arguments: { name: board.name } });
    expect(json(byName).items).toHaveLength(1);
    const history = await client.callTool({ name: 'board_history', arguments: { id: boardId } });
    expect(json(history).entries.map((e: any) => e.operation)).toEqual(['saveBoard', 'createBoard']);
    const listed = await client.callTool({ name: 'list_boards', arguments: {} });
    expect((listed.structuredContent as any).items.map((b: any) => b.id)).toContain(boardId);
  });

  it('MCP-3: a board the caller may not view is the REST 404 Board not found; bad arguments are the REST 400', async () => {
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('mcp-private-'), columnCount: 12, isPublic: false } }), 201);
    const stranger = await createActor(server);
    const client = await open(stranger.key, { path: '/api/mcp/mcp' });
    const hidden = await client.callTool({ name: 'get_board', arguments: { id: boardId } });
    expect(hidden.isError).toBe(true);
    expect(hidden.structuredContent).toEqual({ message: 'Board not found', code: 'NOT_FOUND', data: {} });
    const bad = await client.callTool({ name: 'create_board', arguments: { name: 'not a name', columnCount: 12, isPublic: false } });
    expect(bad.isError).toBe(true);
    expect((bad.structuredContent as any).code).toBe('BAD_REQUEST');
  });

  it('MCP-7: a tool error names each validation issue in its text, at the path of the tool\'s own arguments (not /requestBody)', async () => {
    const client = await open(server.adminKey);
    // A flat body: the arguments are the body's properties.
    const created = await client.callTool({ name: 'create_board', arguments: { name: 'not a name', columnCount: 99, isPublic: false } });
    expect(created.isError).toBe(true);
    const createdText = (created.content as any)[0].text as string;
    expect(createdText).toMatch(/^Input validation failed \(BAD_REQUEST\): /);
    expect(createdText).toContain('/name ');
    expect(createdText).toContain('/columnCount must be <= ');
    expect(createdText).not.toContain('requestBody');
    const issues = (created.structuredContent as any).data.issues as { instancePath: string; message: string }[];
    expect(issues.map((issue) => issue.instancePath).sort()).toEqual(['/columnCount', '/name']);
    for (const issue of issues) expect(createdText).toContain(`${issue.instancePath} ${issue.message}`);
    // A path parameter and a body under one argument (add_section's `section`).
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('mcp-issues-'), columnCount: 12, isPublic: false } }), 201);
    const section = await client.callTool({ name: 'add_section', arguments: { id: boardId, section: { kind: 'category', id: 'x', name: 5 } } });
    expect(section.isError).toBe(true);
    const sectionIssues = (section.structuredContent as any).data.issues as { instancePath: string; message: string }[];
    expect(sectionIssues.length).toBeGreaterThan(0);
    for (const issue of sectionIssues) {
      expect(issue.instancePath).toMatch(/^\/section(\/|$)/);
      expect((section.content as any)[0].text).toContain(`${issue.instancePath} ${issue.message}`);
    }
    // A domain rule's issue (an address that does not parse, named `/body/href` by the rule), in the tool's terms.
    const app = await client.callTool({ name: 'create_app', arguments: { name: 'x', iconUrl: 'https://cdn.example.com/x.svg', href: 'https://[::1' } });
    expect(app.isError).toBe(true);
    expect((app.structuredContent as any).data.issues.map((issue: any) => issue.instancePath)).toEqual(['/href']);
    expect((app.content as any)[0].text).toMatch(/\/href must be .*does not parse/);
    // A schema issue said in words (CONTRACT-3).
    const blank = await client.callTool({ name: 'create_app', arguments: { name: 'x', iconUrl: '   ' } });
    expect((blank.content as any)[0].text).toBe('Input validation failed (BAD_REQUEST): /iconUrl must not be empty or whitespace alone');
  });

  it('AGENT-13: a value outside a list names the allowed values; a stale expectedVersion names the tool that reads the board again', async () => {
    const client = await open(server.adminKey);
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('mcp-agent13-'), columnCount: 12, isPublic: false } }), 201);
    const file = expectOk(await server.call('GET', `/api/boards/${boardId}/export`));
    const kind = await client.callTool({ name: 'import_board', arguments: { file, onConflict: 'bogus' } });
    expect(kind.isError).toBe(true);
    expect((kind.content as any)[0].text).toMatch(/\/onConflict must be equal to one of the allowed values \(allowed: "[a-z]+", "[a-z]+"/);
    const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
    const stale = await client.callTool({ name: 'save_board', arguments: { id: boardId, sections: doc.sections, items: [], expectedVersion: doc.version + 5 } });
    expect(stale.isError).toBe(true);
    expect((stale.structuredContent as any).code).toBe('CONFLICT');
    expect((stale.content as any)[0].text).toBe(
      'This board was modified by another request. Reload the latest board and retry. (CONFLICT) Read the board again with get_board, redo the change on it and send its version as expectedVersion.',
    );
  });

  it('MCP-5: without a key, or with a bad one, 401 with an ApiKey challenge only: no Bearer challenge, no OAuth metadata to discover', async () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { Accept: 'application/json, text/event-stream' };
    for (const path of ['/api/mcp', '/api/mcp/mcp']) {
      const none = await server.call('POST', path, { key: null, body: message, headers });
      expect(none.status).toBe(401);
      expect(none.body).toEqual({ message: 'Authentication required', code: 'UNAUTHORIZED', data: {} });
      expect(none.headers.get('www-authenticate')).toBe('ApiKey realm="tessera"');
      const bad = await server.call('POST', path, { key: null, body: message, headers: { ...headers, Authorization: 'Bearer nope.nope' } });
      expect(bad.status).toBe(401);
      expect(bad.body.code).toBe('UNAUTHORIZED');
      expect(bad.headers.get('www-authenticate')).toBe('ApiKey realm="tessera"');
    }
    // The other routes keep both challenges (AUTH-5).
    expect((await server.call('GET', '/api/users', { key: null })).headers.get('www-authenticate')).toBe('ApiKey realm="tessera", Bearer realm="tessera"');
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-authorization-server']) {
      expect((await server.call('GET', path, { key: null })).status).toBe(404);
    }
    await expect(connect('nope.nope')).rejects.toThrow();
  });

  it('MCP-1: answers plain JSON-RPC over HTTP (what a proxy or a hand-written client sends)', async () => {
    const headers = { Accept: 'application/json, text/event-stream' };
    const init = await server.call('POST', '/api/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
      headers,
    });
    expect(init.status).toBe(200);
    expect(init.body.result.serverInfo.name).toBe('tessera');
    const list = await server.call('POST', '/api/mcp/mcp', { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers });
    expect(list.status).toBe(200);
    expect(list.body.result.tools.length).toBeGreaterThan(20);
    expect((await server.call('POST', '/api/mcp', { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' }, headers: { Accept: 'text/html' } })).status).toBe(406);
  });

  it('MCP-1: a body that is not one JSON-RPC message is the usual 400; a notification is accepted (found by schemathesis)', async () => {
    const headers = { Accept: 'application/json, text/event-stream' };
    for (const body of [{}, { jsonrpc: '1.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 1, method: 'tools/list', extra: 1 }, { jsonrpc: '2.0', id: 1 }]) {
      const refused = await server.call('POST', '/api/mcp', { body, headers });
      expect({ body, status: refused.status, code: refused.body?.code, message: refused.body?.message }).toEqual({
        body,
        status: 400,
        code: 'BAD_REQUEST',
        message: 'Input validation failed',
      });
    }
    expect((await server.call('POST', '/api/mcp', { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers })).status).toBe(202);
  });

  it('MCP-1: a request without Accept, or with */*, is served (it was a 406; found by schemathesis)', async () => {
    for (const headers of [{}, { Accept: '*/*' }, { Accept: 'text/html;q=0.9, */*;q=0.8' }] as Record<string, string>[]) {
      const list = await server.call('POST', '/api/mcp', { body: { jsonrpc: '2.0', id: 4, method: 'tools/list' }, headers });
      expect({ headers, status: list.status }).toEqual({ headers, status: 200 });
      expect(list.body.result.tools.length).toBeGreaterThan(20);
    }
  });
});
