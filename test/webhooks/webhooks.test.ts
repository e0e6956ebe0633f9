import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook as Verifier } from 'standardwebhooks';
import { stringify as toYaml } from 'yaml';
import { createActor } from '../support/actors';
import { clockBoardFile } from '../support/boardFiles';
import { eventually } from '../support/eventually';
import { expectError } from '../support/expect';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { startReceiver, type Received } from './receiver';

/**
 * Outbound webhooks (HOOK-*), end to end: the app on a real database delivers to a receiver this file runs (a
 * node:http server), and every delivery is verified with the `standardwebhooks` library, as a receiver would.
 * Short delivery timings (WEBHOOK_*) keep retries and the disabling within seconds; waits poll (eventually).
 */
const root = mkdtempSync(path.join(os.tmpdir(), 'tessera-hooks-'));
const openDir = path.join(root, 'open');
mkdirSync(openDir);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const provisionedName = unique('prov-');
const writeFile = (name: string, content: unknown) => writeFileSync(path.join(openDir, `${name}.yaml`), typeof content === 'string' ? content : toYaml(content));
writeFile(provisionedName, clockBoardFile(provisionedName, 2, { stable: true }));
const configFile = path.join(root, 'provisioning.yaml');
writeFileSync(configFile, toYaml({ sources: [{ path: 'open', managedBy: 'hooks-open', prune: false, allowApiUpdates: true }] }));

const retryWindowMs = 4_000;
const server = useTestServer(
  {
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_RETRY_BASE_MS: '100',
    WEBHOOK_RETRY_WINDOW_MS: String(retryWindowMs),
    WEBHOOK_TIMEOUT_MS: '5000',
    PROVISIONING_CONFIG: configFile,
    PROVISIONING_DEBOUNCE_MS: '100',
  },
  { captureLog: true },
);
const onPostgres = process.env.TEST_DATABASE_URL !== undefined;
const pgIt = onPostgres ? it : it.skip;

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
  await server.provisioning;
});
afterAll(async () => receiver?.stop());

const subscribe = async (body: Record<string, unknown>) => {
  const created = await server.call('POST', '/api/webhooks', { body });
  expect(created.status).toBe(201);
  return created.body as { webhookId: string; secret: string; [key: string]: unknown };
};
const createBoard = async (name = unique('hook-')) => {
  const created = await server.call('POST', '/api/boards', { body: { name, columnCount: 12, isPublic: false } });
  expect(created.status).toBe(201);
  return created.body.boardId as string;
};
/** HOOK-5: the payload of a delivery, verified with the library a receiver uses (throws on a bad signature). */
const verified = (secret: string, request: Received) => new Verifier(secret).verify(request.body, request.headers) as { type: string; timestamp: string; data: any };
/** Waits until `hookPath` received a request that `secret` verifies and whose payload matches `test`; answers it. */
const receivedAt = (hookPath: string, secret: string, test: (payload: { type: string; data: any }) => boolean) =>
  eventually(async () => {
    const found = receiver.at(hookPath).find((request) => {
      let payload: { type: string; data: any };
      try {
        payload = verified(secret, request);
      } catch {
        return false;
      }
      return test(payload);
    });
    expect(found).toBeDefined();
    return found!;
  });

