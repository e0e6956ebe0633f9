import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createActor, type Actor } from '../support/actors';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectError, expectOk } from '../boards-document/helpers';
import { clockBoardFile } from '../support/boardFiles';

/** Owned `managedBy` labels (FLEET-13..15): no squat, no relabel by others, admins transfer and release. */
const server = useTestServer();

const ownedBy = (label: string, whose = 'another user') => `Label ${label} belongs to ${whose}: only its owner or an admin may write boards under it`;
const applySet = (actor: Actor | null, body: unknown, query = '') => server.call('POST', `/api/boards/apply${query}`, actor ? { body, key: actor.key } : { body });
const importFile = (actor: Actor | null, file: unknown, query = '') => server.call('POST', `/api/boards/import${query}`, actor ? { body: file, key: actor.key } : { body: file });
const boardByName = async (name: string) => server.db('boards').whereRaw('lower(name) = lower(?)', [name]).first('id', 'managedBy');
const labelPath = (label: string) => `/api/boards/labels/${encodeURIComponent(label)}/owner`;
const labelled = (name: string, managedBy: string | null, isPublic = false) => ({ ...clockBoardFile(name), isPublic, managedBy });
const grantFull = (boardId: string, actor: Actor) => server.db('board_user_permissions').insert({ boardId, userId: actor.userId, permission: 'full' });

/** A team owning a label (its first set apply claimed it) with two boards, and a squatter that may create boards. */
async function teamAndSquatter() {
  const team = await createActor(server, { permissions: ['board-create'] });
  const squatter = await createActor(server, { permissions: ['board-create'] });
  const label = unique('github.com/example/team-');
  const files = [clockBoardFile(unique('t1-')), clockBoardFile(unique('t2-'))];
  expectOk(await applySet(team, { managedBy: label, boards: files }, '?prune=true'));
  return { team, squatter, label, files };
}

