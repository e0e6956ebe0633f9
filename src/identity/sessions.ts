import type { Db } from '../db/database';
import { hashToken, newSecretToken } from './secrets';

export const sessionCookieName = 'tessera_session';

/** Creates a session; only the hash of the cookie value is stored. */
export async function createSession(db: Db, userId: string, ttlSeconds: number, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecretToken();
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  await db('sessions').insert({ id: hashToken(token), userId, expiresAt });
  return { token, expiresAt };
}

/** The user of a live session, or null. */
export async function findSessionUser(db: Db, token: string, now = new Date()): Promise<string | null> {
  const row: { userId: string } | undefined = await db('sessions')
    .where({ id: hashToken(token) })
    .andWhere('expiresAt', '>', now)
    .first('userId');
  return row?.userId ?? null;
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await db('sessions').where({ id: hashToken(token) }).del();
}

export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${sessionCookieName}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}
