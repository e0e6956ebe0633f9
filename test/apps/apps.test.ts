import { randomBytes } from 'node:crypto';
import { decideAppAccess } from '../../src/apps/access';
import { appUrlMessages, appUrlPatterns, appUrlProblem } from '../../src/apps/urls';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Principal } from '../../src/identity/principal';
import { expandPermissions, GlobalPermission } from '../../src/identity/permissions';
import { Actor, createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { expectError } from '../support/expect';
import { expectOk } from '../boards-document/helpers';
import { unique } from '../support/unique';
import { createBoard, emptySection, item, position } from '../boards-document/helpers';

const server = useTestServer();


const icon = 'https://cdn.example.com/icon.svg';

async function createApp(actor: Actor | null, body: Record<string, unknown>) {
  return server.call('POST', '/api/apps', { key: actor ? actor.key : server.adminKey, body: { iconUrl: icon, ...body } });
}

async function grantApp(appId: string, users: { userId: string; permission: string }[], groups: { groupId: string; permission: string }[] = []) {
  const result = await server.call('PUT', `/api/apps/${appId}/permissions`, { body: { users, groups } });
  expect(result.status).toBe(200);
}

async function appCount(name: string) {
  const row = await server.db('apps').where({ name }).count({ count: '*' }).first();
  return Number(row!.count);
}

describe('authentication and gates', () => {
  it.each([
    ['GET', '/api/apps'],
    ['GET', '/api/apps/selectable'],
    ['GET', '/api/apps/search?query=a'],
    ['GET', '/api/apps/paginated'],
    ['POST', '/api/apps'],
    ['PATCH', '/api/apps/someid'],
    ['DELETE', '/api/apps/someid'],
    ['GET', '/api/apps/someid/permissions'],
    ['PUT', '/api/apps/someid/permissions'],
  ])('%s %s answers 401 without credentials', async (method, path) => {
    const body = method === 'GET' || method === 'DELETE' ? undefined : { name: 'x', iconUrl: icon };
    expectError(await server.call(method, path, { key: null, body }), 401, 'UNAUTHORIZED');
  });

  it('refuses POST without app-create', async () => {
    const plain = await createActor(server, { permissions: ['app-use-all'] });
    expectError(await createApp(plain, { name: unique('denied') }), 403, 'FORBIDDEN', 'Permission denied');
  });
});

describe('POST /api/apps', () => {
  it('creates an app with the caller as full holder, trimming and turning "" into null', async () => {
    const creator = await createActor(server, { permissions: ['app-create'] });
    const name = unique('Jellyfin');
    const result = await createApp(creator, { name: `  ${name} `, description: '  ', href: ' https://jf.example.com ', pingUrl: '' });
    expect(result.status).toBe(201);
    expect(result.body).toEqual({
      appId: expect.any(String),
      id: result.body.appId,
      referencedExisting: false,
      name,
      description: null,
      iconUrl: icon,
      href: 'https://jf.example.com',
      pingUrl: null,
    });
    const rows = await server.db('app_user_permissions').where({ appId: result.body.appId });
    expect(rows).toEqual([expect.objectContaining({ userId: creator.userId, permission: 'full' })]);
    const read = await server.call('GET', `/api/apps/${result.body.appId}`, { key: creator.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ id: result.body.appId, name, description: null, iconUrl: icon, href: 'https://jf.example.com', pingUrl: null });
  });

  it('references an app of another owner that the caller cannot see, granting use', async () => {
    const owner = await createActor(server, { permissions: ['app-create'] });
    const other = await createActor(server, { permissions: ['app-create'] });
    const name = unique('Sonarr');
    const created = await createApp(owner, { name, href: 'https://sonarr.example.com', description: 'owner text' });
    expect(created.status).toBe(201);
    expectError(await server.call('GET', `/api/apps/${created.body.appId}`, { key: other.key }), 404, 'NOT_FOUND', 'App not found');

    const referenced = await createApp(other, { name, href: 'https://sonarr.example.com', description: 'ignored', iconUrl: 'https://x/y.png' });
    expect(referenced.status).toBe(200);
    expect(referenced.body).toEqual({ appId: created.body.appId, id: created.body.appId, referencedExisting: true, ignoredFields: ['description', 'iconUrl'] });
    expect(await appCount(name)).toBe(1);

    // The reference is a use grant: the app is now visible to the caller, but not modifiable.
    const rows = await server.db('app_user_permissions').where({ appId: created.body.appId, userId: other.userId });
    expect(rows.map((r: any) => r.permission)).toEqual(['use']);
    const read = await server.call('GET', `/api/apps/${created.body.appId}`, { key: other.key });
    expect(read.status).toBe(200);
    expect(read.body.description).toBe('owner text');
    const page = await server.call('GET', `/api/apps/paginated?search=${name}`, { key: other.key });
    expect(page.body.items[0].permissions).toEqual({ hasUseAccess: true, hasModifyAccess: false, hasFullAccess: false });
    expectError(
      await server.call('PATCH', `/api/apps/${created.body.appId}`, { key: other.key, body: { name: 'taken over' } }),
      403,
      'FORBIDDEN',
      'Permission denied',
    );
  });

  it('HTTP-6: a created app answers its Location', async () => {
    const created = await createApp(null, { name: unique('Located') });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/apps/${created.body.appId}`);
    expect((await server.call('GET', created.headers.get('location')!)).body.id).toBe(created.body.appId);
  });

  it('APP-5: a request that references an existing app names the fields it sent that were not applied', async () => {
    const name = unique('Grafana');
    const href = 'https://grafana.example.com';
    const created = await createApp(null, { name, href, description: 'Dashboards', pingUrl: 'https://grafana.example.com/health' });
    expect(created.status).toBe(201);
    // Same values (after trimming, "" as null) are applied as they stand: nothing is reported.
    const same = await createApp(null, { name, href: ` ${href} `, description: ' Dashboards ', pingUrl: 'https://grafana.example.com/health' });
    expect(same.body).toMatchObject({ appId: created.body.appId, referencedExisting: true, ignoredFields: [] });
    // Omitted optional fields were not sent, so they are not reported either.
    expect((await createApp(null, { name, href })).body.ignoredFields).toEqual([]);
    const differing = await createApp(null, { name, href, description: 'Other text', pingUrl: '', iconUrl: 'https://cdn.example.com/other.svg' });
    expect(differing.status).toBe(200);
    expect(differing.headers.get('location')).toBeNull();
    expect(differing.body).toEqual({ appId: created.body.appId, id: created.body.appId, referencedExisting: true, ignoredFields: ['description', 'iconUrl', 'pingUrl'] });
    const stored = await server.call('GET', `/api/apps/${created.body.appId}`);
    expect(stored.body).toMatchObject({ description: 'Dashboards', iconUrl: icon, pingUrl: 'https://grafana.example.com/health' });
  });

  it('does not add a use row when the caller already holds a user row on the existing app', async () => {
    const owner = await createActor(server, { permissions: ['app-create'] });
    const name = unique('Radarr');
    const created = await createApp(owner, { name });
    const again = await createApp(owner, { name: ` ${name}` });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ appId: created.body.appId, id: created.body.appId, referencedExisting: true, ignoredFields: [] });
    const rows = await server.db('app_user_permissions').where({ appId: created.body.appId });
    expect(rows.map((r: any) => r.permission)).toEqual(['full']);
  });

  it('dedupes on name and href together: a different href or a different name creates a new app', async () => {
    const actor = await createActor(server, { permissions: ['app-create'] });
    const name = unique('Plex');
    const first = await createApp(actor, { name, href: 'https://a.example.com' });
    const sameNameOtherHref = await createApp(actor, { name, href: 'https://b.example.com' });
    const sameNameNoHref = await createApp(actor, { name });
    const sameNameNoHrefAgain = await createApp(actor, { name, href: '' });
    const otherName = await createApp(actor, { name: `${name}-2`, href: 'https://a.example.com' });
    const otherCase = await createApp(actor, { name: name.toUpperCase(), href: 'https://a.example.com' });
    expect(first.status).toBe(201);
    expect(sameNameOtherHref.status).toBe(201);
    expect(sameNameOtherHref.body.appId).not.toBe(first.body.appId);
    expect(sameNameNoHref.status).toBe(201);
    expect(sameNameNoHrefAgain.status).toBe(200);
    expect(sameNameNoHrefAgain.body.appId).toBe(sameNameNoHref.body.appId);
    expect(otherName.status).toBe(201);
    expect(otherCase.status).toBe(201);
    expect(await appCount(name)).toBe(3);
  });

  it('decides concurrent identical requests in the database: one creates, the others reference', async () => {
    const actors = await Promise.all([0, 1, 2, 3].map(() => createActor(server, { permissions: ['app-create'] })));
    const name = unique('Race');
    const results = await Promise.all(actors.map((actor) => createApp(actor, { name, href: 'https://race.example.com' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.appId)).size).toBe(1);
    expect(await appCount(name)).toBe(1);
    const rows = await server.db('app_user_permissions').where({ appId: results[0].body.appId });
    expect(rows.map((r: any) => r.permission).sort()).toEqual(['full', 'use', 'use', 'use']);
  });

  it.each([
    ['a javascript: href', { href: 'javascript:alert(1)' }],
    ['a JavaScript: href', { href: 'JavaScript:alert(1)' }],
    ['a javascript: href after spaces', { href: '  javascript:alert(1)' }],
    ['a javascript: href after a control character', { href: '\u0001javascript:alert(1)' }],
    ['a javascript: href with an embedded tab', { href: 'java\tscript:alert(1)' }],
    ['an ftp pingUrl', { pingUrl: 'ftp://example.com' }],
    ['a pingUrl without scheme', { pingUrl: 'example.com' }],
    ['a blank name', { name: '   ' }],
    ['a 65-character name', { name: 'a'.repeat(65) }],
    ['a 513-character description', { description: 'd'.repeat(513) }],
    ['a blank iconUrl', { iconUrl: '   ' }],
    ['a 2049-character iconUrl', { iconUrl: 'i'.repeat(2049) }],
    ['an unknown property', { color: 'red' }],
  ])('refuses %s with 400 and writes nothing', async (_label, override) => {
    const before = await server.db('apps').count({ count: '*' }).first();
    const result = await createApp(null, { name: unique('Invalid'), ...override });
    expectError(result, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(result.body.data.issues.length).toBeGreaterThan(0);
    expect(await server.db('apps').count({ count: '*' }).first()).toEqual(before);
  });

  it.each([
    ['href', 'a data:text/html href', { href: 'data:text/html,<script>alert(1)</script>' }],
    ['href', 'a vbscript: href', { href: 'vbscript:msgbox(1)' }],
    ['href', 'an HTML-encoded javascript: href', { href: 'javascript&#58;alert(1)' }],
    ['href', 'a javascript&colon; href', { href: 'javascript&colon;alert(1)' }],
    ['href', 'a zero-width space before javascript:', { href: '\u200Bjavascript:alert(1)' }],
    ['href', 'a byte-order mark before javascript:', { href: '\uFEFFjavascript:alert(1)' }],
    ['href', 'a percent-encoded scheme', { href: 'javascript%3Aalert(1)' }],
    ['href', 'an http URL with a space inside', { href: 'https://example.com/a b' }],
    ['iconUrl', 'a javascript: iconUrl', { iconUrl: 'javascript:alert(1)' }],
    ['iconUrl', 'a data:text/html iconUrl', { iconUrl: 'data:text/html,<svg onload=alert(1)>' }],
    ['pingUrl', 'a javascript: pingUrl', { pingUrl: 'javascript:alert(1)' }],
    ['pingUrl', 'a relative pingUrl', { pingUrl: '/health' }],
  ])('APP-6: refuses %s: %s, with a 400 whose issue names the field, on POST and PATCH, and writes nothing', async (field, _label, override) => {
    const before = await server.db('apps').count({ count: '*' }).first();
    const result = await createApp(null, { name: unique('Unsafe'), ...override });
    expectError(result, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(result.body.data.issues).toContainEqual(expect.objectContaining({ instancePath: `/requestBody/${field}`, message: appUrlMessages[field as 'href'] }));
    expect(await server.db('apps').count({ count: '*' }).first()).toEqual(before);

    const app = expectOk(await createApp(null, { name: unique('Safe'), href: 'https://safe.example.com' }), 201);
    const patched = await server.call('PATCH', `/api/apps/${app.appId}`, { body: override });
    expectError(patched, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(patched.body.data.issues).toContainEqual(expect.objectContaining({ instancePath: `/requestBody/${field}`, message: appUrlMessages[field as 'href'] }));
    expect((await server.call('GET', `/api/apps/${app.appId}`)).body).toMatchObject({ href: 'https://safe.example.com', iconUrl: icon, pingUrl: null });
  });

  it('APP-6: takes http(s), relative and (for icons) data:image addresses, trimmed', async () => {
    const accepted = {
      href: ' /apps/jellyfin?tab=1&x=2#top ',
      iconUrl: 'data:image/svg+xml;base64,PHN2Zy8+',
      pingUrl: 'HTTP://jellyfin.internal:8096/health',
    };
    const created = expectOk(await createApp(null, { name: unique('Relative'), ...accepted }), 201);
    expect(created).toMatchObject({ href: '/apps/jellyfin?tab=1&x=2#top', iconUrl: accepted.iconUrl, pingUrl: accepted.pingUrl });
    for (const href of ['https://example.com/a:b&c=%20', '//cdn.example.com/x', 'jellyfin/', '?q=1', '#top', 'HTTPS://EXAMPLE.COM']) {
      expect((await server.call('PATCH', `/api/apps/${created.appId}`, { body: { href } })).status).toBe(200);
    }
  });

  it('APP-6: the pure rule refuses what the contract refuses, and the OpenAPI patterns are its patterns', () => {
    const schemas = JSON.parse(readFileSync(path.join(__dirname, '../../generated/openapi.json'), 'utf8')).components.schemas;
    expect({ href: schemas.AppHref.pattern, iconUrl: schemas.AppIconUrl.pattern, pingUrl: schemas.AppPingUrl.pattern }).toEqual(appUrlPatterns);
    expect({ href: schemas.AppHref['x-pattern-message'], iconUrl: schemas.AppIconUrl['x-pattern-message'], pingUrl: schemas.AppPingUrl['x-pattern-message'] }).toEqual(appUrlMessages);
    expect(appUrlProblem('href', 'java\tscript:x')).toBe(appUrlMessages.href);
    expect(appUrlProblem('href', 'JAVASCRIPT:x')).toBe(appUrlMessages.href);
    expect(appUrlProblem('href', 'https://example.com/javascript:x')).toBeNull();
    expect(appUrlProblem('href', 'relative/javascript:x')).toBeNull();
    expect(appUrlProblem('href', 'https://')).toBe(appUrlMessages.href);
    expect(appUrlProblem('href', 'https://[::1')).toMatch(/does not parse/);
    expect(appUrlProblem('iconUrl', 'data:image/png;base64,AAAA')).toBeNull();
    expect(appUrlProblem('iconUrl', 'data:text/plain,x')).toBe(appUrlMessages.iconUrl);
    expect(appUrlProblem('pingUrl', 'ftp://example.com')).toBe(appUrlMessages.pingUrl);
    expect(appUrlProblem('href', 'https://example.com/\u{E0001}')).toBe(appUrlMessages.href);
  });
});

describe('visibility', () => {
  let owner: Actor;
  let appId: string;
  let name: string;
  beforeAll(async () => {
    owner = await createActor(server, { permissions: ['app-create'] });
    name = unique('Visible');
    appId = (await createApp(owner, { name, href: 'https://visible.example.com' })).body.appId;
  });

  const listIds = async (actor: Actor, path = '/api/apps') => {
    const result = await server.call('GET', path, { key: actor.key });
    expect(result.status).toBe(200);
    return (path.includes('paginated') ? result.body.items : result.body).map((a: any) => a.id);
  };

  it('hides an app from a caller without any grant, on every list and on GET by id', async () => {
    const stranger = await createActor(server, { permissions: ['app-create'] });
    expect(await listIds(stranger)).not.toContain(appId);
    expect(await listIds(stranger, '/api/apps/selectable')).not.toContain(appId);
    expect(await listIds(stranger, `/api/apps/search?query=${name}`)).toEqual([]);
    expect(await listIds(stranger, `/api/apps/paginated?search=${name}`)).toEqual([]);
    expectError(await server.call('GET', `/api/apps/${appId}`, { key: stranger.key }), 404, 'NOT_FOUND', 'App not found');
  });

  it('shows the app through a user row, a group row, app-use-all and admin', async () => {
    const viaUser = await createActor(server);
    const viaGroup = await createActor(server, { permissions: [] });
    const viaUseAll = await createActor(server, { permissions: ['app-use-all'] });
    const viaAdmin = await createActor(server, { permissions: ['admin'] });
    await grantApp(appId, [{ userId: owner.userId, permission: 'full' }, { userId: viaUser.userId, permission: 'use' }], [
      { groupId: viaGroup.groupId!, permission: 'modify' },
    ]);
    for (const actor of [viaUser, viaGroup, viaUseAll, viaAdmin]) {
      expect(await listIds(actor)).toContain(appId);
      expect(await listIds(actor, '/api/apps/selectable')).toContain(appId);
      expect(await listIds(actor, `/api/apps/search?query=${name}`)).toEqual([appId]);
      expect((await server.call('GET', `/api/apps/${appId}`, { key: actor.key })).status).toBe(200);
    }
  });

  it('returns the trimmed field set on /selectable', async () => {
    const result = await server.call('GET', '/api/apps/selectable', { key: owner.key });
    const entry = result.body.find((a: any) => a.id === appId);
    expect(Object.keys(entry).sort()).toEqual(['description', 'href', 'iconUrl', 'id', 'name', 'pingUrl']);
  });

  describe('anonymous GET /api/apps/{id}', () => {
    /** A widget saved by the app's owner (who can use the app) on a board of its own. */
    async function placeOnBoard(isPublic: boolean, kind: string, options: unknown) {
      const board = await createBoard(server, { isPublic, creatorId: owner.userId });
      const widget = item(unique('item'), [position(board.layoutId, board.sectionId)], { kind, options });
      const saved = await server.call('PUT', `/api/boards/${board.boardId}`, {
        key: owner.key,
        body: { sections: [emptySection(board.sectionId)], items: [widget] },
      });
      expect(saved.status).toBe(200);
    }

    it('answers 404 for an app no public board references, and for a missing app', async () => {
      expectError(await server.call('GET', `/api/apps/${appId}`, { key: null }), 404, 'NOT_FOUND', 'App not found');
      expectError(await server.call('GET', '/api/apps/doesnotexist', { key: null }), 404, 'NOT_FOUND', 'App not found');
    });

    it('answers 404 when only a private board references the app', async () => {
      const id = (await createApp(owner, { name: unique('Private') })).body.appId;
      await placeOnBoard(false, 'app', { appId: id });
      await placeOnBoard(false, 'bookmarks', { items: [id] });
      expectError(await server.call('GET', `/api/apps/${id}`, { key: null }), 404, 'NOT_FOUND', 'App not found');
    });

    it('reads an app referenced by an app widget on a public board', async () => {
      const id = (await createApp(owner, { name: unique('PublicApp') })).body.appId;
      await placeOnBoard(true, 'app', { appId: id });
      const result = await server.call('GET', `/api/apps/${id}`, { key: null });
      expect(result.status).toBe(200);
      expect(result.body.id).toBe(id);
      // An authenticated caller without a grant reads it too.
      const stranger = await createActor(server);
      expect((await server.call('GET', `/api/apps/${id}`, { key: stranger.key })).status).toBe(200);
    });

    it('reads an app referenced by a bookmarks widget on a public board, and ignores other shapes and kinds', async () => {
      const id = (await createApp(owner, { name: unique('Bookmarked') })).body.appId;
      const decoy = (await createApp(owner, { name: unique('Decoy') })).body.appId;
      await placeOnBoard(true, 'bookmarks', { items: ['other', id] });
      await placeOnBoard(true, 'bookmarks', { items: decoy });
      await placeOnBoard(true, 'clock', { appId: decoy });
      expect((await server.call('GET', `/api/apps/${id}`, { key: null })).status).toBe(200);
      expectError(await server.call('GET', `/api/apps/${decoy}`, { key: null }), 404, 'NOT_FOUND', 'App not found');
    });
  });
});

describe('PATCH, DELETE and permissions', () => {
  let owner: Actor;
  let user: Actor;
  let modifier: Actor;
  let stranger: Actor;
  beforeAll(async () => {
    [owner, user, modifier, stranger] = await Promise.all([
      createActor(server, { permissions: ['app-create'] }),
      createActor(server),
      createActor(server),
      createActor(server),
    ]);
  });

  async function sharedApp() {
    const created = await createApp(owner, { name: unique('Shared'), description: 'keep me', href: 'https://shared.example.com' });
    await grantApp(created.body.appId, [
      { userId: owner.userId, permission: 'full' },
      { userId: user.userId, permission: 'use' },
      { userId: modifier.userId, permission: 'modify' },
    ]);
    return created.body.appId as string;
  }

  it('PATCH: 404 when invisible, 403 with use only, 200 with modify; omitted fields untouched', async () => {
    const id = await sharedApp();
    expectError(await server.call('PATCH', `/api/apps/${id}`, { key: stranger.key, body: { name: 'x' } }), 404, 'NOT_FOUND', 'App not found');
    expectError(await server.call('PATCH', `/api/apps/${id}`, { key: user.key, body: { name: 'x' } }), 403, 'FORBIDDEN', 'Permission denied');
    const patched = await server.call('PATCH', `/api/apps/${id}`, { key: modifier.key, body: { name: ' Renamed ', pingUrl: 'https://ping.example.com' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      id,
      name: 'Renamed',
      description: 'keep me',
      iconUrl: icon,
      href: 'https://shared.example.com',
      pingUrl: 'https://ping.example.com',
    });
    const cleared = await server.call('PATCH', `/api/apps/${id}`, { key: modifier.key, body: { description: '' } });
    expect(cleared.body.description).toBeNull();
  });

  it('PATCH: app-modify-all modifies any app; 404 for a missing app', async () => {
    const id = await sharedApp();
    const modifyAll = await createActor(server, { permissions: ['app-modify-all'] });
    expect((await server.call('PATCH', `/api/apps/${id}`, { key: modifyAll.key, body: { iconUrl: 'https://x/z.png' } })).status).toBe(200);
    expectError(await server.call('PATCH', '/api/apps/missing', { key: modifyAll.key, body: { name: 'x' } }), 404, 'NOT_FOUND', 'App not found');
  });

  it('PATCH: refuses an empty body, invalid fields and a collision with another app', async () => {
    const id = await sharedApp();
    expectError(await server.call('PATCH', `/api/apps/${id}`, { key: owner.key, body: {} }), 400, 'BAD_REQUEST', 'Input validation failed');
    expectError(
      await server.call('PATCH', `/api/apps/${id}`, { key: owner.key, body: { href: 'javascript:void(0)' } }),
      400,
      'BAD_REQUEST',
      'Input validation failed',
    );
    const other = await createApp(owner, { name: unique('Other'), href: 'https://other.example.com' });
    const collision = await server.call('PATCH', `/api/apps/${id}`, {
      key: owner.key,
      body: { name: other.body.name, href: 'https://other.example.com' },
    });
    expectError(collision, 409, 'CONFLICT', 'An app with the same name and href already exists');
    expect((await server.call('GET', `/api/apps/${id}`, { key: owner.key })).body.href).toBe('https://shared.example.com');
  });

  it('DELETE: 404 when invisible, 403 with modify, 204 with full', async () => {
    const id = await sharedApp();
    expectError(await server.call('DELETE', `/api/apps/${id}`, { key: stranger.key }), 404, 'NOT_FOUND', 'App not found');
    expectError(await server.call('DELETE', `/api/apps/${id}`, { key: modifier.key }), 403, 'FORBIDDEN', 'Permission denied');
    expect((await server.call('DELETE', `/api/apps/${id}`, { key: owner.key })).status).toBe(204);
    expectError(await server.call('GET', `/api/apps/${id}`, { key: owner.key }), 404, 'NOT_FOUND', 'App not found');
    expect(await server.db('app_user_permissions').where({ appId: id })).toEqual([]);
  });

  it('DELETE: app-full-all deletes any app', async () => {
    const id = await sharedApp();
    const fullAll = await createActor(server, { permissions: ['app-full-all'] });
    expect((await server.call('DELETE', `/api/apps/${id}`, { key: fullAll.key })).status).toBe(204);
  });

  it('PUT permissions: full only; replaces every row; refuses unknown ids', async () => {
    const id = await sharedApp();
    const body = { users: [{ userId: owner.userId, permission: 'full' }], groups: [] };
    expectError(await server.call('PUT', `/api/apps/${id}/permissions`, { key: stranger.key, body }), 404, 'NOT_FOUND', 'App not found');
    expectError(await server.call('PUT', `/api/apps/${id}/permissions`, { key: modifier.key, body }), 403, 'FORBIDDEN', 'Permission denied');
    expectError(await server.call('GET', `/api/apps/${id}/permissions`, { key: modifier.key }), 403, 'FORBIDDEN', 'Permission denied');

    const unknown = await server.call('PUT', `/api/apps/${id}/permissions`, {
      key: owner.key,
      body: { users: [{ userId: 'nosuchuser', permission: 'use' }], groups: [] },
    });
    expectError(unknown, 400, 'BAD_REQUEST', 'Unknown user ids: nosuchuser');
    expectError(
      await server.call('PUT', `/api/apps/${id}/permissions`, { key: owner.key, body: { users: [], groups: [{ groupId: 'nosuchgroup', permission: 'use' }] } }),
      400,
      'BAD_REQUEST',
      'Unknown group ids: nosuchgroup',
    );
    expect((await server.call('GET', `/api/apps/${id}/permissions`, { key: owner.key })).body.users).toHaveLength(3);

    const replaced = await server.call('PUT', `/api/apps/${id}/permissions`, { key: owner.key, body });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual(body);
    expectError(await server.call('GET', `/api/apps/${id}`, { key: user.key }), 404, 'NOT_FOUND', 'App not found');
    expect((await server.call('GET', `/api/apps/${id}/permissions`, { key: owner.key })).body).toEqual(body);
  });

  it('PUT permissions: refuses an unknown level', async () => {
    const id = await sharedApp();
    const result = await server.call('PUT', `/api/apps/${id}/permissions`, {
      key: owner.key,
      body: { users: [{ userId: user.userId, permission: 'interact' }], groups: [] },
    });
    expectError(result, 400, 'BAD_REQUEST', 'Input validation failed');
  });
});

describe('search and pagination', () => {
  let actor: Actor;
  let tag: string;
  const names = ['Alpha', 'beta', 'Gamma', 'delta', 'Epsilon'];
  beforeAll(async () => {
    actor = await createActor(server, { permissions: ['app-create'] });
    tag = randomBytes(3).toString('hex');
    for (const n of names) expect((await createApp(actor, { name: `${n}-${tag}` })).status).toBe(201);
    // Seen by the admin but not by the actor: must never show up in the actor's results.
    await createApp(null, { name: `Hidden-${tag}` });
  });

  it('searches visible apps case-insensitively by substring, ordered by name, bounded by limit', async () => {
    const all = await server.call('GET', `/api/apps/search?query=${tag.toUpperCase()}`, { key: actor.key });
    expect(all.status).toBe(200);
    expect(all.body.map((a: any) => a.name)).toEqual([...names].sort().map((n) => `${n}-${tag}`));
    const some = await server.call('GET', `/api/apps/search?query=${encodeURIComponent('TA-' + tag)}`, { key: actor.key });
    expect(some.body.map((a: any) => a.name).sort()).toEqual([`beta-${tag}`, `delta-${tag}`]);
    const limited = await server.call('GET', `/api/apps/search?query=${tag}&limit=2`, { key: actor.key });
    expect(limited.body).toHaveLength(2);
    const admin = await server.call('GET', `/api/apps/search?query=hidden-${tag}`);
    expect(admin.body).toHaveLength(1);
  });

  it.each([['/api/apps/search'], ['/api/apps/search?query='], ['/api/apps/search?query=a&limit=0'], ['/api/apps/search?query=a&limit=101']])(
    'refuses %s with 400',
    async (path) => {
      expectError(await server.call('GET', path, { key: actor.key }), 400, 'BAD_REQUEST', 'Input validation failed');
    },
  );

  it('pages through visible apps with totalCount and flags, ordered by name', async () => {
    const expected = [...names].sort().map((n) => `${n}-${tag}`);
    const first = await server.call('GET', `/api/apps/paginated?search=${tag}&page=1&pageSize=2`, { key: actor.key });
    expect(first.status).toBe(200);
    expect(first.body.totalCount).toBe(5);
    expect(first.body.items.map((a: any) => a.name)).toEqual(expected.slice(0, 2));
    expect(first.body.items[0].permissions).toEqual({ hasUseAccess: true, hasModifyAccess: true, hasFullAccess: true });
    const third = await server.call('GET', `/api/apps/paginated?search=${tag}&page=3&pageSize=2`, { key: actor.key });
    expect(third.body.items.map((a: any) => a.name)).toEqual(expected.slice(4));
    const past = await server.call('GET', `/api/apps/paginated?search=${tag}&page=100000&pageSize=100`, { key: actor.key });
    expect(past.body).toEqual({ items: [], totalCount: 5 });
    const trimmed = await server.call('GET', `/api/apps/paginated?search=${encodeURIComponent(`  ${tag} `)}`, { key: actor.key });
    expect(trimmed.body.totalCount).toBe(5);
  });

  it('defaults to page 1 of 10 and counts every visible app without a search', async () => {
    const result = await server.call('GET', '/api/apps/paginated', { key: actor.key });
    expect(result.body.items.length).toBeLessThanOrEqual(10);
    const visible = await server.call('GET', '/api/apps', { key: actor.key });
    expect(result.body.totalCount).toBe(visible.body.length);
    expect(result.body.items.map((a: any) => a.id)).toEqual(visible.body.slice(0, 10).map((a: any) => a.id));
  });

  it('shows flags from global permissions on apps without rows', async () => {
    const modifyAll = await createActor(server, { permissions: ['app-modify-all'] });
    const result = await server.call('GET', `/api/apps/paginated?search=${tag}`, { key: modifyAll.key });
    expect(result.body.totalCount).toBe(6);
    for (const item of result.body.items) expect(item.permissions).toEqual({ hasUseAccess: true, hasModifyAccess: true, hasFullAccess: false });
  });

  it.each([['page=0'], ['page=100001'], ['pageSize=0'], ['pageSize=101'], ['page=abc'], ['page=1.5']])('refuses %s with 400', async (query) => {
    expectError(await server.call('GET', `/api/apps/paginated?${query}`, { key: actor.key }), 400, 'BAD_REQUEST', 'Input validation failed');
  });
});

describe('decideAppAccess', () => {
  const principal = (permissions: GlobalPermission[]): Principal => ({
    userId: 'u',
    username: 'u',
    groupIds: [],
    permissions: expandPermissions(permissions),
    authMethod: 'apiKey',
    apiKeyId: null,
  });
  it.each([
    [[], [], [false, false, false]],
    [[], ['use'], [true, false, false]],
    [[], ['modify'], [true, true, false]],
    [[], ['full'], [true, true, true]],
    [['app-use-all'], [], [true, false, false]],
    [['app-modify-all'], [], [true, true, false]],
    [['app-full-all'], [], [true, true, true]],
    [['admin'], [], [true, true, true]],
    [['app-create'], [], [false, false, false]],
    [['app-use-all'], ['modify'], [true, true, false]],
  ] as const)('permissions %p with rows %p -> use/modify/full %p', (permissions, rows, [use, modify, full]) => {
    expect(decideAppAccess(principal([...permissions]), [...rows])).toEqual({ hasUseAccess: use, hasModifyAccess: modify, hasFullAccess: full });
  });
  it('gives an anonymous caller nothing', () => {
    expect(decideAppAccess(null, [])).toEqual({ hasUseAccess: false, hasModifyAccess: false, hasFullAccess: false });
  });
});
