import { unique } from '../support/unique';
import { loadIntegrationAccess } from '../../src/integrations/access';
import { loadPrincipal } from '../../src/identity/principal';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { createBoard, createIntegration, emptySection, expectError, expectOk, grantIntegration, item, readContent } from './helpers';

const server = useTestServer();

const put = (boardId: string, body: unknown, key?: string) => server.call('PUT', `/api/boards/${boardId}`, key === undefined ? { body } : { body, key });

/** A board the editor may modify (a user row), with the editor lacking any integration grant. */
async function setup() {
  const editor = await createActor(server);
  const board = await createBoard(server);
  await server.db('board_user_permissions').insert({ boardId: board.boardId, userId: editor.userId, permission: 'modify' });
  return { editor, board };
}

describe('binding integrations to items', () => {
  it('BIND-1: modify permission on the board is not enough to add a binding (403, nothing written)', async () => {
    const { editor, board } = await setup();
    const a = await createIntegration(server);
    const b = await createIntegration(server);
    const result = await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [item(unique('it'), [], { integrationIds: [a, b] })] }, editor.key);
    expectError(result, 403, 'FORBIDDEN', `No access to integrations: ${a}, ${b}`);
    expect(await server.db('items').where({ boardId: board.boardId })).toHaveLength(0);
    expect((await readContent(server, board.boardId)).doc.version).toBe(0);
  });

  it('BIND-2: only ids not yet bound anywhere on the board are checked', async () => {
    const { editor, board } = await setup();
    const bound = await createIntegration(server);
    const fresh = await createIntegration(server);
    const first = item(unique('first'), [], { integrationIds: [bound] });
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [first] }));
    const second = item(unique('second'), [], { integrationIds: [bound] });
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [first, second] }, editor.key));
    const third = item(unique('third'), [], { integrationIds: [bound, fresh] });
    expectError(
      await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [first, second, third] }, editor.key),
      403,
      'FORBIDDEN',
      `No access to integrations: ${fresh}`,
    );
  });

  it('BIND-3: existing bindings survive a save by a user without a grant', async () => {
    const { editor, board } = await setup();
    const integrationId = await createIntegration(server);
    const bound = item(unique('bound'), [], { integrationIds: [integrationId] });
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [bound] }));
    const { sections, items } = await readContent(server, board.boardId);
    const doc = expectOk(await put(board.boardId, { sections, items: [...items, item(unique('plain'), [])] }, editor.key));
    expect(doc.items.find((i: any) => i.id === bound.id).integrationIds).toEqual([integrationId]);
  });

  it('BIND-4: moving a binding between items of the board is not re-checked', async () => {
    const { editor, board } = await setup();
    const integrationId = await createIntegration(server);
    const from = item(unique('from'), [], { integrationIds: [integrationId] });
    const to = item(unique('to'), []);
    expectOk(await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [from, to] }));
    const doc = expectOk(
      await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [{ ...from, integrationIds: [] }, { ...to, integrationIds: [integrationId] }] }, editor.key),
    );
    expect(doc.items.find((i: any) => i.id === from.id).integrationIds).toEqual([]);
    expect(doc.items.find((i: any) => i.id === to.id).integrationIds).toEqual([integrationId]);
  });

  it('BIND-5: a direct grant, a group grant or a global integration permission qualifies', async () => {
    const { editor, board } = await setup();
    const direct = await createIntegration(server);
    const viaGroup = await createIntegration(server);
    await grantIntegration(server, direct, editor.userId, 'use');
    const member = await createActor(server, { permissions: [] });
    await server.db('board_user_permissions').insert({ boardId: board.boardId, userId: member.userId, permission: 'modify' });
    await server.db('integration_group_permissions').insert({ integrationId: viaGroup, groupId: member.groupId, permission: 'interact' });
    const global = await createActor(server, { permissions: ['integration-use-all'] });
    await server.db('board_user_permissions').insert({ boardId: board.boardId, userId: global.userId, permission: 'modify' });
    const anyIntegration = await createIntegration(server);

    const s = [emptySection(board.sectionId)];
    const one = item(unique('one'), [], { integrationIds: [direct] });
    expectOk(await put(board.boardId, { sections: s, items: [one] }, editor.key));
    const two = item(unique('two'), [], { integrationIds: [viaGroup] });
    expectOk(await put(board.boardId, { sections: s, items: [one, two] }, member.key));
    const three = item(unique('three'), [], { integrationIds: [anyIntegration] });
    expectOk(await put(board.boardId, { sections: s, items: [one, two, three] }, global.key));
  });

  it('BIND-5: seeing an integration through a viewable board does not qualify', async () => {
    const { editor, board } = await setup();
    const integrationId = await createIntegration(server);
    const publicBoard = await createBoard(server, { isPublic: true });
    expectOk(await put(publicBoard.boardId, { sections: [emptySection(publicBoard.sectionId)], items: [item(unique('pub'), [], { integrationIds: [integrationId] })] }));
    expect((await readContent(server, publicBoard.boardId)).items[0].integrationIds).toEqual([integrationId]);
    expectError(
      await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [item(unique('copy'), [], { integrationIds: [integrationId] })] }, editor.key),
      403,
      'FORBIDDEN',
      `No access to integrations: ${integrationId}`,
    );
  });

  it('BIND-6: hasUseAccess of the shared integration access rule decides (false cannot be bound, true can)', async () => {
    const { editor, board } = await setup();
    const integrationId = await createIntegration(server);
    const principal = (await loadPrincipal(server.db, editor.userId, { authMethod: 'apiKey', apiKeyId: null, scopes: null }))!;
    expect((await loadIntegrationAccess(server.db, principal, [integrationId])).get(integrationId)!.hasUseAccess).toBe(false);
    const body = { sections: [emptySection(board.sectionId)], items: [item(unique('it'), [], { integrationIds: [integrationId] })] };
    expectError(await put(board.boardId, body, editor.key), 403, 'FORBIDDEN');
    await grantIntegration(server, integrationId, editor.userId, 'use');
    expect((await loadIntegrationAccess(server.db, principal, [integrationId])).get(integrationId)!.hasUseAccess).toBe(true);
    expectOk(await put(board.boardId, body, editor.key));
  });

  it('checks in order: unknown ids (400), ids of another board (409), then access (403)', async () => {
    const { editor, board } = await setup();
    const other = await createBoard(server);
    const integrationId = await createIntegration(server);
    const s = [emptySection(board.sectionId)];
    expectError(
      await put(board.boardId, { sections: s, items: [item(unique('a'), [], { integrationIds: [integrationId, 'ghost'] })] }, editor.key),
      400,
      'BAD_REQUEST',
      'Invalid integration IDs: ghost',
    );
    expectError(
      await put(board.boardId, { sections: [...s, emptySection(other.sectionId, 1)], items: [item(unique('b'), [], { integrationIds: [integrationId] })] }, editor.key),
      409,
      'CONFLICT',
      `Ids already used on another board: ${other.sectionId}`,
    );
  });
});

