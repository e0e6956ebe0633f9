import { readFileSync } from 'node:fs';
import path from 'node:path';
import { usableIntegrationIds } from '../../src/integrations/access';
import { integrationKinds } from '../../src/integrations/kinds';
import type { GlobalPermission } from '../../src/identity/permissions';
import { loadPrincipal } from '../../src/identity/principal';
import { Actor, createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { expectError } from '../support/expect';
import { unique } from '../support/unique';

const server = useTestServer();



async function createIntegration(body: Record<string, unknown> = {}, key?: string) {
  return server.call('POST', '/api/integrations', {
    key: key ?? server.adminKey,
    body: { name: unique('Integration'), kind: 'jellyfin', url: 'http://jellyfin.internal:8096', ...body },
  });
}

async function setGrants(id: string, users: { userId: string; permission: string }[], groups: { groupId: string; permission: string }[] = []) {
  const result = await server.call('PUT', `/api/integrations/${id}/permissions`, { body: { users, groups } });
  expect(result.status).toBe(200);
}

describe('POST /api/integrations', () => {
  it('answers 401 without credentials and 403 without integration-create', async () => {
    expectError(await server.call('POST', '/api/integrations', { key: null, body: { name: 'x', kind: 'plex', url: 'http://x' } }), 401, 'UNAUTHORIZED');
    expectError(await server.call('GET', '/api/integrations', { key: null }), 401, 'UNAUTHORIZED');
    const plain = await createActor(server, { permissions: ['integration-use-all'] });
    expectError(await createIntegration({}, plain.key), 403, 'FORBIDDEN', 'Permission denied');
  });

  it('creates an integration and gives its creator a full row', async () => {
    const creator = await createActor(server, { permissions: ['integration-create'] });
    const result = await createIntegration({ name: '  Media  ', kind: 'plex', url: ' https://plex.example.com ' }, creator.key);
    expect(result.status).toBe(201);
    expect(result.body).toEqual({ integrationId: expect.any(String) });
    const id = result.body.integrationId;
    const read = await server.call('GET', `/api/integrations/${id}`, { key: creator.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      id,
      name: 'Media',
      kind: 'plex',
      url: 'https://plex.example.com',
      permissions: { hasUseAccess: true, hasInteractAccess: true, hasFullAccess: true },
      secrets: [],
    });
    const listed = await server.call('GET', '/api/integrations', { key: creator.key });
    expect(listed.body).toEqual([read.body]);
    expect(await server.db('integration_secrets').where({ integrationId: id })).toEqual([]);
  });

  it.each([
    ['an unknown kind', { kind: 'notAKind' }],
    ['an ftp url', { url: 'ftp://files.example.com' }],
    ['a url without scheme', { url: 'jellyfin.internal' }],
    ['a blank name', { name: '   ' }],
    ['a 65-character name', { name: 'n'.repeat(65) }],
    ['a secret property', { apiKey: 'secret' }],
  ])('refuses %s with 400 and writes nothing', async (_label, override) => {
    const before = await server.db('integrations').count({ count: '*' }).first();
    expectError(await createIntegration(override), 400, 'BAD_REQUEST', 'Input validation failed');
    expect(await server.db('integrations').count({ count: '*' }).first()).toEqual(before);
  });

  it('lists the 54 upstream kinds, identical in code and contract', () => {
    expect(integrationKinds).toHaveLength(54);
    const document = JSON.parse(readFileSync(path.join(__dirname, '../../generated/openapi.json'), 'utf8'));
    expect(document.components.schemas.IntegrationKind.enum).toEqual([...integrationKinds]);
  });
});

describe('hasUseAccess agrees with the binding check', () => {
  let integrationId: string;
  beforeAll(async () => {
    integrationId = (await createIntegration({ kind: 'sonarr', name: unique('Shared') })).body.integrationId;
  });

  async function flagsOf(actor: Actor) {
    const listed = await server.call('GET', '/api/integrations', { key: actor.key });
    expect(listed.status).toBe(200);
    const entry = listed.body.find((i: any) => i.id === integrationId);
    const single = await server.call('GET', `/api/integrations/${integrationId}`, { key: actor.key });
    if (entry) expect(single.body).toEqual(entry);
    else expectError(single, 404, 'NOT_FOUND', 'Integration not found');
    return entry?.permissions as { hasUseAccess: boolean; hasInteractAccess: boolean; hasFullAccess: boolean } | undefined;
  }

  async function bindable(actor: Actor, scopes: GlobalPermission[] | null = null) {
    const principal = await loadPrincipal(server.db, actor.userId, { authMethod: 'apiKey', apiKeyId: null, scopes });
    return (await usableIntegrationIds(server.db, principal, [integrationId])).has(integrationId);
  }

  type Case = [string, { permissions?: GlobalPermission[]; userRow?: string; groupRow?: string }, [boolean, boolean, boolean] | null];
  const cases: Case[] = [
    ['no grant at all', {}, null],
    ['an unrelated global permission', { permissions: ['integration-create', 'board-full-all', 'app-full-all'] }, null],
    ['a use user row', { userRow: 'use' }, [true, false, false]],
    ['an interact user row', { userRow: 'interact' }, [true, true, false]],
    ['a full user row', { userRow: 'full' }, [true, true, true]],
    ['a use group row', { permissions: [], groupRow: 'use' }, [true, false, false]],
    ['an interact group row', { permissions: [], groupRow: 'interact' }, [true, true, false]],
    ['a full group row', { permissions: [], groupRow: 'full' }, [true, true, true]],
    ['integration-use-all', { permissions: ['integration-use-all'] }, [true, false, false]],
    ['integration-interact-all', { permissions: ['integration-interact-all'] }, [true, true, false]],
    ['integration-full-all', { permissions: ['integration-full-all'] }, [true, true, true]],
    ['admin', { permissions: ['admin'] }, [true, true, true]],
  ];

  it.each(cases)('%s', async (_label, how, expected) => {
    const actor = await createActor(server, how.permissions ? { permissions: how.permissions } : {});
    const current = await server.call('GET', `/api/integrations/${integrationId}/permissions`);
    const users = current.body.users.concat(how.userRow ? [{ userId: actor.userId, permission: how.userRow }] : []);
    const groups = current.body.groups.concat(how.groupRow ? [{ groupId: actor.groupId, permission: how.groupRow }] : []);
    await setGrants(integrationId, users, groups);

    const flags = await flagsOf(actor);
    if (expected === null) expect(flags).toBeUndefined();
    else expect(flags).toEqual({ hasUseAccess: expected[0], hasInteractAccess: expected[1], hasFullAccess: expected[2] });
    expect(flags?.hasUseAccess ?? false).toBe(await bindable(actor));
  });

  it('a scoped key that drops integration-use-all loses the listing entry and the binding alike', async () => {
    const actor = await createActor(server, { permissions: ['integration-use-all'], scopes: ['board-view-all'] });
    const flags = await flagsOf(actor);
    expect(flags).toBeUndefined();
    expect(await bindable(actor, ['board-view-all'])).toBe(false);
  });
});

describe('listing order and visibility', () => {
  it('sorts by the position of kind in the kind list, then by name', async () => {
    const actor = await createActor(server, { permissions: ['integration-create'] });
    const specs = [
      { kind: 'mock', name: 'A mock' },
      { kind: 'sabNzbd', name: 'Zeta' },
      { kind: 'plex', name: 'b plex' },
      { kind: 'sabNzbd', name: 'Alpha' },
      { kind: 'jellyfin', name: 'jf' },
    ];
    for (const spec of specs) expect((await createIntegration(spec, actor.key)).status).toBe(201);
    const listed = await server.call('GET', '/api/integrations', { key: actor.key });
    expect(listed.body.map((i: any) => `${i.kind}:${i.name}`)).toEqual(['sabNzbd:Alpha', 'sabNzbd:Zeta', 'jellyfin:jf', 'plex:b plex', 'mock:A mock']);
  });

  it('shows a caller only the integrations it has a flag on; integration-use-all sees all', async () => {
    const a = await createActor(server, { permissions: ['integration-create'] });
    const b = await createActor(server, { permissions: ['integration-create'] });
    const idA = (await createIntegration({}, a.key)).body.integrationId;
    const idB = (await createIntegration({}, b.key)).body.integrationId;
    const idsOf = async (actor: Actor) => (await server.call('GET', '/api/integrations', { key: actor.key })).body.map((i: any) => i.id);
    expect(await idsOf(a)).toEqual([idA]);
    expect(await idsOf(b)).toEqual([idB]);
    const all = await createActor(server, { permissions: ['integration-use-all'] });
    expect(await idsOf(all)).toEqual(expect.arrayContaining([idA, idB]));
    expectError(await server.call('GET', `/api/integrations/${idA}`, { key: b.key }), 404, 'NOT_FOUND', 'Integration not found');
    expectError(await server.call('GET', '/api/integrations/missing', { key: all.key }), 404, 'NOT_FOUND', 'Integration not found');
  });
});

describe('DELETE and permissions', () => {
  let owner: Actor;
  let user: Actor;
  let stranger: Actor;
  beforeAll(async () => {
    [owner, user, stranger] = await Promise.all([
      createActor(server, { permissions: ['integration-create'] }),
      createActor(server),
      createActor(server),
    ]);
  });

  async function shared() {
    const id = (await createIntegration({}, owner.key)).body.integrationId as string;
    await setGrants(id, [
      { userId: owner.userId, permission: 'full' },
      { userId: user.userId, permission: 'interact' },
    ]);
    return id;
  }

  it('DELETE: 404 when invisible, 403 without full, 204 with full; bindings go by cascade and the board revision moves', async () => {
    const id = await shared();
    const boardId = unique('board');
    const itemId = unique('item');
    await server.db('boards').insert({ id: boardId, name: boardId });
    await server.db('items').insert({ id: itemId, boardId, kind: 'clock', options: '{}' });
    await server.db('integration_items').insert({ itemId, integrationId: id });

    expectError(await server.call('DELETE', `/api/integrations/${id}`, { key: stranger.key }), 404, 'NOT_FOUND', 'Integration not found');
    expectError(await server.call('DELETE', `/api/integrations/${id}`, { key: user.key }), 403, 'FORBIDDEN', 'Permission denied');
    expect(await server.db('integration_items').where({ integrationId: id })).toHaveLength(1);

    expect((await server.call('DELETE', `/api/integrations/${id}`, { key: owner.key })).status).toBe(204);
    expect(await server.db('integration_items').where({ integrationId: id })).toEqual([]);
    expect(await server.db('items').where({ id: itemId })).toHaveLength(1);
    const board = await server.db('boards').where({ id: boardId }).first();
    expect(board.revision).toBe(1);
    expect(board.version).toBe(0);
    expectError(await server.call('GET', `/api/integrations/${id}`, { key: owner.key }), 404, 'NOT_FOUND', 'Integration not found');
    expectError(await server.call('DELETE', `/api/integrations/${id}`, { key: owner.key }), 404, 'NOT_FOUND', 'Integration not found');
  });

  it('DELETE: integration-full-all deletes any integration', async () => {
    const id = await shared();
    const fullAll = await createActor(server, { permissions: ['integration-full-all'] });
    expect((await server.call('DELETE', `/api/integrations/${id}`, { key: fullAll.key })).status).toBe(204);
  });

  it('PUT permissions: full only; replaces every row; refuses unknown ids and levels', async () => {
    const id = await shared();
    const group = await server.call('POST', '/api/groups', { body: { name: unique('grp') } });
    const body = { users: [{ userId: owner.userId, permission: 'full' }], groups: [{ groupId: group.body.groupId, permission: 'use' }] };
    expectError(await server.call('PUT', `/api/integrations/${id}/permissions`, { key: stranger.key, body }), 404, 'NOT_FOUND', 'Integration not found');
    expectError(await server.call('PUT', `/api/integrations/${id}/permissions`, { key: user.key, body }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('GET', `/api/integrations/${id}/permissions`, { key: user.key }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(
      await server.call('PUT', `/api/integrations/${id}/permissions`, { key: owner.key, body: { users: [{ userId: 'ghost', permission: 'use' }], groups: [] } }),
      400,
      'BAD_REQUEST',
      'Unknown user ids: ghost',
    );
    expectError(
      await server.call('PUT', `/api/integrations/${id}/permissions`, { key: owner.key, body: { users: [{ userId: user.userId, permission: 'modify' }], groups: [] } }),
      400,
      'BAD_REQUEST',
      'Input validation failed',
    );
    const replaced = await server.call('PUT', `/api/integrations/${id}/permissions`, { key: owner.key, body });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual(body);
    expect((await server.call('GET', `/api/integrations/${id}/permissions`, { key: owner.key })).body).toEqual(body);
    expectError(await server.call('GET', `/api/integrations/${id}`, { key: user.key }), 404, 'NOT_FOUND', 'Integration not found');
  });
});
