import { Actor, createActor } from '../support/actors';
import { expectError } from '../support/expect';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';

const server = useTestServer();

const beyondScopes = 'Permission denied: an API key cannot create a key with scopes beyond its own';
const laterExpiry = 'Permission denied: an API key cannot create a key that expires later than itself';
const revokeMore = 'Permission denied: an API key cannot revoke a key that holds more than itself';

/** A key for the actor minted by the admin, with the given scopes and expiry. */
async function keyFor(actor: Actor, body: { scopes?: string[]; expiresAt?: string } = {}): Promise<{ id: string; apiKey: string }> {
  const created = await server.call('POST', '/api/api-keys', { body: { userId: actor.userId, ...body } });
  expect(created.status).toBe(201);
  return created.body;
}

const keyCount = async (userId: string) => Number((await server.db('api_keys').where({ userId }).count({ n: '*' }))[0].n);
const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

describe('keys minted with an API key', () => {
  it('gives a key minted without scopes the calling key scopes, so it cannot do more', async () => {
    const actor = await createActor(server, { permissions: ['board-create', 'app-create'] });
    const scoped = await keyFor(actor, { scopes: ['app-create'] });
    const minted = await server.call('POST', '/api/api-keys', { key: scoped.apiKey, body: { name: 'x' } });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ scopes: ['app-create'], expiresAt: null });
    const board = await server.call('POST', '/api/boards', {
      key: minted.body.apiKey,
      body: { name: unique('minted'), columnCount: 12, isPublic: false },
    });
    expectError(board, 403, 'FORBIDDEN', 'Permission denied');
    // The owner's own unscoped key can.
    const allowed = await server.call('POST', '/api/boards', { key: actor.key, body: { name: unique('owner'), columnCount: 12, isPublic: false } });
    expect(allowed.status).toBe(201);
  });

  it('refuses scopes beyond the calling key, writing nothing', async () => {
    const actor = await createActor(server, { permissions: ['board-create', 'app-full-all'] });
    const scoped = await keyFor(actor, { scopes: ['app-create'] });
    const before = await keyCount(actor.userId);
    const wider = await server.call('POST', '/api/api-keys', { key: scoped.apiKey, body: { scopes: ['app-create', 'board-create'] } });
    expectError(wider, 403, 'FORBIDDEN', beyondScopes);
    expect(wider.body.data).toEqual({ scopes: ['board-create'] });
    // A scope implying more than the key holds is beyond it too.
    const implying = await server.call('POST', '/api/api-keys', { key: scoped.apiKey, body: { scopes: ['app-modify-all'] } });
    expectError(implying, 403, 'FORBIDDEN', beyondScopes);
    expect(await keyCount(actor.userId)).toBe(before);
  });

  it('accepts scopes implied by the calling key scopes', async () => {
    const actor = await createActor(server, { permissions: ['app-full-all'] });
    const scoped = await keyFor(actor, { scopes: ['app-full-all'] });
    const narrower = await server.call('POST', '/api/api-keys', { key: scoped.apiKey, body: { scopes: ['app-create'] } });
    expect(narrower.status).toBe(201);
    expect(narrower.body.scopes).toEqual(['app-create']);
  });

  it('lets a key scoped to nothing mint only keys scoped to nothing', async () => {
    const actor = await createActor(server, { permissions: ['admin'] });
    const empty = await keyFor(actor, { scopes: [] });
    const before = await keyCount(actor.userId);
    const any = await server.call('POST', '/api/api-keys', { key: empty.apiKey, body: { scopes: ['board-view-all'] } });
    expectError(any, 403, 'FORBIDDEN', beyondScopes);
    expect(await keyCount(actor.userId)).toBe(before);
    const minted = await server.call('POST', '/api/api-keys', { key: empty.apiKey, body: {} });
    expect(minted.status).toBe(201);
    expect(minted.body.scopes).toEqual([]);
    expect((await server.call('GET', '/api/auth/session', { key: minted.body.apiKey })).body.permissions).toEqual([]);
  });

  it('gives a minted key the calling key expiry at the latest', async () => {
    const actor = await createActor(server);
    const expiresAt = inHours(2);
    const expiring = await keyFor(actor, { expiresAt });
    const before = await keyCount(actor.userId);
    const later = await server.call('POST', '/api/api-keys', { key: expiring.apiKey, body: { expiresAt: inHours(3) } });
    expectError(later, 403, 'FORBIDDEN', laterExpiry);
    expect(later.body.data).toEqual({ expiresAt: new Date(expiresAt).toISOString() });
    expect(await keyCount(actor.userId)).toBe(before);

    const inherited = await server.call('POST', '/api/api-keys', { key: expiring.apiKey, body: {} });
    expect(inherited.status).toBe(201);
    expect(inherited.body).toMatchObject({ scopes: null, expiresAt: new Date(expiresAt).toISOString() });
    const earlier = await server.call('POST', '/api/api-keys', { key: expiring.apiKey, body: { expiresAt: inHours(1) } });
    expect(earlier.status).toBe(201);
  });

  it('keeps an expiring admin key from minting an unexpiring key for another user', async () => {
    const admin = await createActor(server, { permissions: ['admin'] });
    const expiring = await keyFor(admin, { scopes: ['admin'], expiresAt: inHours(1) });
    const other = await createActor(server);
    const before = await keyCount(other.userId);
    const minted = await server.call('POST', '/api/api-keys', { key: expiring.apiKey, body: { userId: other.userId, expiresAt: inHours(5) } });
    expectError(minted, 403, 'FORBIDDEN', laterExpiry);
    expect(await keyCount(other.userId)).toBe(before);
  });

  it('leaves a session free to mint unscoped, unexpiring keys', async () => {
    const actor = await createActor(server, { password: 'bounds-pass-1' });
    const login = await server.call('POST', '/api/auth/login', { key: null, body: { username: actor.username, password: 'bounds-pass-1' } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const minted = await server.call('POST', '/api/api-keys', { key: null, body: {}, headers: { Cookie: cookie } });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ scopes: null, expiresAt: null });
  });
});