describe('a flood of integration ids', () => {
  it('70,000 distinct unknown ids are a small 400 (not a 503 from too many bind parameters)', async () => {
    const board = await createBoard(server);
    const ids = Array.from({ length: 70_000 }, (_, i) => `unknown-integration-${i}`);
    const perItem = 64; // IntegrationIdList maxItems
    const items = Array.from({ length: Math.ceil(ids.length / perItem) }, (_, i) =>
      item(`flood${i}`, [], { integrationIds: ids.slice(i * perItem, (i + 1) * perItem) }),
    );
    const result = await put(board.boardId, { sections: [emptySection(board.sectionId)], items });
    expectError(result, 400, 'BAD_REQUEST', `Invalid integration IDs: ${ids.slice(0, 20).join(', ')} … and 69980 more`);
    expect(result.body.message.length).toBeLessThan(2048);
    expect(result.body.data).toEqual({ integrationIds: ids.slice(0, 20), count: 70_000 });
    expect(await server.db('items').where({ boardId: board.boardId })).toHaveLength(0);
  }, 60_000);

  it('caps the refused ids of a 403 the same way', async () => {
    const { editor, board } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await createIntegration(server));
    const result = await put(board.boardId, { sections: [emptySection(board.sectionId)], items: [item(unique('it'), [], { integrationIds: ids })] }, editor.key);
    expectError(result, 403, 'FORBIDDEN', `No access to integrations: ${ids.slice(0, 20).join(', ')} … and 5 more`);
    expect(result.body.data).toEqual({ integrationIds: ids.slice(0, 20), count: 25 });
  });
});

