import { vouchExistingPlacements } from '../../src/db/migrations/0004_app_placements';
import { Actor, createActor } from '../support/actors';
import { expectError } from '../support/expect';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { createBoard, emptySection, expectOk, grantBoard, item, position, TestBoard } from '../boards-document/helpers';

const server = useTestServer();
let alice: Actor; // holds `full` on the apps she creates
let bob: Actor; // no access to alice's apps
let carol: Actor; // another authenticated caller without access
beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([
    createActor(server, { permissions: ['app-create', 'board-create'] }),
    createActor(server, { permissions: ['board-create'] }),
    createActor(server),
  ]);
});

async function aliceApp(): Promise<string> {
  const created = await server.call('POST', '/api/apps', {
    key: alice.key,
    body: { name: unique('Secret'), iconUrl: 'https://cdn.example.com/i.svg', href: 'https://secret.example.com', pingUrl: 'https://secret.example.com/ping' },
  });
  expect(created.status).toBe(201);
  return created.body.appId;
}

const publicBoard = (owner: Actor) => createBoard(server, { isPublic: true, creatorId: owner.userId });

const appWidget = (board: TestBoard, appId: string, id = unique('item')) =>
  item(id, [position(board.layoutId, board.sectionId)], { kind: 'app', options: { appId } });

const put = (board: TestBoard, actor: Actor, items: unknown[]) =>
  server.call('PUT', `/api/boards/${board.boardId}`, { key: actor.key, body: { sections: [emptySection(board.sectionId)], items } });

const patchItem = (board: TestBoard, itemId: string, actor: Actor, body: unknown) =>
  server.call('PATCH', `/api/boards/${board.boardId}/items/${itemId}`, { key: actor.key, body });

async function expectHidden(appId: string) {
  for (const key of [null, carol.key, bob.key]) {
    expectError(await server.call('GET', `/api/apps/${appId}`, { key }), 404, 'NOT_FOUND', 'App not found');
  }
}

async function expectPublic(appId: string) {
  for (const key of [null, carol.key]) {
    const read = await server.call('GET', `/api/apps/${appId}`, { key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: appId, href: 'https://secret.example.com', pingUrl: 'https://secret.example.com/ping' });
  }
}

