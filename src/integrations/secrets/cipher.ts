/**
 * SECRET-3: the one place integration secrets are encrypted and decrypted. AES-256-GCM (node:crypto) with a random
 * 12-byte IV per value and its 16-byte authentication tag; the stored text is
 * `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts), where `keyId` names the key (the first 8 hex digits of its
 * SHA-256) so a rotation, or a server started with the wrong key, can tell which key a value was written under.
 * Nothing else in Tessera touches a plaintext secret except the client that sends it to its service.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const format = 'v1';
const ivBytes = 12;
const tagBytes = 16;

/** A key that is not 32 bytes as 64 hex digits or base64; the message never repeats the key. */
export class SecretKeyError extends Error {}

/** A stored value this key cannot open (another key's, or altered); the message names no secret. */
export class SecretDecryptError extends Error {}

/** SECRET-2: 32 bytes written as 64 hex digits or as base64 (standard or url-safe, padding optional). */
export function parseSecretKey(text: string, source: string): Buffer {
  const raw = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) {
    const key = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === 32) return key;
  }
  throw new SecretKeyError(`${source} must be 32 bytes written as 64 hex digits or as base64 (generate one with: openssl rand -hex 32)`);
}

export class SecretCipher {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SecretKeyError('the secret encryption key must be 32 bytes');
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: tagBytes });
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [format, this.keyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /** Whether `stored` was written under this key (by its key id; decrypt still checks the tag). */
  wrote(stored: string): boolean {
    return stored.split('.')[1] === this.keyId;
  }

  decrypt(stored: string): string {
    const parts = stored.split('.');
    if (parts.length !== 5 || parts[0] !== format) throw new SecretDecryptError('a stored secret is not in a format this Tessera reads');
    if (parts[1] !== this.keyId) throw new SecretDecryptError(`a stored secret was encrypted under another key (key id ${parts[1]}, this server's is ${this.keyId})`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(parts[2], 'base64url'), { authTagLength: tagBytes });
      decipher.setAuthTag(Buffer.from(parts[3], 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(parts[4], 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptError('a stored secret does not decrypt under this key (altered, or another key)');
    }
  }
}
