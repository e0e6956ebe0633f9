/**
 * The fleet in the audit log and the metrics (AUDIT-7, AUDIT-8, METRIC-6, METRIC-7): set applies and prunes,
 * provisioning applies, the use of an expired API key, and the fleet's metrics, over HTTP on a real database.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { createActor } from '../support/actors';
import { useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectError, expectOk } from '../boards-document/helpers';
import { clockBoardFile } from '../support/boardFiles';
import { eventually } from '../support/eventually';
import { expiredKeyAuditWindowSeconds } from '../../src/identity/authenticate';
import { sample } from '../support/metrics';

const boardFile = (name: string, clocks = 2) => clockBoardFile(name, clocks, { stable: true });

const root = mkdtempSync(path.join(os.tmpdir(), 'tessera-fleet-audit-'));
const sourceDir = path.join(root, 'team');
mkdirSync(sourceDir);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const provisionedName = unique('prov-');
const writeProvisioned = (clocks: number) => writeFileSync(path.join(sourceDir, `${provisionedName}.yaml`), toYaml(boardFile(provisionedName, clocks)));
writeProvisioned(2);
const configFile = path.join(root, 'provisioning.yaml');
writeFileSync(configFile, toYaml({ sources: [{ path: 'team', managedBy: 'team-audit', prune: true, allowApiUpdates: true }] }));

const metricsToken = 'metrics-token-for-fleet-tests';
const server = useTestServer({ PROVISIONING_CONFIG: configFile, PROVISIONING_DEBOUNCE_MS: '100', METRICS_TOKEN: metricsToken });

async function audit(query: Record<string, string>) {
  return expectOk(await server.call('GET', `/api/audit?${new URLSearchParams(query)}`)) as any[];
}

async function scrape(): Promise<string> {
  const answer = await server.call('GET', '/metrics', { key: null, headers: { Authorization: `Bearer ${metricsToken}` } });
  expect(answer.status).toBe(200);
  return answer.body as string;
}

const applySet = (body: unknown, query = '', key?: string) => server.call('POST', `/api/boards/apply${query}`, key ? { body, key } : { body });
const boardByName = async (name: string) => server.db('boards').whereRaw('lower(name) = lower(?)', [name]).first('id');

describe('AUDIT-7: set applies and prunes', () => {
  it('AUDIT-7: one entry per real apply (counts, pruned names) and a board.delete per pruned board; none for a dry run', async () => {
    const label = unique('repo-');
    const [keep, drop] = [boardFile(unique('keep-')), boardFile(unique('drop-'))];
    expectOk(await applySet({ managedBy: label, boards: [keep, drop] }));
    const [created] = await audit({ action: 'board.set.apply', target: label });
    expect(created).toMatchObject({
      outcome: 'success',
      surface: 'rest',
      actor: { apiKeyId: server.adminKey.split('.')[0] },
      target: { type: 'boardSet', id: label },
      details: { managedBy: label, created: 2, updated: 0, unchanged: 0, deleted: 0, pruned: [], overwritten: [] },
    });
    const dropId = (await boardByName(drop.name)).id;

    expectOk(await applySet({ managedBy: label, boards: [keep] }, '?prune=true&dryRun=true'));
    expect(await audit({ action: 'board.set.apply', target: label })).toHaveLength(1);
    expect(await audit({ target: dropId })).toEqual([]);

    const plan = expectOk(await applySet({ managedBy: label, boards: [keep] }, '?prune=true'));
    expect(plan.summary).toMatchObject({ unchanged: 1, delete: 1 });
    const applies = await audit({ action: 'board.set.apply', target: label });
    expect(applies).toHaveLength(2);
    expect(applies[0]).toMatchObject({ details: { created: 0, updated: 0, unchanged: 1, deleted: 1, pruned: [drop.name] }, requestId: expect.any(String) });
    expect(await audit({ target: dropId })).toEqual([
      expect.objectContaining({ action: 'board.delete', surface: 'rest', target: { type: 'board', id: dropId }, details: { name: drop.name, managedBy: label, prune: true } }),
    ]);
    // The set's entry and its prune's entries come from one request.
    expect((await audit({ target: dropId }))[0].requestId).toBe(applies[0].requestId);
  });

  it('AUDIT-7: the set apply entry carries the commit id and subject its history entries have (FLEET-8)', async () => {
    const label = unique('repo-');
    const file = boardFile(unique('committed-'));
    const origin = { commit: 'a3f1c9e2b7d4a3f1c9e2b7d4a3f1c9e2b7d4a3f1', message: 'Add the kitchen board' };
    expectOk(await applySet({ managedBy: label, origin, boards: [file] }));
    const [entry] = await audit({ action: 'board.set.apply', target: label });
    expect(entry.details).toEqual({ managedBy: label, created: 1, updated: 0, unchanged: 0, deleted: 0, pruned: [], overwritten: [], ...origin });
    const [history] = expectOk(await server.call('GET', `/api/boards/${(await boardByName(file.name)).id}/history`)).entries;
    expect(history.origin).toEqual({ managedBy: label, ...origin });

    // Without an origin (not from a git work tree, no --message): both null, as in history.
    expectOk(await applySet({ managedBy: label, boards: [boardFile(file.name, 3)] }));
    const [second] = await audit({ action: 'board.set.apply', target: label });
    expect(second.details).toMatchObject({ updated: 1, commit: null, message: null });
  });

  it('AUDIT-7, FLEET-16: a forced apply names the boards it wrote over another writer\'s changes', async () => {
    const label = unique('repo-');
    const [edited, untouched] = [boardFile(unique('edited-')), boardFile(unique('untouched-'))];
    expectOk(await applySet({ managedBy: label, boards: [edited, untouched] }));
    const ids = await Promise.all([edited, untouched].map(async (f) => (await boardByName(f.name)).id));
    const exported = await Promise.all(ids.map(async (id) => expectOk(await server.call('GET', `/api/boards/${id}/export`))));
    expectOk(await server.call('PATCH', `/api/boards/${ids[0]}/items/${exported[0].items[0].id}`, { body: { options: { is24HourFormat: false } } }));
    const changed = exported.map((f: any) => ({ ...f, items: f.items.slice(1) }));
    expectOk(await applySet({ managedBy: label, boards: changed }, '?force=true'));
    const [entry] = await audit({ action: 'board.set.apply', target: label });
    expect(entry.details).toMatchObject({ updated: 2, overwritten: [edited.name] });
  });

  it('AUDIT-7: a refused apply (409 of another label, 403 on prune) leaves no entry', async () => {
    const label = unique('repo-');
    const file = boardFile(unique('owned-'));
    expectOk(await applySet({ managedBy: label, boards: [file] }));
    const before = await audit({ action: 'board.set.apply', target: label });
    expect(before).toHaveLength(1);
    // Another label's board in the set: 409 after the first file was written in the transaction.
    const other = unique('other-');
    expectError(await applySet({ managedBy: other, boards: [boardFile(unique('fresh-')), file] }), 409, 'CONFLICT', `Board ${file.name}: Board is managed by ${label}`);
    expect(await audit({ action: 'board.set.apply', target: other })).toEqual([]);

    // A prune of a board the caller may view but not delete: 403, nothing written, no entry of either kind.
    const creator = await createActor(server, { permissions: ['board-create'] });
    const { id } = await boardByName(file.name);
    await server.db('board_user_permissions').insert({ boardId: id, userId: creator.userId, permission: 'view' });
    // FLEET-15: the label is the caller's, so that the prune's board rule decides.
    expectOk(await server.call('PUT', `/api/boards/labels/${encodeURIComponent(label)}/owner`, { body: { userId: creator.userId } }));
    expectError(await applySet({ managedBy: label, boards: [boardFile(unique('mine-'))] }, '?prune=true', creator.key), 403, 'FORBIDDEN', `Board ${file.name}: Permission denied`);
    expect(await audit({ action: 'board.set.apply', target: label })).toEqual(before);
    expect(await audit({ target: id, action: 'board.delete' })).toEqual([]);
  });
});

describe('AUDIT-7: provisioning applies', () => {
  it('AUDIT-7: an apply that changes boards is one entry by the provisioning user, surface provisioning', async () => {
    const board = await eventually(async () => {
      const found = await boardByName(provisionedName);
      expect(found).toBeDefined();
      return found;
    });
    const entries = await eventually(async () => {
      const found = await audit({ action: 'provisioning.apply', target: 'team-audit' });
      expect(found.length).toBeGreaterThan(0);
      return found;
    });
    // The oldest entry is the start's apply, which created the board.
    const first = entries[entries.length - 1];
    expect(first).toMatchObject({
      outcome: 'success',
      surface: 'provisioning',
      actor: { apiKeyId: null, name: 'admin', userId: expect.any(String) },
      clientAddress: null,
      requestId: null,
      target: { type: 'boardSet', id: 'team-audit' },
      details: { managedBy: 'team-audit', created: 1, pruned: [] },
    });
    const count = (await audit({ action: 'provisioning.apply', target: 'team-audit' })).length;

    writeProvisioned(3);
    await eventually(async () => expect(await audit({ action: 'provisioning.apply', target: 'team-audit' })).toHaveLength(count + 1));
    const [updated] = await audit({ action: 'provisioning.apply', target: 'team-audit' });
    expect(updated.details).toMatchObject({ created: 0, updated: 1, deleted: 0 });
    expect(board.id).toEqual(expect.any(String));
  });
});

describe('AUDIT-8: the use of an expired API key', () => {
  it('AUDIT-8: a refused authentication with an expired key is one failure entry naming the key and its owner', async () => {
    const actor = await createActor(server);
    const keyId = actor.key.split('.')[0];
    expectOk(await server.call('GET', '/api/boards', { key: actor.key }));
    await server.db('api_keys').where({ id: keyId }).update({ expiresAt: new Date(Date.now() - 60_000) });
    expectError(await server.call('GET', '/api/boards', { key: actor.key }), 401, 'UNAUTHORIZED', 'API key expired');
    const entries = await audit({ action: 'apikey.expired', target: keyId });
    expect(entries).toEqual([
      expect.objectContaining({
        outcome: 'failure',
        surface: 'rest',
        actor: { userId: actor.userId, apiKeyId: keyId, name: actor.username },
        clientAddress: expect.stringMatching(/127\.0\.0\.1/),
        target: { type: 'apikey', id: keyId },
      }),
    ]);
    expect(JSON.stringify(entries)).not.toContain(actor.key.split('.')[1]);
    // A client retrying with its expired key: still a 401 each time, and no second entry within the window.
    for (let i = 0; i < 3; i++) expectError(await server.call('GET', '/api/boards', { key: actor.key }), 401, 'UNAUTHORIZED', 'API key expired');
    expect(await audit({ action: 'apikey.expired', target: keyId })).toHaveLength(1);
    // Past the window (the last entry moved back in time) the next use is recorded again.
    await server.db.raw('ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only');
    await server.db('audit_log').where({ targetId: keyId, action: 'apikey.expired' }).update({ at: new Date(Date.now() - (expiredKeyAuditWindowSeconds + 5) * 1000) });
    await server.db.raw('ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only');
    expectError(await server.call('GET', '/api/boards', { key: actor.key }), 401, 'UNAUTHORIZED', 'API key expired');
    expect(await audit({ action: 'apikey.expired', target: keyId })).toHaveLength(2);
    // A wrong token of the same id is no use of the key: no entry.
    const token = actor.key.split('.')[1];
    const wrong = `${keyId}.${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expectError(await server.call('GET', '/api/boards', { key: wrong }), 401, 'UNAUTHORIZED', 'Invalid API key');
    expect(await audit({ action: 'apikey.expired', target: keyId })).toHaveLength(2);
  });
});

describe('METRIC-6, METRIC-7: the fleet metrics', () => {
  it('METRIC-6, METRIC-7: names present, set applies by outcome and dry_run, provisioning applies, drifted boards', async () => {
    await eventually(async () => expect(await boardByName(provisionedName)).toBeDefined());
    const before = await scrape();
    for (const name of ['tessera_set_applies_total', 'tessera_provisioning_applies_total', 'tessera_drifted_boards']) expect(before).toContain(name);
    expect(sample(before, 'tessera_provisioning_applies_total', { source: 'team-audit', outcome: 'success' })).toBeGreaterThanOrEqual(1);

    const label = unique('repo-');
    const file = boardFile(unique('metric-'));
    expectOk(await applySet({ managedBy: label, boards: [file] }, '?dryRun=true'));
    expectOk(await applySet({ managedBy: label, boards: [file] }));
    expectError(await applySet({ managedBy: unique('other-'), boards: [file] }), 409, 'CONFLICT');
    const after = await scrape();
    for (const [labels, moved] of [
      [{ outcome: 'success', dry_run: 'true' }, 1],
      [{ outcome: 'success', dry_run: 'false' }, 1],
      [{ outcome: 'failure', dry_run: 'false' }, 1],
    ] as const) {
      expect(sample(after, 'tessera_set_applies_total', labels)).toBe(sample(before, 'tessera_set_applies_total', labels) + moved);
    }

    // An API edit of the provisioned board (allowApiUpdates true) makes it drifted (DRIFT-2).
    const drifted0 = sample(after, 'tessera_drifted_boards');
    const { id } = await boardByName(provisionedName);
    const doc = expectOk(await server.call('GET', `/api/boards/${id}`));
    expectOk(await server.call('PATCH', `/api/boards/${id}/items/${doc.items[0].id}`, { body: { options: { is24HourFormat: false } } }));
    expect(sample(await scrape(), 'tessera_drifted_boards')).toBe(drifted0 + 1);
  });

  it('METRIC-7: the Grafana dashboard charts every tessera_ metric of the exposition', async () => {
    const dashboard = readFileSync(path.join(__dirname, '../../docs/grafana/tessera.json'), 'utf8');
    const names = new Set([...(await scrape()).matchAll(/^# TYPE (tessera_\w+) /gm)].map((match) => match[1]));
    expect(names.size).toBeGreaterThan(15);
    expect([...names].filter((name) => !dashboard.includes(name))).toEqual([]);
  });
});
