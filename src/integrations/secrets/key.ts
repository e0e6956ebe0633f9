/**
 * SECRET-2: where the key of the secret cipher comes from. SECRET_ENCRYPTION_KEY (64 hex digits or base64 of 32
 * bytes), else SECRET_ENCRYPTION_KEY_FILE (the same text in a file: Docker secrets); with neither, the embedded
 * default generates one at its first start and keeps it in the data directory (`secret-encryption.key`, mode 0600),
 * while PostgreSQL refuses to start (instances sharing one database must share one key, so none is made up).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../config/config';
import { parseSecretKey, SecretCipher, SecretKeyError } from './cipher';

export interface SecretKeySettings {
  secretEncryptionKey: string | null;
  secretEncryptionKeyFile: string | null;
  databaseUrl: string | null;
  dataDir: string;
}

export const generatedKeyFileName = 'secret-encryption.key';

export type SecretKeySource = 'SECRET_ENCRYPTION_KEY' | 'SECRET_ENCRYPTION_KEY_FILE' | 'data directory';

/** The key file the embedded default generates and reads (created once, 0600). */
export function generatedKeyPath(dataDir: string): string {
  return path.join(dataDir, generatedKeyFileName);
}

function readKeyFile(file: string, what: string): Buffer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${what} ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return parseSecretKey(text, `${what} ${file}`);
  } catch (error) {
    throw new ConfigError((error as SecretKeyError).message);
  }
}

/** SECRET-2: the server's cipher; a ConfigError (one line, naming no key) when there is none to be had. */
export function loadSecretCipher(settings: SecretKeySettings): { cipher: SecretCipher; source: SecretKeySource } {
  if (settings.secretEncryptionKey) {
    try {
      return { cipher: new SecretCipher(parseSecretKey(settings.secretEncryptionKey, 'SECRET_ENCRYPTION_KEY')), source: 'SECRET_ENCRYPTION_KEY' };
    } catch (error) {
      throw new ConfigError((error as SecretKeyError).message);
    }
  }
  if (settings.secretEncryptionKeyFile) {
    return { cipher: new SecretCipher(readKeyFile(settings.secretEncryptionKeyFile, 'SECRET_ENCRYPTION_KEY_FILE')), source: 'SECRET_ENCRYPTION_KEY_FILE' };
  }
  if (settings.databaseUrl) {
    throw new ConfigError(
      'SECRET_ENCRYPTION_KEY or SECRET_ENCRYPTION_KEY_FILE is required with DATABASE_URL (every instance must use the same key; generate one with: openssl rand -hex 32)',
    );
  }
  const file = generatedKeyPath(settings.dataDir);
  mkdirSync(settings.dataDir, { recursive: true });
  try {
    const fd = openSync(file, 'wx', 0o600);
    writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
    closeSync(fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return { cipher: new SecretCipher(readKeyFile(file, 'the generated key file')), source: 'data directory' };
}
