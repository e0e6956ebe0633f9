import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { decodeBackup } from '../../src/backup/format';
import { createBackup } from '../../src/backup/store';
import { ConfigError, loadConfig } from '../../src/config/config';
import { parseSecretKey, SecretCipher, SecretDecryptError, SecretKeyError } from '../../src/integrations/secrets/cipher';
import { loadSecretCipher } from '../../src/integrations/secrets/key';
import { planSecretKinds } from '../../src/integrations/secrets/kinds';
import { decryptedSecrets, rotateSecrets } from '../../src/integrations/secrets/store';
import { createActor } from '../support/actors';
import { expectError } from '../support/expect';
import { call, testSecretKey, useTestServer } from '../support/server';
import { unique } from '../support/unique';
import { expectOk, item, position } from '../boards-document/helpers';

const server = useTestServer();
const cipher = () => new SecretCipher(Buffer.from(testSecretKey, 'hex'));

async function create(body: Record<string, unknown>, key?: string) {
  return server.call('POST', '/api/integrations', { key: key ?? server.adminKey, body: { name: unique('Int'), url: 'http://127.0.0.1:1', ...body } });
}

describe('SECRET-3: the cipher', () => {
  it('SECRET-3: encrypts with AES-256-GCM under a versioned, key-named format, a fresh IV each time, and refuses altered text or another key', () => {
    const c = cipher();
    const a = c.encrypt('hunter2');
    const b = c.encrypt('hunter2');
    expect(a).not.toBe(b);
    expect(a.split('.')).toHaveLength(5);
    expect(a.startsWith(`v1.${c.keyId}.`)).toBe(true);
    expect(a).not.toContain('hunter2');
    expect(Buffer.from(a.split('.')[2], 'base64url')).toHaveLength(12);
    expect(c.decrypt(a)).toBe('hunter2');
    const parts = a.split('.');
    const flipped = Buffer.from(parts[4], 'base64url');
    flipped[0] ^= 1;
    expect(() => c.decrypt([...parts.slice(0, 4), flipped.toString('base64url')].join('.'))).toThrow(SecretDecryptError);
    const other = new SecretCipher(randomBytes(32));
    expect(() => other.decrypt(a)).toThrow(/another key/);
    expect(other.wrote(a)).toBe(false);
  });

  it('SECRET-2: a key is 32 bytes as 64 hex digits or base64; anything else is refused without repeating it', () => {
    const key = randomBytes(32);
    expect(parseSecretKey(key.toString('hex'), 'X')).toEqual(key);
    expect(parseSecretKey(key.toString('base64'), 'X')).toEqual(key);
    expect(parseSecretKey(key.toString('base64url'), 'X')).toEqual(key);
    expect(() => parseSecretKey('short-and-secret', 'SECRET_ENCRYPTION_KEY')).toThrow(SecretKeyError);
    try {
      parseSecretKey('short-and-secret', 'SECRET_ENCRYPTION_KEY');
    } catch (error) {
      expect((error as Error).message).not.toContain('short-and-secret');
    }
  });
});

