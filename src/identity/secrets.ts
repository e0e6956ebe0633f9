import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { bcryptCompare, bcryptHash } from './bcryptWorkers';

/** A high-entropy secret: 32 random bytes as 64 hex characters. */
export function newSecretToken(): string {
  return randomBytes(32).toString('hex');
}

/**
 * Tokens are random and long, so a fast hash is enough; only the hash is stored. One-shot `hash` (no Hash object: it is
 * computed on every request that presents an API key).
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Constant-time comparison of a presented token with a stored sha256 hex hash. */
export function tokenMatchesHash(token: string, storedHash: string): boolean {
  const presented = hash('sha256', token, 'buffer');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

const passwordCost = 10;

/** SEC-2, SEC-6: a bcrypt hash, made on a worker thread. */
export async function hashPassword(password: string): Promise<string> {
  return bcryptHash(password, passwordCost);
}

/**
 * Compared against when the user does not exist, so that a miss costs as much as a wrong password (same cost). The
 * hash of a random password nobody kept; it never lets anyone in, as a miss is refused whatever the comparison says.
 */
const decoyHash = '$2b$10$rTij/2.ZMAUNvGIYvcRsX.mLgP/L/tQtIFAfIlhxaZvjbYdoTwKoG';

/** SEC-6: compared on a worker thread, in constant time whether the user exists or not. */
export async function passwordMatches(password: string, storedHash: string | null): Promise<boolean> {
  const matched = await bcryptCompare(password, storedHash ?? decoyHash);
  return storedHash !== null && matched;
}

/**
 * What is wrong with a password given outside the API's Password schema (openapi/components/identity.yaml: 8 to 72
 * characters, at most 72 bytes), as the end of a sentence; null when nothing. NAV-7: BOOTSTRAP_ADMIN_PASSWORD and
 * `tessera users set-password` follow the schema's bounds too.
 */
export function passwordProblem(password: string): string | null {
  if ([...password].length < 8) return 'must be at least 8 characters long';
  return passwordFitsBcrypt(password) ? null : 'must be at most 72 bytes long';
}

/** bcrypt reads at most 72 bytes; a longer password would be silently truncated, so it is refused. */
export function passwordFitsBcrypt(password: string): boolean {
  return Buffer.byteLength(password, 'utf8') <= 72;
}
