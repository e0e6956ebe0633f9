/**
 * AUDIT-1, AUDIT-2: the entries of the actions test/ops/metricsAudit.test.ts does not cover, over HTTP on a real
 * database: user and group removals, passwords (CLI), board duplicate, restore and import (none for a dry run or
 * for a restore or import that changes nothing), app and integration permissions, and the MCP surface.
 */
import { runCli } from '../../src/cli/main';
import { createActor } from '../support/actors';
import { clockBoardFile } from '../support/boardFiles';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk } from '../boards-document/helpers';

// MCP_MODE write (AGENT-2): the MCP test below writes through a tool directly.
const server = useTestServer({ MCP_MODE: 'write' });
const adminKeyId = () => server.adminKey.split('.')[0];

async function audit(query: Record<string, string>) {
  return expectOk(await server.call('GET', `/api/audit?${new URLSearchParams(query)}`)) as any[];
}

async function newBoard(name = unique('audit-b-')): Promise<string> {
  return expectOk(await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false } }), 201).boardId;
}

describe('AUDIT-1: users and groups', () => {
  it('AUDIT-1: user.delete, group.member.remove and group.delete over REST; user.password from the CLI (no password in the entry)', async () => {
    const actor = await createActor(server, { permissions: ['board-create'] });
    const groupId = actor.groupId!;
    expectOk(await server.call('DELETE', `/api/groups/${groupId}/members/${actor.userId}`), 204);
    expect(await audit({ action: 'group.member.remove', target: groupId })).toEqual([
      expect.objectContaining({ outcome: 'success', surface: 'rest', actor: expect.objectContaining({ apiKeyId: adminKeyId() }), target: { type: 'group', id: groupId }, details: { userId: actor.userId } }),
    ]);

    await runCli(['users', 'set-password', actor.username, '--password', 'new-password-42'], server.db);
    const [password] = await audit({ action: 'user.password', target: actor.userId });
    expect(password).toMatchObject({ surface: 'cli', target: { type: 'user', id: actor.userId }, actor: { name: 'local-admin' } });
    expect(JSON.stringify(password)).not.toContain('new-password-42');

    expectOk(await server.call('DELETE', `/api/users/${actor.userId}`), 204);
    expect(await audit({ action: 'user.delete', target: actor.userId })).toEqual([expect.objectContaining({ surface: 'rest', target: { type: 'user', id: actor.userId } })]);
    expectOk(await server.call('DELETE', `/api/groups/${groupId}`), 204);
    expect(await audit({ action: 'group.delete', target: groupId })).toEqual([expect.objectContaining({ target: { type: 'group', id: groupId } })]);
  });

  it('AUDIT-3: a refused removal (a user deleting itself) leaves no entry', async () => {
    const before = await audit({ action: 'user.delete' });
    const self = await createActor(server, { permissions: ['admin'] });
    const refused = await server.call('DELETE', `/api/users/${self.userId}`, { key: self.key });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(await audit({ action: 'user.delete' })).toEqual(before);
  });
});

