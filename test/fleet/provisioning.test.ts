import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { useTestServer, type TestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectError, expectOk } from '../boards-document/helpers';
import { clockBoardFile } from '../support/boardFiles';
import { eventually } from '../support/eventually';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const boardFile = (name: string, clocks = 2) => clockBoardFile(name, clocks, { stable: true });

/** Directories made before the servers start (their environment names them). */
const root = mkdtempSync(path.join(os.tmpdir(), 'tessera-prov-'));
const lockedDir = path.join(root, 'boards');
const openDir = path.join(root, 'open');
mkdirSync(lockedDir);
mkdirSync(openDir);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const write = (dir: string, name: string, content: unknown) => writeFileSync(path.join(dir, `${name}.yaml`), typeof content === 'string' ? content : toYaml(content));
const homeName = unique('home-');
const openName = unique('open-');
write(lockedDir, homeName, boardFile(homeName));
write(openDir, openName, boardFile(openName));
const configFile = path.join(root, 'provisioning.yaml');
writeFileSync(configFile, toYaml({ sources: [{ path: 'open', managedBy: 'team-open', prune: true, allowApiUpdates: true }] }));

// MCP_MODE write (AGENT-2): PROV-5's MCP refusal is of the write itself (a proposal's dry run does not check the lock).
const locked = useTestServer({ PROVISIONING_DIR: lockedDir, PROVISIONING_DEBOUNCE_MS: '100', MCP_MODE: 'write' });
const open = useTestServer({ PROVISIONING_CONFIG: configFile, PROVISIONING_DEBOUNCE_MS: '100' });

const boardNamed = async (server: TestServer, name: string) => server.db('boards').whereRaw('lower(name) = lower(?)', [name]).first('id', 'version', 'managedBy');
const documentOf = async (server: TestServer, name: string) => expectOk(await server.call('GET', `/api/boards/by-name/${name}`));
/** PROV-7: the servers apply their directories once they listen: the tests start when they have and watch them. */
beforeAll(async () => {
  for (const server of [locked, open]) await server.provisioning;
});
const statusOf = async (server: TestServer) => expectOk(await server.call('GET', '/api/provisioning')).sources;

