/**
 * A client team's test suite, written against `npm run mock` before the server exists, that passes unchanged against
 * a real Tessera. Copy this folder; run it with
 *
 *   TESSERA_URL=http://127.0.0.1:4010 npm run example:mock-first                       # the mock
 *   TESSERA_URL=http://localhost:7575 TESSERA_API_KEY=<key> npm run example:mock-first  # a server
 *
 * The mock answers every operation with its documented success; `Prefer: code=<status>` asks it for a documented
 * error instead, with the message and code the server sends for that status (MOCK-1). Each test sends that header
 * together with the request that provokes the error on a real server (a stale version, a missing board, a key
 * without the permission): the mock plays the error, the server meets the cause, and a server ignores `Prefer`.
 * Assertions use only what both give: statuses, messages, codes and the shapes of bodies, never example values.
 * The tRPC and MCP calls at the end reach the same operations: the mock answers them with the REST operations'
 * examples in their envelopes (MOCK-7).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTRPCUntypedClient, httpBatchLink } from '@trpc/client';
import superjson from 'superjson';
import { createTesseraClient, type components } from 'tessera-boards/client';

const baseUrl = process.env.TESSERA_URL ?? 'http://127.0.0.1:4010';
// The mock takes any key; a server needs one that may create boards and API keys.
const apiKey = process.env.TESSERA_API_KEY ?? 'mock.0123456789abcdef0123456789abcdef';
const tessera = createTesseraClient({ baseUrl, apiKey });
const prefer = (status: number) => ({ Prefer: `code=${status}` });

let boardId: string;

before(async () => {
  const name = `mock-first-${Date.now().toString(36)}`;
  const created = await tessera.POST('/api/boards', { body: { name, columnCount: 12, isPublic: false } });
  assert.equal(created.response.status, 201, created.error?.message);
  boardId = created.data!.boardId;
});

after(async () => {
  await tessera.DELETE('/api/boards/{id}', { params: { path: { id: boardId } } });
});

test('reads a board', async () => {
  const { data, error, response } = await tessera.GET('/api/boards/{id}', { params: { path: { id: boardId } } });
  assert.equal(response.status, 200, error?.message);
  assert.equal(typeof data!.name, 'string');
  assert.ok(Number.isInteger(data!.version));
  assert.ok(Array.isArray(data!.sections) && Array.isArray(data!.items));
});

/**
 * A guarded write: PUT with the version it was based on; on 409 read the board again and retry. Another client saves
 * between our first read and our first save, so that save is based on a version that is no longer current.
 */
test('saves with expectedVersion and retries after a 409', async () => {
  const read = () => tessera.GET('/api/boards/{id}', { params: { path: { id: boardId } } });
  const save = (body: components['schemas']['SaveBoardRequest'], headers: Record<string, string> = {}) =>
    tessera.PUT('/api/boards/{id}', { params: { path: { id: boardId } }, body, headers });

  const first = await read();
  assert.equal(first.response.status, 200, first.error?.message);
  const { sections, items, version } = first.data!;
  const otherClient = await save({ expectedVersion: version, sections, items });
  assert.equal(otherClient.response.status, 200, otherClient.error?.message);

  const statuses: number[] = [];
  let attempt = await save({ expectedVersion: version, sections, items }, prefer(409));
  for (let retries = 0; attempt.response.status === 409 && retries < 3; retries += 1) {
    statuses.push(409);
    assert.equal(attempt.error!.code, 'CONFLICT');
    assert.equal(attempt.error!.message, 'This board was modified by another request. Reload the latest board and retry.');
    const fresh = await read();
    assert.equal(fresh.response.status, 200, fresh.error?.message);
    attempt = await save({ expectedVersion: fresh.data!.version, sections: fresh.data!.sections, items: fresh.data!.items });
  }
  statuses.push(attempt.response.status);
  assert.deepEqual(statuses, [409, 200], attempt.error?.message);
  assert.ok(Number.isInteger(attempt.data!.version));
});

test('a missing board is a 404', async () => {
  const { error, response } = await tessera.GET('/api/boards/{id}', { params: { path: { id: 'zq0000000000000000000000' } }, headers: prefer(404) });
  assert.equal(response.status, 404);
  assert.equal(error!.code, 'NOT_FOUND');
  assert.equal(error!.message, 'Board not found');
});

test('a key without board-create gets a 403', async () => {
  const key = await tessera.POST('/api/api-keys', { body: { name: 'mock-first-read-only', scopes: [] } });
  assert.equal(key.response.status, 201, key.error?.message);
  // The key is revoked whatever the assertions say: a failed run must not leave a live key on the server.
  let revoked;
  try {
    const restricted = createTesseraClient({ baseUrl, apiKey: key.data!.apiKey });
    const { error, response } = await restricted.POST('/api/boards', {
      body: { name: `mock-first-denied-${Date.now().toString(36)}`, columnCount: 12, isPublic: false },
      headers: prefer(403),
    });
    assert.equal(response.status, 403);
    assert.equal(error!.code, 'FORBIDDEN');
    assert.equal(error!.message, 'Permission denied');
  } finally {
    revoked = await tessera.DELETE('/api/api-keys/{keyId}', { params: { path: { keyId: key.data!.id } } });
  }
  assert.ok(revoked.response.ok, `the key was not revoked: ${revoked.response.status} ${revoked.error?.message ?? ''}`);
});

/**
 * The tRPC surface (the official client with the superjson transformer): the mock answers each procedure with the
 * example of the REST operation it stands for, in the tRPC envelope; a server runs that operation.
 */
test('a tRPC query and mutation', async () => {
  const trpc = createTRPCUntypedClient({
    links: [httpBatchLink({ url: `${baseUrl}/api/trpc`, transformer: superjson, headers: { ApiKey: apiKey } })],
  });
  const boards = (await trpc.query('board.getAllBoards', undefined)) as { id: string; name: string }[];
  assert.ok(Array.isArray(boards) && boards.length > 0);
  assert.equal(typeof boards[0].id, 'string');
  const { boardId: created } = (await trpc.mutation('board.createBoard', { name: `mock-first-trpc-${Date.now().toString(36)}`, columnCount: 12, isPublic: false })) as {
    boardId: string;
  };
  assert.equal(typeof created, 'string');
  await trpc.mutation('board.deleteBoard', { id: created });
});

/** The MCP surface (the official SDK's client over Streamable HTTP): the tools a server lists, and a tool call. */
test('an MCP tool call', async () => {
  const mcp = new Client({ name: 'mock-first', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), { requestInit: { headers: { ApiKey: apiKey } } }));
  try {
    const { tools } = await mcp.listTools();
    assert.ok(tools.some((tool) => tool.name === 'get_board'));
    const read = await mcp.callTool({ name: 'get_board', arguments: { id: boardId } });
    assert.ok(!read.isError, JSON.stringify(read.content));
    const board = read.structuredContent as { name: unknown; version: unknown };
    assert.equal(typeof board.name, 'string');
    assert.ok(Number.isInteger(board.version));
  } finally {
    await mcp.close();
  }
});
