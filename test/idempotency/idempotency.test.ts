import { createActor } from '../support/actors';
import { clockBoardFile } from '../support/boardFiles';
import { expectError } from '../support/expect';
import { eventually } from '../support/eventually';
import { unique } from '../support/unique';
import { useTestServer } from '../support/server';
import { IdempotencyKey } from '../../src/db/models';
import { pruneIdempotencyKeys } from '../../src/idempotency/store';

const server = useTestServer();
const onPostgres = process.env.TEST_DATABASE_URL !== undefined;

const createBoard = (name: string, key: string | undefined, options: { apiKey?: string | null; headers?: Record<string, string> } = {}) =>
  server.call('POST', '/api/boards', {
    ...(options.apiKey !== undefined ? { key: options.apiKey } : {}),
    body: { name, columnCount: 12, isPublic: false },
    headers: { ...(key === undefined ? {} : { 'Idempotency-Key': key }), ...options.headers },
  });

const rowsOf = (key: string) => IdempotencyKey.query(server.db).where({ key });

describe('Idempotency-Key', () => {
  it('IDEM-1, IDEM-2: the first answer is kept and replayed, headers included, for the same key and payload', async () => {
    const key = unique('key-');
    const name = unique('idem');
    const first = await createBoard(name, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await createBoard(name, key);
    expect({ status: again.status, body: again.body, location: again.headers.get('location') }).toEqual({
      status: 201,
      body: first.body,
      location: first.headers.get('location'),
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The draft's structured-field form names the same key.
    const quoted = await createBoard(name, `"${key}"`);
    expect({ status: quoted.status, body: quoted.body, replayed: quoted.headers.get('idempotent-replayed') }).toEqual({
      status: 201,
      body: first.body,
      replayed: 'true',
    });
    // One board: a create without a key now finds the name taken.
    expectError(await createBoard(name, undefined), 409, 'CONFLICT', 'Board with similar name already exists');
  });

  it('IDEM-2: a replayed restore carries the ETag of the first answer and moves the board once', async () => {
    const board = await createBoard(unique('idem'), undefined);
    const id = board.body.boardId;
    expect((await server.call('PATCH', `/api/boards/${id}/settings`, { body: { pageTitle: 'changed' } })).status).toBe(204);
    const key = unique('restore-');
    const restore = () => server.call('POST', `/api/boards/${id}/restore`, { body: { revision: 1 }, headers: { 'Idempotency-Key': key } });
    const first = await restore();
    expect(first.status).toBe(200);
    const again = await restore();
    expect({ status: again.status, etag: again.headers.get('etag'), version: again.body.version }).toEqual({
      status: 200,
      etag: first.headers.get('etag'),
      version: first.body.version,
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const history = await server.call('GET', `/api/boards/${id}/history`);
    expect(history.body.entries.filter((entry: { operation: string }) => entry.operation === 'restoreBoard')).toHaveLength(1);
  });

  it('IDEM-1, IDEM-2: an import and a set apply retried with their keys are done once', async () => {
    const file = clockBoardFile(unique('idem-import'));
    const importKey = unique('import-');
    const imported = await server.call('POST', '/api/boards/import', { body: file, headers: { 'Idempotency-Key': importKey } });
    expect(imported.status).toBe(201);
    // The same file again with the key: replayed (without it, the name would now be taken: 409).
    const again = await server.call('POST', '/api/boards/import', { body: file, headers: { 'Idempotency-Key': importKey } });
    expect({ status: again.status, body: again.body, replayed: again.headers.get('idempotent-replayed') }).toEqual({ status: 201, body: imported.body, replayed: 'true' });
    expect((await server.call('POST', '/api/boards/import', { body: file })).status).toBe(409);

    const set = { managedBy: unique('idem-set'), boards: [clockBoardFile(unique('idem-set'))] };
    const applyKey = unique('apply-');
    const applied = await server.call('POST', '/api/boards/apply', { body: set, headers: { 'Idempotency-Key': applyKey } });
    expect(applied.status).toBe(200);
    const reapplied = await server.call('POST', '/api/boards/apply', { body: set, headers: { 'Idempotency-Key': applyKey } });
    expect({ status: reapplied.status, body: reapplied.body, replayed: reapplied.headers.get('idempotent-replayed') }).toEqual({ status: 200, body: applied.body, replayed: 'true' });
  });

  it('IDEM-3: the same key with another payload is 422, nothing done', async () => {
    const key = unique('key-');
    const name = unique('idem');
    expect((await createBoard(name, key)).status).toBe(201);
    const other = unique('idem');
    expectError(await createBoard(other, key), 422, 'UNPROCESSABLE_CONTENT', 'This Idempotency-Key was used for another request; use a new key');
    // Another operation with the key is another payload too.
    const group = await server.call('POST', '/api/groups', { body: { name: unique('g') }, headers: { 'Idempotency-Key': key } });
    expectError(group, 422, 'UNPROCESSABLE_CONTENT', 'This Idempotency-Key was used for another request; use a new key');
    // The refused name was not created.
    expect((await createBoard(other, undefined)).status).toBe(201);
  });

  it('IDEM-1: an error answer is not kept: the key runs again once the cause is gone', async () => {
    const name = unique('idem');
    const taken = await createBoard(name, undefined);
    const key = unique('key-');
    expectError(await createBoard(name, key), 409, 'CONFLICT', 'Board with similar name already exists');
    expect(await rowsOf(key)).toHaveLength(0);
    expect((await server.call('DELETE', `/api/boards/${taken.body.boardId}`)).status).toBe(204);
    const created = await createBoard(name, key);
    expect({ status: created.status, replayed: created.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: null });
  });

  it('IDEM-6: keys are per user: another user\'s same key is its own', async () => {
    const alice = await createActor(server, { permissions: ['board-create'] });
    const bob = await createActor(server, { permissions: ['board-create'] });
    const key = unique('shared-');
    const aliceBoard = await createBoard(unique('alice'), key, { apiKey: alice.key });
    expect(aliceBoard.status).toBe(201);
    const bobBoard = await createBoard(unique('bob'), key, { apiKey: bob.key });
    expect({ status: bobBoard.status, replayed: bobBoard.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: null });
    expect(bobBoard.body.boardId).not.toBe(aliceBoard.body.boardId);
    expect((await rowsOf(key)).map((row) => row.userId).sort()).toEqual([alice.userId, bob.userId].sort());
  });

  it('IDEM-6: a caller without credentials cannot use a key: the operation refuses it and nothing is stored', async () => {
    const key = unique('anon-');
    expectError(await createBoard(unique('anon'), key, { apiKey: null }), 401, 'UNAUTHORIZED');
    expect(await rowsOf(key)).toHaveLength(0);
  });

  it.each([
    ['with a space', 'two words'],
    ['with a quote inside', 'a"b'],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['empty in quotes', '""'],
  ])('IDEM-1: a malformed key (%s) is a 400 naming the header, nothing stored', async (_case, key) => {
    const answer = await createBoard(unique('bad'), key);
    expectError(answer, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(JSON.stringify(answer.body.data.issues)).toContain('idempotency-key');
    expect(await IdempotencyKey.query(server.db).where({ key }).orWhere({ key: key.replace(/"/g, '') })).toHaveLength(0);
  });

  it('IDEM-4: a request whose key another request holds is 409, another payload still 422; an abandoned claim is taken over', async () => {
    const key = unique('key-');
    const name = unique('idem');
    expect((await createBoard(name, key)).status).toBe(201);
    // The row as a request still running holds it (on this or another instance): claimed, no answer yet.
    await rowsOf(key).patch({ status: null, body: null, headers: null, claimToken: 'another-request', claimedUntil: server.db.raw("now() + interval '5 minutes'") as never });
    expectError(await createBoard(name, key), 409, 'CONFLICT', 'A request with this Idempotency-Key is still in progress; retry later');
    expectError(await createBoard(unique('idem'), key), 422, 'UNPROCESSABLE_CONTENT');
    // Its lease ran out (its instance stopped mid-request): the same request runs again (and finds the name taken).
    await rowsOf(key).patch({ claimedUntil: server.db.raw("now() - interval '1 second'") as never });
    expectError(await createBoard(name, key), 409, 'CONFLICT', 'Board with similar name already exists');
  });

  (onPostgres ? it : it.skip)('IDEM-4: two instances on one database: a request still running holds its key for both', async () => {
    const sibling = await server.startSibling();
    const key = unique('key-');
    const name = unique('idem');
    const headers = { 'Idempotency-Key': key };
    // Boards cannot be inserted while the test holds this lock: the first request claims its key, then waits.
    const lock = await server.db.transaction();
    let first: ReturnType<typeof createBoard> | undefined;
    try {
      await lock.raw(`LOCK TABLE boards IN SHARE MODE`);
      first = createBoard(name, key);
      await eventually(async () => expect(await rowsOf(key)).toHaveLength(1));
      const body = { name, columnCount: 12, isPublic: false };
      expectError(
        await sibling.call('POST', '/api/boards', { body, headers }),
        409,
        'CONFLICT',
        'A request with this Idempotency-Key is still in progress; retry later',
      );
      expectError(await sibling.call('POST', '/api/boards', { body: { ...body, name: unique('idem') }, headers }), 422, 'UNPROCESSABLE_CONTENT');
    } finally {
      await lock.commit();
    }
    const created = await first!;
    expect(created.status).toBe(201);
    const replayed = await sibling.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false }, headers });
    expect({ status: replayed.status, body: replayed.body, replayed: replayed.headers.get('idempotent-replayed') }).toEqual({
      status: 201,
      body: created.body,
      replayed: 'true',
    });
  });

  it('IDEM-5: an expired key is free again, and the hourly prune deletes it', async () => {
    const key = unique('key-');
    expect((await createBoard(unique('idem'), key)).status).toBe(201);
    await rowsOf(key).patch({ expiresAt: server.db.raw("now() - interval '1 second'") as never });
    // Another payload is no longer a reuse: the key starts afresh.
    const fresh = await createBoard(unique('idem'), key);
    expect({ status: fresh.status, replayed: fresh.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: null });
    await rowsOf(key).patch({ expiresAt: server.db.raw("now() - interval '1 second'") as never });
    expect(await pruneIdempotencyKeys(server.db)).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(key)).toHaveLength(0);
  });
});