describe('keys managed with an API key', () => {
  it('lists only the keys holding no more than the calling key', async () => {
    const actor = await createActor(server, { permissions: ['admin'] });
    const scoped = await keyFor(actor, { scopes: ['app-full-all'] });
    const narrower = await keyFor(actor, { scopes: ['app-create'] });
    const wider = await keyFor(actor, { scopes: ['app-full-all', 'board-create'] });
    const expiring = await keyFor(actor, { scopes: ['app-create'], expiresAt: inHours(1) });
    const listed = await server.call('GET', '/api/api-keys', { key: scoped.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.map((k: any) => k.id).sort()).toEqual([scoped.id, narrower.id, expiring.id].sort());
    expect(listed.body.map((k: any) => k.id)).not.toContain(wider.id);
    // An expiring key does not see the unexpiring keys of the same scopes.
    const fromExpiring = await server.call('GET', '/api/api-keys', { key: expiring.apiKey });
    expect(fromExpiring.body.map((k: any) => k.id)).toEqual([expiring.id]);
    // The unscoped, unexpiring key sees every key.
    const all = await server.call('GET', '/api/api-keys', { key: actor.key });
    expect(all.body).toHaveLength(5);
  });

  it('refuses to revoke a key holding more than the calling key, leaving it working', async () => {
    const actor = await createActor(server, { permissions: ['admin'] });
    const empty = await keyFor(actor, { scopes: [] });
    const wider = await keyFor(actor, { scopes: ['board-view-all'] });
    const before = await keyCount(actor.userId);
    for (const target of [actor.key.split('.')[0], wider.id]) {
      expectError(await server.call('DELETE', `/api/api-keys/${target}`, { key: empty.apiKey }), 403, 'FORBIDDEN', revokeMore);
    }
    expect(await keyCount(actor.userId)).toBe(before);
    expect((await server.call('GET', '/api/users', { key: actor.key })).status).toBe(200);
    // A key as narrow as itself it may revoke, itself included.
    const alike = await keyFor(actor, { scopes: [] });
    expect((await server.call('DELETE', `/api/api-keys/${alike.id}`, { key: empty.apiKey })).status).toBe(204);
    expect((await server.call('DELETE', `/api/api-keys/${empty.id}`, { key: empty.apiKey })).status).toBe(204);
    expect(await keyCount(actor.userId)).toBe(before - 1);
  });

  it('refuses an expiring admin key revoking an unexpiring key of another user', async () => {
    const admin = await createActor(server, { permissions: ['admin'] });
    const expiring = await keyFor(admin, { expiresAt: inHours(1) });
    const other = await createActor(server);
    const revoke = await server.call('DELETE', `/api/api-keys/${other.key.split('.')[0]}`, { key: expiring.apiKey });
    expectError(revoke, 403, 'FORBIDDEN', revokeMore);
    expect((await server.call('GET', '/api/auth/session', { key: other.key })).status).toBe(200);
  });
});

describe('passwords created with an API key', () => {
  it('KEY-6: an expiring admin key cannot create a user, whose password would outlive the key; an unscoped key can', async () => {
    const admin = await createActor(server, { permissions: ['admin'] });
    const expiring = await keyFor(admin, { expiresAt: inHours(1) });
    const username = unique('lasting');
    const refused = await server.call('POST', '/api/users', { key: expiring.apiKey, body: { username, password: 'lasting-pass-1' } });
    expectError(refused, 403, 'FORBIDDEN', 'Permission denied: an API key cannot create a credential that outlives itself');
    expect(await server.db('users').where({ username }).first('id')).toBeUndefined();
    const allowed = await server.call('POST', '/api/users', { key: admin.key, body: { username, password: 'lasting-pass-1' } });
    expect(allowed.status).toBe(201);
  });
});

describe('KEY: an expiry at the edges of RFC 3339', () => {
  it('TIME-1: takes a leap second and a time past the year 9999 as the instant they name', async () => {
    const actor = await createActor(server);
    // 9999-12-31T23:59:59-23:59 is in the year 10000 (UTC); 2098-12-31T23:59:60Z is the leap second form of 23:59:59.
    for (const expiresAt of ['9999-12-31T23:59:59.999-23:59', '2098-12-31T23:59:60Z']) {
      const minted = await server.call('POST', '/api/api-keys', { body: { userId: actor.userId, expiresAt } });
      expect(minted.status).toBe(201);
      const works = await server.call('GET', '/api/auth/session', { key: minted.body.apiKey });
      expect(works.status).toBe(200);
    }
  });

  it('TIME-1: refuses a leap-second expiry later than the calling key\'s own', async () => {
    const actor = await createActor(server);
    const expiring = await keyFor(actor, { expiresAt: inHours(2) });
    const before = await keyCount(actor.userId);
    const later = await server.call('POST', '/api/api-keys', { key: expiring.apiKey, body: { expiresAt: '2098-12-31T23:59:60Z' } });
    expectError(later, 403, 'FORBIDDEN', laterExpiry);
    expect(await keyCount(actor.userId)).toBe(before);
  });
});