describe('provisioning from a directory (PROV-*)', () => {
  it('PROV-1, PROV-3: the directory is applied once the server listens (PROV-7); its status says so', async () => {
    const board = await eventually(async () => {
      const found = await boardNamed(locked, homeName);
      expect(found).toBeDefined();
      return found;
    });
    expect(board.managedBy).toBe('provisioning:boards');
    expect((await documentOf(locked, homeName)).items).toHaveLength(2);
    const [status] = await statusOf(locked);
    expect(status).toMatchObject({ managedBy: 'provisioning:boards', path: lockedDir, prune: true, allowApiUpdates: false, ok: true, boards: 1, problems: [], refused: [] });
    const [entry] = expectOk(await locked.call('GET', `/api/boards/${board.id}/history`)).entries;
    expect(entry).toMatchObject({ operation: 'provisioning', origin: { managedBy: 'provisioning:boards', commit: null } });
  });

  it('PROV-2: a changed, an added and a removed file are applied (debounced); prune removes the board of a removed file', async () => {
    write(lockedDir, homeName, boardFile(homeName, 3));
    const extra = unique('extra-');
    write(lockedDir, extra, boardFile(extra, 1));
    await eventually(async () => expect((await documentOf(locked, homeName)).items).toHaveLength(3));
    await eventually(async () => expect(await boardNamed(locked, extra)).toBeDefined());
    unlinkSync(path.join(lockedDir, `${extra}.yaml`));
    await eventually(async () => expect(await boardNamed(locked, extra)).toBeUndefined());
    expect((await statusOf(locked))[0]).toMatchObject({ ok: true, boards: 1 });
  });

  it('PROV-3: a broken file keeps the last good state and is reported with its file and line; fixing it applies again', async () => {
    const before = await documentOf(locked, homeName);
    const broken = unique('broken-');
    write(lockedDir, broken, 'apiVersion: tessera/v1\nkind: Board\nname: [unclosed\n');
    write(lockedDir, homeName, boardFile(homeName, 1));
    const status = await eventually(async () => {
      const [s] = await statusOf(locked);
      expect(s.ok).toBe(false);
      return s;
    });
    expect(status.problems).toEqual([{ file: path.join(lockedDir, `${broken}.yaml`), line: expect.any(Number), message: expect.any(String) }]);
    expect((await documentOf(locked, homeName)).version).toBe(before.version);
    expect(await boardNamed(locked, broken)).toBeUndefined();

    // A file the board file schema refuses is reported too.
    write(lockedDir, broken, { apiVersion: 'tessera/v1', kind: 'Board', name: broken, layouts: [] });
    await eventually(async () => expect((await statusOf(locked))[0].problems[0].message).toContain('Input validation failed'));

    unlinkSync(path.join(lockedDir, `${broken}.yaml`));
    await eventually(async () => expect((await statusOf(locked))[0].ok).toBe(true));
    expect((await documentOf(locked, homeName)).items).toHaveLength(1);
  });

  it('PROV-5: allowApiUpdates false: writes through REST and tRPC are refused with a 409 naming the file; grants may change', async () => {
    const doc = await documentOf(locked, homeName);
    // The file by its name in the directory and the source's label: never the server's path (any writer reads it).
    const file = `${homeName}.yaml`;
    const message = `Board is provisioned from ${file} of provisioning:boards; change that file instead (allowApiUpdates is false)`;
    const refused = await locked.call('PUT', `/api/boards/${doc.id}`, { body: { sections: doc.sections, items: [] } });
    expectError(refused, 409, 'CONFLICT', message);
    expect(refused.body.data).toEqual({ file, source: 'provisioning:boards' });
    expect(JSON.stringify(refused.body)).not.toContain(lockedDir);
    expectError(await locked.call('PATCH', `/api/boards/${doc.id}/settings`, { body: { pageTitle: 'x' } }), 409, 'CONFLICT', message);
    expectError(await locked.call('DELETE', `/api/boards/${doc.id}`), 409, 'CONFLICT', message);
    expectError(await locked.call('PATCH', `/api/boards/${doc.id}/name`, { body: { name: unique('renamed-') } }), 409, 'CONFLICT', message);
    const trpc = await locked.call('POST', '/api/trpc/board.saveBoard', { body: { json: { id: doc.id, sections: doc.sections, items: [] } } });
    expect(trpc.status).toBe(409);
    expect(trpc.body.error.json).toMatchObject({ message, data: { code: 'CONFLICT', httpStatus: 409, path: 'board.saveBoard' } });

    // MCP: the tool answers the same 409 as an error result.
    const mcp = new Client({ name: 'tessera-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${locked.directUrl}/api/mcp`), { requestInit: { headers: { ApiKey: locked.adminKey } } }));
    try {
      const tool = await mcp.callTool({ name: 'save_board', arguments: { id: doc.id, sections: doc.sections, items: [] } });
      expect(tool.isError).toBe(true);
      expect(tool.structuredContent).toEqual({ message, code: 'CONFLICT', data: { file, source: 'provisioning:boards' } });
    } finally {
      await mcp.close();
    }

    // A set apply under the source's own label is another writer too: 409 naming the board (FLEET-4), nothing written.
    const edited = { ...boardFile(homeName, 3) };
    const viaSet = await locked.call('POST', '/api/boards/apply', { body: { managedBy: 'provisioning:boards', boards: [edited] } });
    expectError(viaSet, 409, 'CONFLICT', `Board ${homeName}: ${message}`);
    expect(viaSet.body.data).toEqual({ file, source: 'provisioning:boards', board: homeName });
    const pruned = await locked.call('POST', '/api/boards/apply?prune=true', { body: { managedBy: 'provisioning:boards', boards: [] } });
    expectError(pruned, 409, 'CONFLICT', `Board ${homeName}: ${message}`);
    expect((await documentOf(locked, homeName)).version).toBe(doc.version);

    const grantee = expectOk(await locked.call('POST', '/api/users', { body: { username: unique('viewer'), password: 'password-123' } }), 201);
    expectOk(await locked.call('PUT', `/api/boards/${doc.id}/permissions`, { body: { users: [{ userId: grantee.userId, permission: 'view' }], groups: [] } }));
  });

  it('PROV-5, DRIFT-1, DRIFT-2: allowApiUpdates true: an API edit is allowed and shows as drift until the file is applied again', async () => {
    const doc = await documentOf(open, openName);
    expect(doc.managedBy).toBe('team-open');
    expect(expectOk(await open.call('GET', '/api/boards?drifted=true'))).toEqual([]);
    const drift0 = expectOk(await open.call('GET', `/api/boards/${doc.id}/drift`));
    expect(drift0).toMatchObject({ boardId: doc.id, managedBy: 'team-open', file: `${openName}.yaml`, drifted: false });
    expect(drift0.changes.items).toEqual({ added: [], removed: [], updated: [] });

    const [first] = doc.items;
    expectOk(await open.call('PATCH', `/api/boards/${doc.id}/items/${first.id}`, { body: { options: { is24HourFormat: false } } }));
    expect(expectOk(await open.call('GET', '/api/boards?drifted=true')).map((b: any) => b.id)).toEqual([doc.id]);
    const drift = expectOk(await open.call('GET', `/api/boards/${doc.id}/drift`));
    expect(drift).toMatchObject({ drifted: true, changes: { items: { added: [], removed: [], updated: [first.id] } } });

    write(openDir, openName, boardFile(openName, 2));
    writeFileSync(path.join(openDir, `${openName}.yaml`), toYaml({ ...boardFile(openName, 2), settings: { pageTitle: 'Applied again' } }));
    await eventually(async () => expect((await documentOf(open, openName)).pageTitle).toBe('Applied again'));
    expect(expectOk(await open.call('GET', '/api/boards?drifted=true'))).toEqual([]);
    expect(expectOk(await open.call('GET', `/api/boards/${doc.id}/drift`)).changes.items.updated).toEqual([]);
  });

  it('FLEET-9: a file exported with its source is provisioned again after provisioning and a hand edit moved the board', async () => {
    const doc = await documentOf(open, openName);
    const exported = expectOk(await open.call('GET', `/api/boards/${doc.id}/export`));
    expect(exported.source).toMatchObject({ boardId: doc.id });
    write(openDir, openName, { ...exported, settings: { ...exported.settings, pageTitle: 'Exported once' } });
    await eventually(async () => expect((await documentOf(open, openName)).pageTitle).toBe('Exported once'));
    const [first] = doc.items;
    expectOk(await open.call('PATCH', `/api/boards/${doc.id}/items/${first.id}`, { body: { options: { is24HourFormat: false } } }));
    expect(expectOk(await open.call('GET', `/api/boards/${doc.id}/drift`))).toMatchObject({ drifted: true, changes: { items: { updated: [first.id] } } });
    write(openDir, openName, { ...exported, settings: { ...exported.settings, pageTitle: 'Exported twice' } });
    await eventually(async () => expect((await documentOf(open, openName)).pageTitle).toBe('Exported twice'));
    expect((await statusOf(open))[0]).toMatchObject({ ok: true, problems: [] });
    expect(expectOk(await open.call('GET', `/api/boards/${doc.id}/drift`))).toMatchObject({ drifted: false, changes: { items: { updated: [] } } });
  });

  it('DRIFT-1: a file that does not parse now is a 409 naming it by its name in its directory and its source, not by its path', async () => {
    const doc = await documentOf(open, openName);
    const good = toYaml(boardFile(openName, 2));
    write(openDir, openName, 'apiVersion: tessera/v1\nkind: Board\nname: [unclosed\n');
    await eventually(async () => expect((await statusOf(open))[0].ok).toBe(false));
    const refused = await open.call('GET', `/api/boards/${doc.id}/drift`);
    expectError(refused, 409, 'CONFLICT');
    expect(refused.body.message).toMatch(new RegExp(`^Board file cannot be read: ${openName}\\.yaml of team-open: `));
    expect(refused.body.data).toMatchObject({ file: `${openName}.yaml`, source: 'team-open', line: expect.any(Number) });
    expect(JSON.stringify(refused.body)).not.toContain(openDir);
    write(openDir, openName, good);
    await eventually(async () => expect((await statusOf(open))[0].ok).toBe(true));
  });

  it('DRIFT-1: a board no provisioning wrote is a 404', async () => {
    const { boardId } = expectOk(await open.call('POST', '/api/boards', { body: { name: unique('plain-'), columnCount: 12, isPublic: false } }), 201);
    expectError(await open.call('GET', `/api/boards/${boardId}/drift`), 404, 'NOT_FOUND', 'Board is not provisioned');
  });

  const onPostgres = process.env.TEST_DATABASE_URL ? it : it.skip;
  onPostgres('PROV-6: two instances on one PostgreSQL: one applies a change, the other finds nothing to do; both answer the result', async () => {
    const sibling = await locked.startSibling();
    try {
      await sibling.provisioning;
      const board = await boardNamed(locked, homeName);
      const entries = async () => expectOk(await locked.call('GET', `/api/boards/${board.id}/history?limit=500`)).entries;
      const before = (await entries()).length;
      write(lockedDir, homeName, { ...boardFile(homeName, 1), settings: { pageTitle: 'Both instances' } });
      await eventually(async () => expect(expectOk(await sibling.call('GET', `/api/boards/${board.id}`)).pageTitle).toBe('Both instances'));
      await eventually(async () => expect((await statusOf(locked))[0].summary).toMatchObject({ unchanged: 1 }));
      expect((await entries()).length).toBe(before + 1);
    } finally {
      await sibling.stop();
    }
  });
});