describe('a label belongs to its first applier (FLEET-13, FLEET-14)', () => {
  it('FLEET-14: a squat through the import (a public board under another team\'s label) is a 403 and never exists; the team\'s pruning apply still passes', async () => {
    const { team, squatter, label, files } = await teamAndSquatter();
    const squat = labelled(unique('squat-'), label, true);
    for (const query of ['?dryRun=true', '']) {
      const refused = await importFile(squatter, squat, query);
      expectError(refused, 403, 'FORBIDDEN', ownedBy(label));
      expect(refused.body.data).toEqual({ managedBy: label, owner: 'user' });
    }
    expect(await boardByName(squat.name)).toBeUndefined();
    const plan = expectOk(await applySet(team, { managedBy: label, boards: files }, '?prune=true'));
    expect(plan.summary).toMatchObject({ delete: 0, unchanged: 2 });
  });

  it('FLEET-14: a squat through a set apply is a 403 naming the label; nothing written; the owner applies as before', async () => {
    const { team, squatter, label, files } = await teamAndSquatter();
    const squat = clockBoardFile(unique('squat-'));
    for (const query of ['?dryRun=true', '?prune=true']) expectError(await applySet(squatter, { managedBy: label, boards: [squat] }, query), 403, 'FORBIDDEN', ownedBy(label));
    expect(await boardByName(squat.name)).toBeUndefined();
    for (const file of files) expect((await boardByName(file.name)).managedBy).toBe(label);
    expectOk(await applySet(team, { managedBy: label, boards: files }, '?prune=true'));
  });

  it('FLEET-14: relabel both ways through the import: another user may not move a board onto or off the label, the owner and an admin may', async () => {
    const { team, squatter, label, files } = await teamAndSquatter();
    // The squatter's own board cannot be moved onto the team's label.
    const own = labelled(unique('own-'), null);
    expectOk(await importFile(squatter, own), 201);
    expectError(await importFile(squatter, { ...own, managedBy: label }, '?onConflict=replace'), 403, 'FORBIDDEN', ownedBy(label));
    expect((await boardByName(own.name)).managedBy).toBeNull();
    // With full access to a team board, the squatter still cannot unlabel it or give it its own label.
    const teamBoard = await boardByName(files[0].name);
    await grantFull(teamBoard.id, squatter);
    expectError(await importFile(squatter, labelled(files[0].name, null), '?onConflict=replace'), 403, 'FORBIDDEN', ownedBy(label));
    expectError(await importFile(squatter, labelled(files[0].name, unique('mine-')), '?onConflict=replace'), 403, 'FORBIDDEN', ownedBy(label));
    expect((await boardByName(files[0].name)).managedBy).toBe(label);
    // Keeping the label is an ordinary edit, which full access allows.
    expectOk(await importFile(squatter, { ...labelled(files[0].name, label), settings: { pageTitle: 'edited' } }, '?onConflict=replace'));
    // The owner may move its board off its label and back; an admin may relabel anything.
    expectOk(await importFile(team, labelled(files[1].name, null), '?onConflict=replace'));
    expect((await boardByName(files[1].name)).managedBy).toBeNull();
    expectOk(await importFile(team, labelled(files[1].name, label), '?onConflict=replace'));
    expectOk(await importFile(null, labelled(own.name, label), '?onConflict=replace'));
    expect((await boardByName(own.name)).managedBy).toBe(label);
  });

  it('FLEET-13: a label nobody owns is claimed by its first writer, the import included', async () => {
    const first = await createActor(server, { permissions: ['board-create'] });
    const second = await createActor(server, { permissions: ['board-create'] });
    const label = unique('fresh-label-');
    expectOk(await importFile(first, labelled(unique('claim-'), label)), 201);
    expectError(await applySet(second, { managedBy: label, boards: [clockBoardFile(unique('late-'))] }), 403, 'FORBIDDEN', ownedBy(label));
    expectOk(await applySet(first, { managedBy: label, boards: [clockBoardFile(unique('more-'))] }));
    // A dry run claims nothing.
    const other = unique('dry-label-');
    expectOk(await applySet(second, { managedBy: other, boards: [clockBoardFile(unique('d-'))] }, '?dryRun=true'));
    expectOk(await applySet(first, { managedBy: other, boards: [clockBoardFile(unique('d-'))] }, '?dryRun=true'));
  });

  it("FLEET-13: provisioning's labels are provisioning's: a user's import or set under one is a 403", async () => {
    const user = await createActor(server, { permissions: ['board-create'] });
    const label = unique('provisioning:boards-');
    await server.db('board_labels').insert({ label, ownerKind: 'provisioning', ownerUserId: null });
    expectError(await importFile(user, labelled(unique('p-'), label)), 403, 'FORBIDDEN', ownedBy(label, 'provisioning'));
    expectError(await applySet(user, { managedBy: label, boards: [clockBoardFile(unique('p-'))] }), 403, 'FORBIDDEN', ownedBy(label, 'provisioning'));
  });

  it('FLEET-14: the MCP tools import_board and apply_boards go through the same check', async () => {
    const { squatter, label } = await teamAndSquatter();
    const client = new Client({ name: 'tessera-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.directUrl}/api/mcp`), { requestInit: { headers: { ApiKey: squatter.key } } }));
    try {
      const squat = labelled(unique('mcp-squat-'), label, true);
      const imported = await client.callTool({ name: 'import_board', arguments: { ...squat } });
      expect(imported.isError).toBe(true);
      expect(imported.structuredContent).toEqual({ message: ownedBy(label), code: 'FORBIDDEN', data: { managedBy: label, owner: 'user' } });
      const applied = await client.callTool({ name: 'apply_boards', arguments: { managedBy: label, boards: [clockBoardFile(unique('mcp-'))] } });
      expect(applied.isError).toBe(true);
      expect((applied.structuredContent as any).message).toBe(ownedBy(label));
      expect(await boardByName(squat.name)).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe('the other board writers never write a label (FLEET-14)', () => {
  it('FLEET-14: tRPC board.duplicateBoard (and REST duplicate, the same service) copies a labelled board without its label', async () => {
    const { squatter, files } = await teamAndSquatter();
    const source = await boardByName(files[0].name);
    await server.db('board_user_permissions').insert({ boardId: source.id, userId: squatter.userId, permission: 'view' });
    const name = unique('copy-');
    const answer = await server.call('POST', '/api/trpc/board.duplicateBoard', { key: squatter.key, body: { json: { id: source.id, name } } });
    expect(answer.status).toBe(200);
    expect((await boardByName(name)).managedBy).toBeNull();
    const rest = unique('copy-');
    expectOk(await server.call('POST', `/api/boards/${source.id}/duplicate`, { key: squatter.key, body: { name: rest } }), 201);
    expect((await boardByName(rest)).managedBy).toBeNull();
  });
});

describe('admins list, transfer and release labels (FLEET-15)', () => {
  it('FLEET-15: GET lists the owner and board count; PUT transfers (the new owner applies, the old one is refused); DELETE releases to the next applier', async () => {
    const { team, squatter, label, files } = await teamAndSquatter();
    const listed = expectOk(await server.call('GET', '/api/boards/labels')).labels.find((l: any) => l.label === label);
    expect(listed).toMatchObject({ label, owner: { kind: 'user', userId: team.userId, username: team.username }, boards: 2 });

    const moved = expectOk(await server.call('PUT', labelPath(label), { body: { userId: squatter.userId } }));
    expect(moved).toMatchObject({ label, owner: { kind: 'user', userId: squatter.userId, username: squatter.username }, boards: 2 });
    expectError(await applySet(team, { managedBy: label, boards: files }), 403, 'FORBIDDEN', ownedBy(label));
    // The new owner applies; boards it cannot see are left alone (FLEET-6).
    expectOk(await applySet(squatter, { managedBy: label, boards: [clockBoardFile(unique('new-'))] }));

    expect((await server.call('DELETE', labelPath(label))).status).toBe(204);
    expect((await server.call('DELETE', labelPath(label))).status).toBe(204);
    expect(expectOk(await server.call('GET', '/api/boards/labels')).labels.find((l: any) => l.label === label)).toMatchObject({ owner: null, claimedAt: null, boards: 3 });
    expectOk(await applySet(team, { managedBy: label, boards: files }));
    expectError(await applySet(squatter, { managedBy: label, boards: [clockBoardFile(unique('x-'))] }), 403, 'FORBIDDEN', ownedBy(label));
  });

  it('FLEET-15: only admins: 403 for others, 404 for an unknown user, 400 for a bad body; nothing changes', async () => {
    const { team, squatter, label } = await teamAndSquatter();
    expectError(await server.call('GET', '/api/boards/labels', { key: team.key }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('PUT', labelPath(label), { key: squatter.key, body: { userId: squatter.userId } }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('DELETE', labelPath(label), { key: squatter.key }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('PUT', labelPath(label), { body: { userId: 'nouser0000000000000000000' } }), 404, 'NOT_FOUND', 'User not found');
    expectError(await server.call('PUT', labelPath(label), { body: { user: team.userId } }), 400, 'BAD_REQUEST');
    expect(expectOk(await server.call('GET', '/api/boards/labels')).labels.find((l: any) => l.label === label).owner.userId).toBe(team.userId);
  });
});