describe('HOOK-1..4: subscriptions', () => {
  it('HOOK-1, HOOK-4: an admin creates a subscription and sees its whsec_ secret once; reads never show it', async () => {
    const hookPath = `/hooks/${unique('crud')}`;
    const created = await server.call('POST', '/api/webhooks', { body: { url: receiver.url(hookPath), events: ['board.created', 'board.created'] } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/webhooks/${created.body.webhookId}`);
    expect(created.body).toEqual({
      webhookId: expect.any(String),
      url: receiver.url(hookPath),
      events: ['board.created'],
      boardIds: null,
      enabled: true,
      disabledReason: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      previousSecretExpiresAt: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { webhookId, secret } = created.body;
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    const one = await server.call('GET', `/api/webhooks/${webhookId}`);
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('secret');
    const list = await server.call('GET', '/api/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.find((hook: any) => hook.webhookId === webhookId)).toEqual(one.body);
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(6));
    // Stored encrypted (SECRET-3's cipher), never as the secret itself.
    const row = await server.db('webhooks').where({ id: webhookId }).first('secret');
    expect(row.secret).toMatch(/^v1\./);
    expect(row.secret).not.toContain(secret.slice(6));

    const changed = await server.call('PATCH', `/api/webhooks/${webhookId}`, { body: { events: ['board.deleted'], enabled: false } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ webhookId, events: ['board.deleted'], enabled: false });
    expect(changed.body).not.toHaveProperty('secret');
    expect((await server.call('DELETE', `/api/webhooks/${webhookId}`)).status).toBe(204);
    expectError(await server.call('GET', `/api/webhooks/${webhookId}`), 404, 'NOT_FOUND', 'Webhook not found');
    expectError(await server.call('DELETE', `/api/webhooks/${webhookId}`), 404, 'NOT_FOUND', 'Webhook not found');
    const audit = await server.call('GET', `/api/audit?target=${webhookId}`);
    expect(audit.body.map((entry: any) => entry.action)).toEqual(['webhook.delete', 'webhook.update', 'webhook.create']);
    expect(JSON.stringify(audit.body)).not.toContain(secret.slice(6));
  });

  it('HOOK-2: a bad URL, an unknown event, an unknown board are 400s naming the problem; nothing is written', async () => {
    const count = async () => Number((await server.db('webhooks').count({ n: '*' }))[0]!.n);
    const before = await count();
    for (const url of ['ftp://example.com/hook', 'not a url', 'http://example.com/hook#part']) {
      const refused = await server.call('POST', '/api/webhooks', { body: { url, events: ['board.created'] } });
      expectError(refused, 400, 'BAD_REQUEST');
      expect(refused.body.message).toMatch(/^Webhook URL must (be an absolute http\(s\) URL|not have a fragment)$/);
    }
    const unknownEvent = await server.call('POST', '/api/webhooks', { body: { url: receiver.url('/x'), events: ['board.exploded'] } });
    expectError(unknownEvent, 400, 'BAD_REQUEST', 'Input validation failed');
    expect(JSON.stringify(unknownEvent.body.data.issues)).toContain('/events/0');
    expectError(await server.call('POST', '/api/webhooks', { body: { url: receiver.url('/x'), events: [] } }), 400, 'BAD_REQUEST', 'Input validation failed');
    expectError(
      await server.call('POST', '/api/webhooks', { body: { url: receiver.url('/x'), events: ['board.changed'], boardIds: ['nosuchboard'] } }),
      400,
      'BAD_REQUEST',
      'Unknown board ids: nosuchboard',
    );
    expect(await count()).toBe(before);
  });

  it('HOOK-1: not an admin: 403 Permission denied on every route (anonymous: 401)', async () => {
    const actor = await createActor(server);
    const { webhookId } = await subscribe({ url: receiver.url('/never'), events: ['board.deleted'], enabled: false });
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/webhooks'],
      ['POST', '/api/webhooks', { url: receiver.url('/x'), events: ['board.created'] }],
      ['GET', `/api/webhooks/${webhookId}`],
      ['PATCH', `/api/webhooks/${webhookId}`, { enabled: true }],
      ['DELETE', `/api/webhooks/${webhookId}`],
      ['POST', `/api/webhooks/${webhookId}/rotate`],
      ['GET', `/api/webhooks/${webhookId}/deliveries`],
    ];
    for (const [method, route, body] of routes) {
      expectError(await server.call(method, route, { key: actor.key, body }), 403, 'FORBIDDEN', 'Permission denied');
      expectError(await server.call(method, route, { key: null, body }), 401, 'UNAUTHORIZED');
    }
    expect((await server.call('GET', `/api/webhooks/${webhookId}`)).body.enabled).toBe(false);
  });
});

describe('HOOK-5..9: events, signed', () => {
  it('HOOK-7, HOOK-8: board.created, board.changed (revision, version, summary) and board.deleted, each signed (HOOK-5)', async () => {
    const hookPath = `/hooks/${unique('board')}`;
    const { secret } = await subscribe({ url: receiver.url(hookPath), events: ['board.created', 'board.changed', 'board.deleted'] });
    const name = unique('evt-');
    const boardId = await createBoard(name);
    const created = await receivedAt(hookPath, secret, (p) => p.type === 'board.created' && p.data.boardId === boardId);
    const payload = verified(secret, created);
    expect(payload).toEqual({ type: 'board.created', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), data: { boardId, name } });
    expect(created.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(created.headers['content-type']).toBe('application/json');

    const renamed = unique('evt-renamed-');
    expect((await server.call('PATCH', `/api/boards/${boardId}/name`, { body: { name: renamed } })).status).toBe(204);
    const changed = verified(secret, await receivedAt(hookPath, secret, (p) => p.type === 'board.changed' && p.data.boardId === boardId));
    expect(changed.data).toEqual({
      boardId,
      name: renamed,
      revision: 2,
      version: expect.any(Number),
      operation: 'renameBoard',
      at: expect.any(String),
      summary: { sections: { added: 0, removed: 0, updated: 0 }, items: { added: 0, removed: 0, updated: 0 }, layouts: { added: 0, removed: 0, updated: 0 }, fields: ['name'] },
    });

    expect((await server.call('DELETE', `/api/boards/${boardId}`)).status).toBe(204);
    const deleted = verified(secret, await receivedAt(hookPath, secret, (p) => p.type === 'board.deleted' && p.data.boardId === boardId));
    expect(deleted.data).toEqual({ boardId, name: renamed });
  });

  it('HOOK-10: a write that rolls back sends nothing (a dry run of a set apply)', async () => {
    const hookPath = `/hooks/${unique('dry')}`;
    const { secret, webhookId } = await subscribe({ url: receiver.url(hookPath), events: ['board.created', 'boardSet.applied'] });
    const name = unique('dry-');
    const label = unique('dry-label-');
    const plan = await server.call('POST', '/api/boards/apply?dryRun=true', { body: { managedBy: label, boards: [clockBoardFile(name, 1)] } });
    expect(plan.status).toBe(200);
    expect(plan.body.dryRun).toBe(true);
    // A later real event shows the worker ran past the dry run's moment: nothing of the dry run was queued.
    const boardId = await createBoard();
    await receivedAt(hookPath, secret, (p) => p.type === 'board.created' && p.data.boardId === boardId);
    const rows = await server.db('webhook_outbox').where({ webhookId }).select('payload');
    expect(rows.map((row: any) => row.payload.data.name ?? row.payload.data.label)).not.toContain(name);
    expect(rows).toHaveLength(1);
  });

  it('HOOK-9: boardSet.applied carries the label, the commit and the counts', async () => {
    const hookPath = `/hooks/${unique('set')}`;
    const { secret } = await subscribe({ url: receiver.url(hookPath), events: ['boardSet.applied'] });
    const label = unique('set-label-');
    const [a, b] = [unique('set-a-'), unique('set-b-')];
    const applied = await server.call('POST', '/api/boards/apply', {
      body: { managedBy: label, boards: [clockBoardFile(a, 1), clockBoardFile(b, 1)], origin: { commit: 'abc123', message: 'Two boards' } },
    });
    expect(applied.status).toBe(200);
    const event = verified(secret, await receivedAt(hookPath, secret, (p) => p.data.label === label));
    expect(event).toMatchObject({ type: 'boardSet.applied' });
    expect(event.data).toEqual({
      label,
      commit: 'abc123',
      message: 'Two boards',
      counts: { create: 2, update: 0, unchanged: 0, delete: 0, conflict: 0, changed: true },
      boardIds: applied.body.boards.map((entry: any) => entry.boardId),
    });
  });

  it('HOOK-9: board.drifted when an API write changes a provisioned board; provisioning.failed for a bad file', async () => {
    const hookPath = `/hooks/${unique('prov')}`;
    const { secret } = await subscribe({ url: receiver.url(hookPath), events: ['board.drifted', 'provisioning.failed'] });
    // PROV-7: provisioning applies its directory in the background once the server listens.
    const doc = await eventually(async () => {
      const found = await server.call('GET', `/api/boards/by-name/${provisionedName}`);
      expect(found.status).toBe(200);
      return found.body;
    });
    const [first] = doc.items;
    expect((await server.call('PATCH', `/api/boards/${doc.id}/items/${first.id}`, { body: { options: { is24HourFormat: false } } })).status).toBe(200);
    const drifted = verified(secret, await receivedAt(hookPath, secret, (p) => p.type === 'board.drifted'));
    expect(drifted.data).toEqual({ boardId: doc.id, name: provisionedName, managedBy: 'hooks-open', file: `${provisionedName}.yaml` });

    writeFile(unique('broken-'), 'name: [unclosed');
    const failed = verified(secret, await receivedAt(hookPath, secret, (p) => p.type === 'provisioning.failed'));
    expect(failed.data).toEqual({ managedBy: 'hooks-open', problems: [expect.objectContaining({ message: expect.any(String) })] });
  });

  it('HOOK-3: boardIds limits board events to those boards', async () => {
    const [watched, other] = [await createBoard(), await createBoard()];
    const hookPath = `/hooks/${unique('filter')}`;
    const { secret, webhookId } = await subscribe({ url: receiver.url(hookPath), events: ['board.changed'], boardIds: [watched] });
    for (const boardId of [other, watched]) {
      expect((await server.call('PATCH', `/api/boards/${boardId}/name`, { body: { name: unique('filtered-') } })).status).toBe(204);
    }
    await receivedAt(hookPath, secret, (p) => p.data.boardId === watched);
    expect(receiver.at(hookPath).map((request) => verified(secret, request).data.boardId)).toEqual([watched]);
    expect(Number((await server.db('webhook_outbox').where({ webhookId }).count({ n: '*' }))[0]!.n)).toBe(1);
  });

  it('HOOK-6: after a rotation, deliveries carry both signatures until the overlap ends; each secret verifies', async () => {
    const hookPath = `/hooks/${unique('rotate')}`;
    const { webhookId, secret: oldSecret } = await subscribe({ url: receiver.url(hookPath), events: ['board.created'] });
    const rotated = await server.call('POST', `/api/webhooks/${webhookId}/rotate`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect((await server.call('GET', `/api/webhooks/${webhookId}`)).body).not.toHaveProperty('secret');
    const boardId = await createBoard();
    const request = await receivedAt(hookPath, newSecret, (p) => p.data.boardId === boardId);
    expect(request.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verified(oldSecret, request).data.boardId).toBe(boardId);
    expect(verified(newSecret, request).data.boardId).toBe(boardId);
    expect(() => verified(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, request)).toThrow();

    // A second rotation ends the first secret at once: only the two newest sign.
    const third = (await server.call('POST', `/api/webhooks/${webhookId}/rotate`)).body.secret as string;
    const next = await createBoard();
    const later = await receivedAt(hookPath, third, (p) => p.data.boardId === next);
    expect(verified(newSecret, later).data.boardId).toBe(next);
    expect(() => verified(oldSecret, later)).toThrow();
  });
});

describe('HOOK-11..16: delivery', () => {
  it('HOOK-13, HOOK-16: a 500 is retried with the same webhook-id until a 200; the delivery log shows each attempt', async () => {
    const hookPath = `/hooks/${unique('retry')}`;
    receiver.on(hookPath, [500, 500, 200]);
    const { webhookId, secret } = await subscribe({ url: receiver.url(hookPath), events: ['board.created'] });
    const boardId = await createBoard();
    const log = await eventually(async () => {
      const deliveries = await server.call('GET', `/api/webhooks/${webhookId}/deliveries`);
      expect(deliveries.status).toBe(200);
      expect(deliveries.body.map((d: any) => d.status)).toEqual(['succeeded', 'failed', 'failed']);
      return deliveries.body;
    });
    const requests = receiver.at(hookPath);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const request of requests) expect(verified(secret, request).data.boardId).toBe(boardId);
    expect(log.map((d: any) => d.attempt)).toEqual([3, 2, 1]);
    expect(log[2]).toEqual({
      deliveryId: expect.any(String),
      eventId: requests[0]!.headers['webhook-id'],
      eventType: 'board.created',
      attempt: 1,
      status: 'failed',
      responseStatus: 500,
      durationMs: expect.any(Number),
      error: 'the receiver answered HTTP 500',
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
    });
    expect(log[0]).toMatchObject({ status: 'succeeded', responseStatus: 200, error: null });
    // HTTP-8: paged like the other lists.
    const page = await server.call('GET', `/api/webhooks/${webhookId}/deliveries?limit=2`);
    expect(page.body.map((d: any) => d.attempt)).toEqual([3, 2]);
    const cursor = page.headers.get('tessera-next-cursor');
    expect(page.headers.get('link')).toContain('rel="next"');
    const rest = await server.call('GET', `/api/webhooks/${webhookId}/deliveries?limit=2&cursor=${cursor}`);
    expect(rest.body.map((d: any) => d.attempt)).toEqual([1]);
    expectError(await server.call('GET', `/api/webhooks/${webhookId}/deliveries?cursor=nonsense`), 400, 'BAD_REQUEST', 'Invalid cursor');
    expectError(await server.call('GET', '/api/webhooks/nosuchhook/deliveries'), 404, 'NOT_FOUND', 'Webhook not found');
  });

  it('HOOK-14, HOOK-15: a receiver that always fails: retried over the window, then the subscription is disabled and audited', async () => {
    const hookPath = `/hooks/${unique('down')}`;
    receiver.on(hookPath, [503]);
    const { webhookId } = await subscribe({ url: receiver.url(hookPath), events: ['board.created'] });
    await createBoard();
    const disabled = await eventually(async () => {
      const hook = (await server.call('GET', `/api/webhooks/${webhookId}`)).body;
      expect(hook.enabled).toBe(false);
      return hook;
    });
    expect(disabled.disabledReason).toMatch(/^every delivery attempt failed for 4 s \(last: the receiver answered HTTP 503\)$/);
    const attempts = receiver.at(hookPath).length;
    expect(attempts).toBeGreaterThan(2);
    expect(new Set(receiver.at(hookPath).map((r) => r.headers['webhook-id'])).size).toBe(1);
    const outbox = await server.db('webhook_outbox').where({ webhookId }).first('state', 'attempts');
    expect(outbox).toEqual({ state: 'failed', attempts });
    const audit = await server.call('GET', `/api/audit?action=webhook.disable&target=${webhookId}`);
    expect(audit.body).toHaveLength(1);
    expect(audit.body[0]).toMatchObject({ action: 'webhook.disable', outcome: 'success', surface: 'webhooks', target: { type: 'webhook', id: webhookId }, actor: { userId: null } });
    // A disabled subscription gets no new events; enabling it clears the reason (HOOK-3).
    await createBoard();
    expect(Number((await server.db('webhook_outbox').where({ webhookId }).count({ n: '*' }))[0]!.n)).toBe(1);
    const enabled = await server.call('PATCH', `/api/webhooks/${webhookId}`, { body: { enabled: true } });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null });
  });

  it('HOOK-11: an unreachable receiver is a failed attempt with a reason, never a 5xx of the API', async () => {
    const { webhookId } = await subscribe({ url: 'http://127.0.0.1:9/nothing-listens', events: ['board.created'] });
    await createBoard();
    const [attempt] = await eventually(async () => {
      const log = (await server.call('GET', `/api/webhooks/${webhookId}/deliveries`)).body;
      expect(log.length).toBeGreaterThan(0);
      return log;
    });
    expect(attempt).toMatchObject({ status: 'failed', responseStatus: null, error: expect.stringMatching(/^http:\/\/127\.0\.0\.1:9: unreachable/) });
    expect((await server.call('DELETE', `/api/webhooks/${webhookId}`)).status).toBe(204);
  });

  pgIt('HOOK-12: deleting a subscription while an attempt of it is being recorded waits for it, never a deadlock', async () => {
    // Disabled, so this server's worker leaves its event alone: the transaction below plays the worker's recording of
    // an attempt (the event's outbox row locked, then a delivery row that references the subscription).
    const { webhookId } = await subscribe({ url: receiver.url(`/hooks/${unique('gone')}`), events: ['board.created'], enabled: false });
    const [{ id: entryId }] = await server
      .db('webhook_outbox')
      .insert({ webhookId, eventId: `msg_${unique('e')}`, eventType: 'board.created', payload: JSON.stringify({ boardId: 'b' }) })
      .returning('id');
    let deletion: Promise<{ status: number; body: any }> | undefined;
    await server.db.transaction(async (trx) => {
      await trx('webhook_outbox').where({ id: entryId }).forUpdate().select('id');
      deletion = server.call('DELETE', `/api/webhooks/${webhookId}`);
      // The DELETE is waiting for a lock this transaction holds (nothing else of this database waits on one).
      await eventually(async () => {
        const { rows } = await trx.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
        expect(rows[0].n).toBeGreaterThan(0);
      });
      const now = new Date().toISOString();
      await trx('webhook_deliveries').insert({ webhookId, eventId: 'msg_x', eventType: 'board.created', attempt: 1, status: 'failed', error: 'x', durationMs: 1, startedAt: now, finishedAt: now });
    });
    const deleted = await deletion!;
    expect(deleted.status).toBe(204);
    expect(await server.db('webhooks').where({ id: webhookId })).toHaveLength(0);
    expect(await server.db('webhook_deliveries').where({ webhookId })).toHaveLength(0);
  });

  pgIt('HOOK-12: two instances on one database deliver each event exactly once', async () => {
    const sibling = await server.startSibling();
    try {
      const hookPath = `/hooks/${unique('two')}`;
      const { webhookId, secret } = await subscribe({ url: receiver.url(hookPath), events: ['board.created'] });
      const boardIds: string[] = [];
      for (let i = 0; i < 12; i++) {
        const via = i % 2 === 0 ? server.call : sibling.call;
        const created = await via('POST', '/api/boards', { body: { name: unique('two-'), columnCount: 12, isPublic: false } });
        expect(created.status).toBe(201);
        boardIds.push(created.body.boardId);
      }
      await eventually(async () => {
        const rows = await server.db('webhook_outbox').where({ webhookId }).select('state');
        expect(rows).toHaveLength(12);
        expect(rows.every((row: any) => row.state === 'delivered')).toBe(true);
      });
      const requests = receiver.at(hookPath);
      expect(requests.map((r) => verified(secret, r).data.boardId).sort()).toEqual([...boardIds].sort());
      expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(12);
      const attempts = await server.db('webhook_outbox').where({ webhookId }).pluck('attempts');
      expect(attempts).toEqual(new Array(12).fill(1));
    } finally {
      await sibling.stop();
    }
  });

  it('HOOK-4: no secret in the server log', async () => {
    const { secret, webhookId } = await subscribe({ url: receiver.url(`/hooks/${unique('log')}`), events: ['board.created'] });
    const rotated = (await server.call('POST', `/api/webhooks/${webhookId}/rotate`)).body.secret as string;
    await createBoard();
    await eventually(async () => expect(Number((await server.db('webhook_deliveries').where({ webhookId }).count({ n: '*' }))[0]!.n)).toBe(1));
    const log = server.logLines.join('\n');
    expect(log).toContain('webhook.rotate');
    for (const value of [secret, rotated]) expect(log).not.toContain(value.slice(6));
  });
});