describe('SECRET-2: where the key comes from', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tessera-key-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('SECRET-2: the embedded default generates one key once, mode 0600, in the data directory', () => {
    const config = loadConfig({ DATA_DIR: dir });
    const first = loadSecretCipher(config);
    expect(first.source).toBe('data directory');
    const file = path.join(dir, 'secret-encryption.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = loadSecretCipher(config);
    expect(second.cipher.keyId).toBe(first.cipher.keyId);
    expect(second.cipher.decrypt(first.cipher.encrypt('x'))).toBe('x');
  });

  it('SECRET-2: PostgreSQL without a key refuses to start with one line; a key file (Docker secrets) is read', () => {
    const withPg = loadConfig({ DATA_DIR: dir, DATABASE_URL: 'postgres://localhost/none' });
    expect(() => loadSecretCipher(withPg)).toThrow(ConfigError);
    expect(() => loadSecretCipher(withPg)).toThrow(/^SECRET_ENCRYPTION_KEY or SECRET_ENCRYPTION_KEY_FILE is required with DATABASE_URL[^\n]*$/);
    const keyFile = path.join(dir, 'key');
    require('node:fs').writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`);
    expect(loadSecretCipher(loadConfig({ DATABASE_URL: 'postgres://localhost/none', SECRET_ENCRYPTION_KEY_FILE: keyFile })).source).toBe('SECRET_ENCRYPTION_KEY_FILE');
    expect(() => loadSecretCipher(loadConfig({ SECRET_ENCRYPTION_KEY: 'abc' }))).toThrow(/SECRET_ENCRYPTION_KEY must be 32 bytes/);
  });
});

describe('SECRET-1: the secret kinds each integration kind takes', () => {
  it('SECRET-1: accepts one whole set, or none at all', () => {
    expect(planSecretKinds('qBittorrent', [], [{ kind: 'username', value: 'a' }, { kind: 'password', value: 'b' }])).toEqual(['password', 'username']);
    expect(planSecretKinds('deluge', [], [{ kind: 'password', value: 'b' }])).toEqual(['password']);
    expect(planSecretKinds('glances', [], [])).toEqual([]);
    expect(planSecretKinds('aria2', [], [{ kind: 'apiKey', value: 'k' }])).toEqual(['apiKey']);
    expect(() => planSecretKinds('deluge', [], [{ kind: 'username', value: 'a' }])).toThrow('Secret kinds not used by deluge: username');
    expect(() => planSecretKinds('ical', [], [{ kind: 'apiKey', value: 'a' }])).toThrow('Secret kinds not used by ical: apiKey');
    expect(() => planSecretKinds('jellyfin', [], [{ kind: 'username', value: 'a' }, { kind: 'apiKey', value: 'k' }])).toThrow(/do not go together for jellyfin/);
  });

  it('SECRET-1: POST answers 400 naming a missing or foreign kind, and writes nothing', async () => {
    const before = (await server.db('integrations').count({ n: '*' }))[0].n;
    const missing = await create({ kind: 'qBittorrent', secrets: [{ kind: 'username', value: 'admin' }] });
    expectError(missing, 400, 'BAD_REQUEST', 'Missing secret kinds for qBittorrent: password');
    expect(missing.body.data).toEqual({ missingKinds: ['password'] });
    const foreign = await create({ kind: 'qBittorrent', secrets: [{ kind: 'username', value: 'a' }, { kind: 'password', value: 'b' }, { kind: 'apiKey', value: 'c' }] });
    expectError(foreign, 400, 'BAD_REQUEST');
    expect(foreign.body.message).toMatch(/^Secret kinds not used by qBittorrent: apiKey/);
    expect(foreign.body.data).toEqual({ foreignKinds: ['apiKey'] });
    expectError(await create({ kind: 'qBittorrent', secrets: [{ kind: 'notAKind', value: 'x' }] }), 400, 'BAD_REQUEST');
    expect((await server.db('integrations').count({ n: '*' }))[0].n).toEqual(before);
  });
});

describe('SECRET-4, SECRET-5: stored encrypted, replaced per kind, never returned', () => {
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const replaced = `pw2-${randomBytes(8).toString('hex')}`;
  let id: string;

  beforeAll(async () => {
    id = expectOk(await create({ kind: 'qBittorrent', secrets: [{ kind: 'username', value: 'admin' }, { kind: 'password', value: password }] }), 201).integrationId;
  });

  it('SECRET-3: the row holds ciphertext only; SECRET-5: the answers carry kinds and dates', async () => {
    const rows = await server.db('integration_secrets').where({ integrationId: id }).orderBy('kind');
    expect(rows.map((r: { kind: string }) => r.kind)).toEqual(['password', 'username']);
    for (const row of rows) {
      expect(row.value).toMatch(/^v1\./);
      expect(row.value).not.toContain(password);
    }
    expect((await decryptedSecrets(server.db, cipher(), [id])).get(id)).toEqual({ username: 'admin', password });
    const read = expectOk(await server.call('GET', `/api/integrations/${id}`));
    expect(read.secrets).toEqual([
      { kind: 'password', updatedAt: expect.any(String) },
      { kind: 'username', updatedAt: expect.any(String) },
    ]);
    const listed = expectOk(await server.call('GET', '/api/integrations')).find((entry: { id: string }) => entry.id === id);
    expect(listed.secrets).toEqual(read.secrets);
  });

  it('SECRET-4: PATCH replaces the kinds it names, keeps the others, null removes; a half set is 400 and writes nothing', async () => {
    const before = await server.db('integration_secrets').where({ integrationId: id, kind: 'username' }).first();
    const patched = expectOk(await server.call('PATCH', `/api/integrations/${id}`, { body: { secrets: [{ kind: 'password', value: replaced }] } }));
    expect(patched.secrets.map((s: { kind: string }) => s.kind)).toEqual(['password', 'username']);
    expect((await decryptedSecrets(server.db, cipher(), [id])).get(id)).toEqual({ username: 'admin', password: replaced });
    expect((await server.db('integration_secrets').where({ integrationId: id, kind: 'username' }).first()).value).toBe(before.value);

    const half = await server.call('PATCH', `/api/integrations/${id}`, { body: { name: 'renamed', secrets: [{ kind: 'password', value: null }] } });
    expectError(half, 400, 'BAD_REQUEST', 'Missing secret kinds for qBittorrent: password');
    expect(expectOk(await server.call('GET', `/api/integrations/${id}`)).name).not.toBe('renamed');
    expectError(await server.call('PATCH', `/api/integrations/${id}`, { body: { secrets: [{ kind: 'apiKey', value: 'x' }] } }), 400, 'BAD_REQUEST');

    const other = expectOk(await create({ kind: 'qBittorrent', secrets: [{ kind: 'username', value: 'u' }, { kind: 'password', value: 'p' }] }), 201).integrationId;
    const cleared = expectOk(await server.call('PATCH', `/api/integrations/${other}`, { body: { secrets: [{ kind: 'username', value: null }, { kind: 'password', value: null }] } }));
    expect(cleared.secrets).toEqual([]);
    expect(await server.db('integration_secrets').where({ integrationId: other })).toEqual([]);
  });

  it('SECRET-4: PATCH needs full access on the integration', async () => {
    const user = await createActor(server, { permissions: ['integration-use-all'] });
    expectError(await server.call('PATCH', `/api/integrations/${id}`, { key: user.key, body: { secrets: [{ kind: 'password', value: 'stolen' }] } }), 403, 'FORBIDDEN', 'Permission denied');
    const stranger = await createActor(server);
    expectError(await server.call('PATCH', `/api/integrations/${id}`, { key: stranger.key, body: { name: 'x' } }), 404, 'NOT_FOUND', 'Integration not found');
  });

  it('SECRET-5: no answer, export, board page, backup or audit entry carries a value', async () => {
    const boardName = unique('secret-board-');
    const { boardId } = expectOk(await server.call('POST', '/api/boards', { body: { name: boardName, columnCount: 12, isPublic: true } }), 201);
    const doc = expectOk(await server.call('GET', `/api/boards/${boardId}`));
    const itemId = unique('dl');
    expectOk(
      await server.call('PUT', `/api/boards/${boardId}`, {
        body: { sections: doc.sections, items: [item(itemId, [position(doc.layouts[0].id, doc.sections[0].id, 0, 0, 2, 2)], { kind: 'downloads', integrationIds: [id] })] },
      }),
    );
    const texts: string[] = [];
    for (const p of [`/api/boards/${boardId}`, `/api/boards/${boardId}/export`, '/api/integrations', `/api/integrations/${id}`, '/api/audit?limit=200', `/api/boards/${boardId}/items/${itemId}/data`]) {
      texts.push(JSON.stringify((await server.call('GET', p)).body));
    }
    // YAML straight from the server: the contract proxy validates JSON bodies only (as in test/boards-files/files.test.ts).
    texts.push(JSON.stringify((await call(server.directUrl, 'GET', `/api/boards/${boardId}/export`, { key: server.adminKey, headers: { Accept: 'application/yaml' } })).body));
    texts.push(await (await fetch(`${server.directUrl}/boards/${boardName}`)).text());
    const backup = decodeBackup(await createBackup(server.db, 'pglite'));
    expect(backup.tables.map((t) => t.name)).not.toContain('integration_secrets');
    texts.push(JSON.stringify(backup));
    const stored = (await server.db('integration_secrets').where({ integrationId: id }).select('value')).map((r: { value: string }) => r.value);
    for (const text of texts) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(replaced);
      for (const value of stored) expect(text).not.toContain(value);
    }
    const audit = expectOk(await server.call('GET', '/api/audit?action=integration.update'));
    expect(audit[0]).toMatchObject({ details: { secretsSet: expect.any(Array) } });
  });

  it('SECRET-6: a rotation re-encrypts every secret under the new key in one transaction, and is idempotent', async () => {
    const next = new SecretCipher(randomBytes(32));
    const first = await rotateSecrets(server.db, cipher(), next);
    expect(first.reencrypted).toBeGreaterThan(0);
    expect((await decryptedSecrets(server.db, next, [id])).get(id)).toEqual({ username: 'admin', password: replaced });
    const again = await rotateSecrets(server.db, cipher(), next);
    expect(again).toEqual({ reencrypted: 0, alreadyNew: first.reencrypted + first.alreadyNew });
    await rotateSecrets(server.db, next, cipher());
    expect((await decryptedSecrets(server.db, cipher(), [id])).get(id)).toEqual({ username: 'admin', password: replaced });
  });
});
