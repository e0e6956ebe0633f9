import type { Db } from '../db/database';
import { hashToken, newSecretToken } from './secrets';
import { Session } from '../db/models';

export const sessionCookieName = 'tessera_session';

/** Creates a session; only the hash of the cookie value is stored. */
export async function createSession(db: Db, userId: string, ttlSeconds: number, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecretToken();
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  await Session.query(db).insert({ id: hashToken(token), userId, expiresAt });
  return { token, expiresAt };
}

/** The user of a live session, or null. */
export async function findSessionUser(db: Db, token: string, now = new Date()): Promise<string | null> {
  const row: { userId: string } | undefined = await Session.query(db)
    .findById(hashToken(token))
    .andWhere('expiresAt', '>', now)
    .select('userId');
  return row?.userId ?? null;
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await Session.query(db).deleteById(hashToken(token));
}

export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${sessionCookieName}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}

/**
 * The value of cookie `name` in a Cookie header, or null. A value that cannot be read (broken percent-encoding) or
 * is empty counts as absent, so a garbled cookie means no session rather than an error; of repeated cookies (a
 * browser sends one per matching path and domain) the first readable one wins.
 */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = decodeCookieValue(part.slice(eq + 1).trim());
    if (value) return value;
  }
  return null;
}

function decodeCookieValue(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}