describe('an app id on a public board grants no more than its writer could read', () => {
  it('PUT by a user without access: the app stays unreadable (app and bookmarks widgets), the options are stored as sent', async () => {
    const appId = await aliceApp();
    await expectHidden(appId);
    const board = await publicBoard(bob);
    const bookmarks = item(unique('bookmarks'), [position(board.layoutId, board.sectionId, 1, 0)], { kind: 'bookmarks', options: { items: [appId] } });
    const doc = expectOk(await put(board, bob, [appWidget(board, appId), bookmarks]));
    expect(doc.items.map((i: any) => i.options)).toEqual(expect.arrayContaining([{ appId }, { items: [appId] }]));
    await expectHidden(appId);
  });

  it('POST /api/boards/items by a user without access: the app stays unreadable', async () => {
    const appId = await aliceApp();
    const board = await publicBoard(bob);
    expectOk(await server.call('POST', '/api/boards/items', { key: bob.key, body: { boardId: board.boardId, kind: 'app', options: { appId } } }), 201);
    await expectHidden(appId);
  });

  it('PATCH of an item by a user without access: the app stays unreadable', async () => {
    const appId = await aliceApp();
    const board = await publicBoard(bob);
    const widget = appWidget(board, 'placeholder');
    expectOk(await put(board, bob, [widget]));
    expectOk(await patchItem(board, widget.id, bob, { options: { appId } }));
    await expectHidden(appId);
  });

  it('a placement by a user who can use the app makes it readable by anyone (PUT and POST)', async () => {
    const viaPut = await aliceApp();
    const board = await publicBoard(alice);
    expectOk(await put(board, alice, [appWidget(board, viaPut)]));
    await expectPublic(viaPut);

    const viaPost = await aliceApp();
    expectOk(await server.call('POST', '/api/boards/items', { key: alice.key, body: { boardId: board.boardId, kind: 'app', options: { appId: viaPost } } }), 201);
    await expectPublic(viaPost);
  });

  it('a vouched placement survives edits by others that keep the app id; an app id changed by a user without access ends it', async () => {
    const appId = await aliceApp();
    const board = await publicBoard(alice);
    const widget = appWidget(board, appId);
    expectOk(await put(board, alice, [widget]));
    await grantBoard(server, board.boardId, bob.userId, 'modify');

    expectOk(await patchItem(board, widget.id, bob, { advancedOptions: { title: 'renamed by bob' } }));
    await expectPublic(appId);

    expectOk(await patchItem(board, widget.id, bob, { options: { appId: 'elsewhere' } }));
    await expectHidden(appId);
    // Putting the id back does not restore it: bob cannot vouch for the app.
    expectOk(await patchItem(board, widget.id, bob, { options: { appId } }));
    await expectHidden(appId);
    // Alice writing the item again vouches for it.
    expectOk(await patchItem(board, widget.id, alice, { options: { appId }, advancedOptions: { title: 'back' } }));
    await expectPublic(appId);
  });

  it('a placement removed or turned into another kind no longer counts', async () => {
    const appId = await aliceApp();
    const board = await publicBoard(alice);
    const widget = appWidget(board, appId);
    expectOk(await put(board, alice, [widget]));
    await expectPublic(appId);
    expectOk(await put(board, alice, [{ ...widget, kind: 'clock' }]));
    await expectHidden(appId);
    expectOk(await put(board, alice, [widget]));
    await expectPublic(appId);
    expectOk(await put(board, alice, []));
    await expectHidden(appId);
  });

  it('duplicate: the copy counts only for an app the duplicating user can use', async () => {
    const appId = await aliceApp();
    const source = await publicBoard(alice);
    expectOk(await put(source, alice, [appWidget(source, appId)]));
    await expectPublic(appId);

    const bobsCopy = expectOk(await server.call('POST', `/api/boards/${source.boardId}/duplicate`, { key: bob.key, body: { name: unique('bob-copy') } }), 201);
    const alicesCopy = expectOk(await server.call('POST', `/api/boards/${source.boardId}/duplicate`, { key: alice.key, body: { name: unique('alice-copy') } }), 201);
    // The source stops publishing the app: only the copies are left.
    await server.db('boards').where({ id: source.boardId }).update({ isPublic: false });
    await server.db('boards').where({ id: alicesCopy.boardId }).update({ isPublic: false });
    expect((await server.db('boards').where({ id: bobsCopy.boardId }).first('isPublic')).isPublic).toBe(true);
    await expectHidden(appId);

    await server.db('boards').where({ id: alicesCopy.boardId }).update({ isPublic: true });
    await expectPublic(appId);
  });
});

describe('migration 0004: placements existing before the upgrade', () => {
  /** A widget inserted as an older version stored it: no vouch. */
  async function legacyPlacement(creatorId: string, kind: string, options: unknown) {
    const board = await createBoard(server, { isPublic: true, creatorId });
    await server.db('items').insert({ id: unique('legacy'), boardId: board.boardId, kind, options: JSON.stringify(options) });
  }

  it('vouches those whose board creator can use the app now, and no others', async () => {
    const [byOwner, byGroupGrant, byGlobal, byStranger] = [await aliceApp(), await aliceApp(), await aliceApp(), await aliceApp()];
    const grouped = await createActor(server, { permissions: [] });
    await server.db('app_group_permissions').insert({ appId: byGroupGrant, groupId: grouped.groupId, permission: 'use' });
    const global = await createActor(server, { permissions: ['app-modify-all'] });
    await legacyPlacement(alice.userId, 'app', { appId: byOwner });
    await legacyPlacement(grouped.userId, 'bookmarks', { items: ['missing', byGroupGrant] });
    await legacyPlacement(global.userId, 'app', { appId: byGlobal });
    await legacyPlacement(bob.userId, 'app', { appId: byStranger });
    await legacyPlacement(bob.userId, 'bookmarks', { items: [byStranger] });
    for (const appId of [byOwner, byGroupGrant, byGlobal, byStranger]) await expectHidden(appId);

    await vouchExistingPlacements(server.db);
    for (const appId of [byOwner, byGroupGrant, byGlobal]) await expectPublic(appId);
    await expectHidden(byStranger);
  });
});
