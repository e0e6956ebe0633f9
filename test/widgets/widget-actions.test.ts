import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { loadPrincipal } from '../../src/identity/principal';
import { SecretCipher } from '../../src/integrations/secrets/cipher';
import { loadConfig } from '../../src/config/config';
import { createWidgetDataDeps, readItemData, runItemAction } from '../../src/widgets/data/service';
import type { LiveKind } from '../../src/widgets/data/types';
import { createActor } from '../support/actors';
import { testSecretKey, useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

/**
 * WDATA-8, WDATA-9 with a tiny test-only kind that has an action (the real download kinds are another engineer's): the
 * service on the real database, its action sent to a local stand-in with the integration's secrets.
 */
const server = useTestServer();
let standIn: http.Server;
let standInUrl: string;
const received: { url: string; auth: string | undefined; body: string }[] = [];
const password = `act-${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  standIn = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ url: req.url ?? '', auth: req.headers.authorization, body });
      res.writeHead(req.url?.startsWith('/refuse') ? 403 : 200).end('{}');
    });
  });
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => standIn?.close(resolve)));

const testKind: LiveKind = {
  widgetKind: 'downloads',
  ttlMs: 5000,
  integrationKinds: ['qBittorrent'],
  query: () => ({}),
  fromIntegration: async () => ({ note: 'no declared shape for this test kind' }),
  actions: ['pause', 'resume'],
  async act(ctx, integration, action, ids) {
    const answer = await ctx.fetch(`${integration.target.url}/${action}`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${integration.target.secrets.username}:${integration.target.secrets.password}`).toString('base64')}` },
      body: ids.join('|'),
      timeoutMs: ctx.timeoutMs,
      maxBytes: ctx.maxBytes,
    });
    if (answer.status !== 200) throw new Error(`refused with ${password}`);
  },
};

describe('WDATA-9: an action through the service, with a test-only kind', () => {
  it('WDATA-8, WDATA-9: interact holders see and take the actions; others see none and get 403; a refusal is data without secrets', async () => {
    const deps = { ...createWidgetDataDeps(new SecretCipher(Buffer.from(testSecretKey, 'hex')), loadConfig({}).liveData), kinds: new Map([['downloads', testKind]]) };
    const id = expectOk(
      await server.call('POST', '/api/integrations', {
        body: { name: unique('Q'), kind: 'qBittorrent', url: standInUrl, secrets: [{ kind: 'username', value: 'admin' }, { kind: 'password', value: password }] },
      }),
      201,
    ).integrationId;
    const refusing = expectOk(await server.call('POST', '/api/integrations', { body: { name: unique('Q'), kind: 'qBittorrent', url: `${standInUrl}/refuse` } }), 201).integrationId;
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: unique('act-'), columnCount: 12, isPublic: true } }), 201);
    const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
    const itemId = unique('dl');
    expectOk(
      await server.call('PUT', `/api/boards/${boardId}`, {
        body: { sections: doc.sections, items: [item(itemId, [position(doc.layouts[0].id, doc.sections[0].id, 0, 0, 2, 2)], { kind: 'downloads', integrationIds: [id, refusing] })] },
      }),
    );
    const interacting = await createActor(server, { permissions: ['integration-interact-all'] });
    const viewer = await createActor(server);
    const asUser = async (userId: string) => (await loadPrincipal(server.db, userId, { authMethod: 'apiKey', apiKeyId: null, scopes: null }))!;

    const seen = await readItemData(server.db, deps, await asUser(interacting.userId), boardId, itemId);
    expect(seen.results.map((r) => r.actions)).toEqual([['pause', 'resume'], ['pause', 'resume']]);
    const anonymous = await readItemData(server.db, deps, null, boardId, itemId);
    expect(anonymous.results.map((r) => r.actions)).toEqual([[], []]);
    expect((await readItemData(server.db, deps, await asUser(viewer.userId), boardId, itemId)).results.map((r) => r.actions)).toEqual([[], []]);

    await expect(runItemAction(server.db, deps, await asUser(viewer.userId), boardId, itemId, { integrationId: id, action: 'pause', ids: ['h1'] })).rejects.toMatchObject({ status: 403 });
    await expect(runItemAction(server.db, deps, null, boardId, itemId, { integrationId: id, action: 'pause', ids: ['h1'] })).rejects.toMatchObject({ status: 403 });
    await expect(runItemAction(server.db, deps, await asUser(interacting.userId), boardId, itemId, { integrationId: id, action: 'delete', ids: ['h1'] })).rejects.toMatchObject({ status: 400 });

    const done = await runItemAction(server.db, deps, await asUser(interacting.userId), boardId, itemId, { integrationId: id, action: 'pause', ids: ['h1', 'h2'] });
    expect(done).toEqual({ status: 'ok', message: null });
    expect(received.at(-1)).toEqual({ url: '/pause', auth: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`, body: 'h1|h2' });
    // The integration's cached answers expired with the action: the next read fetches again.
    const expired = await server.db('widget_data_cache').where({ integrationId: id }).select(server.db.raw('expires_at <= now() AS expired'));
    expect(expired).toEqual([{ expired: true }]);

    const refused = await runItemAction(server.db, deps, await asUser(interacting.userId), boardId, itemId, { integrationId: refusing, action: 'resume', ids: ['h1'] });
    expect(refused.status).toBe('error');
    expect(refused.message).not.toContain(password);
  });
});
