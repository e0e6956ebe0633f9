import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { SecretCipher } from '../../src/integrations/secrets/cipher';
import { loadSecretCipher } from '../../src/integrations/secrets/key';
import { applySecretChanges, decryptedSecrets } from '../../src/integrations/secrets/store';
import { expectStatus, runTessera } from '../support/cli';

/** SECRET-6: `tessera secrets rotate-key` as its own process, on an embedded database in a temporary DATA_DIR. */
describe('SECRET-6: tessera secrets rotate-key', () => {
  let dataDir: string;
  const env = () => ({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', SECRET_ENCRYPTION_KEY: '', SECRET_ENCRYPTION_KEY_FILE: '' });

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-rotate-'));
    const { cipher } = loadSecretCipher({ secretEncryptionKey: null, secretEncryptionKeyFile: null, databaseUrl: null, dataDir });
    const db = createDatabase({ databaseUrl: null, pgliteDir: dataDir });
    try {
      await migrateToLatest(db);
      await db('integrations').insert({ id: 'rotate-me', name: 'Seedbox', kind: 'qBittorrent', url: 'http://127.0.0.1:1' });
      await db.transaction((trx) => applySecretChanges(trx, cipher, 'rotate-me', [{ kind: 'username', value: 'admin' }, { kind: 'password', value: 'before-rotation' }]));
    } finally {
      await db.destroy();
    }
  }, 180_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const secrets = async (cipher: SecretCipher) => {
    const db = createDatabase({ databaseUrl: null, pgliteDir: dataDir });
    try {
      return (await decryptedSecrets(db, cipher, ['rotate-me'])).get('rotate-me');
    } finally {
      await db.destroy();
    }
  };

  it('SECRET-6: --generate re-encrypts every secret and replaces the data directory key; a new key file works with --new-key-file', async () => {
    const keyFile = path.join(dataDir, 'secret-encryption.key');
    const before = readFileSync(keyFile, 'utf8');
    const generated = await runTessera(['secrets', 'rotate-key', '--generate'], env());
    expectStatus(generated, 0);
    expect(JSON.parse(generated.stdout)).toMatchObject({ reencrypted: 2, alreadyNew: 0 });
    const after = readFileSync(keyFile, 'utf8');
    expect(after).not.toBe(before);
    expect(await secrets(new SecretCipher(Buffer.from(after.trim(), 'hex')))).toEqual({ username: 'admin', password: 'before-rotation' });

    const next = randomBytes(32);
    const nextFile = path.join(dataDir, 'next.key');
    writeFileSync(nextFile, next.toString('base64'));
    const rotated = await runTessera(['secrets', 'rotate-key', '--new-key-file', nextFile], { ...env(), SECRET_ENCRYPTION_KEY: after.trim() });
    expectStatus(rotated, 0);
    expect(JSON.parse(rotated.stdout)).toMatchObject({ reencrypted: 2, keyId: new SecretCipher(next).keyId });
    expect(await secrets(new SecretCipher(next))).toEqual({ username: 'admin', password: 'before-rotation' });
    expect(generated.stdout + generated.stderr + rotated.stdout + rotated.stderr).not.toContain('before-rotation');
  }, 180_000);

  it('SECRET-6: a wrong current key changes nothing and says so; a usage error is exit 2', async () => {
    const nextFile = path.join(dataDir, 'other.key');
    writeFileSync(nextFile, randomBytes(32).toString('hex'));
    const wrong = await runTessera(['secrets', 'rotate-key', '--new-key-file', nextFile], { ...env(), SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex') });
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/^tessera: .*another key/);
    expectStatus(await runTessera(['secrets', 'rotate-key'], env()), 2);
  }, 180_000);
});