describe('AUDIT-1: boards', () => {
  it('AUDIT-1: board.duplicate names the source', async () => {
    const source = await newBoard();
    const name = unique('audit-copy-');
    const copy = expectOk(await server.call('POST', `/api/boards/${source}/duplicate`, { body: { name } }), 201).boardId;
    expect(await audit({ action: 'board.duplicate', target: copy })).toEqual([
      expect.objectContaining({ target: { type: 'board', id: copy }, details: { sourceBoardId: source, name } }),
    ]);
  });

  it('AUDIT-1: board.restore for a restore that changes the board; none for one that changes nothing (HIST-6)', async () => {
    const boardId = await newBoard();
    const revisions = async () => (expectOk(await server.call('GET', `/api/boards/${boardId}/history?limit=100`)).entries as { revision: number }[]).map((entry) => entry.revision);
    const [created] = await revisions();
    expectOk(await server.call('PATCH', `/api/boards/${boardId}/settings`, { body: { pageTitle: 'changed' } }), 204);
    expectOk(await server.call('POST', `/api/boards/${boardId}/restore`, { body: { revision: created } }));
    expect(await audit({ action: 'board.restore', target: boardId })).toEqual([expect.objectContaining({ target: { type: 'board', id: boardId }, details: { revision: created } })]);
    // The board is as that revision left it again: a second restore writes nothing (no history entry), so no audit entry.
    const written = await revisions();
    expectOk(await server.call('POST', `/api/boards/${boardId}/restore`, { body: { revision: created } }));
    expect(await revisions()).toEqual(written);
    expect(await audit({ action: 'board.restore', target: boardId })).toHaveLength(1);
  });

  it('AUDIT-1: board.import for a created and a replaced board; none for a dry run or an import that changes nothing', async () => {
    const name = unique('audit-import-');
    const before = await audit({ action: 'board.import' });
    expectOk(await server.call('POST', '/api/boards/import?dryRun=true', { body: clockBoardFile(name, 1, { stable: true }) }));
    expect(await audit({ action: 'board.import' })).toEqual(before);

    const created = expectOk(await server.call('POST', '/api/boards/import', { body: clockBoardFile(name, 1, { stable: true }) }), 201);
    expect(await audit({ action: 'board.import', target: created.boardId })).toEqual([
      expect.objectContaining({ target: { type: 'board', id: created.boardId }, details: { name, outcome: 'created', onConflict: 'fail' } }),
    ]);
    const replaced = expectOk(await server.call('POST', '/api/boards/import?onConflict=replace', { body: clockBoardFile(name, 2, { stable: true }) }));
    expect(replaced.outcome).toBe('replaced');
    const unchanged = expectOk(await server.call('POST', '/api/boards/import?onConflict=replace', { body: clockBoardFile(name, 2, { stable: true }) }));
    expect(unchanged.outcome).toBe('unchanged');
    expect((await audit({ action: 'board.import', target: created.boardId })).map((entry) => entry.details.outcome)).toEqual(['replaced', 'created']);
  });
});

describe('AUDIT-1: app and integration permissions', () => {
  it('AUDIT-1: app.permissions and integration.permissions record the grants set', async () => {
    const user = await createActor(server);
    const app = expectOk(await server.call('POST', '/api/apps', { body: { name: unique('audit-app-'), href: 'https://app.example.com', iconUrl: 'https://example.com/i.png' } }), 201);
    const grants = { users: [{ userId: user.userId, permission: 'use' }], groups: [] };
    expectOk(await server.call('PUT', `/api/apps/${app.appId}/permissions`, { body: grants }));
    expect(await audit({ action: 'app.permissions', target: app.appId })).toEqual([
      expect.objectContaining({ surface: 'rest', target: { type: 'app', id: app.appId }, details: grants }),
    ]);

    const integration = expectOk(await server.call('POST', '/api/integrations', { body: { name: unique('audit-int-'), kind: 'jellyfin', url: 'http://jellyfin.internal:8096' } }), 201);
    const integrationId = integration.integrationId ?? integration.id;
    expectOk(await server.call('PUT', `/api/integrations/${integrationId}/permissions`, { body: grants }));
    expect(await audit({ action: 'integration.permissions', target: integrationId })).toEqual([
      expect.objectContaining({ target: { type: 'integration', id: integrationId }, details: grants }),
    ]);

    // Refused (the user may not manage the app's grants): no entry.
    const refused = await server.call('PUT', `/api/apps/${app.appId}/permissions`, { key: user.key, body: { users: [], groups: [] } });
    expect(refused.status).toBe(403);
    expect(await audit({ action: 'app.permissions', target: app.appId })).toHaveLength(1);
  });
});

describe('AUDIT-2: the MCP surface', () => {
  it('AUDIT-2: a change made through an MCP tool is recorded with surface mcp and the caller', async () => {
    const boardId = await newBoard();
    const name = unique('audit-mcp-');
    const answer = await server.call('POST', '/api/mcp', {
      headers: { Accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'rename_board', arguments: { id: boardId, name } } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.result.isError).toBeFalsy();
    expect(await audit({ action: 'board.rename', target: boardId })).toEqual([
      expect.objectContaining({ surface: 'mcp', actor: expect.objectContaining({ apiKeyId: adminKeyId() }), details: { name }, requestId: expect.any(String) }),
    ]);
  });
});
