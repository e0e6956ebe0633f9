import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../db/database';
import { ApiError, unauthorized } from '../http/errors';
import { verifyApiKey } from './apiKeys';
import { loadPrincipal, Principal } from './principal';
import { findSessionUser, readCookie, sessionCookieName } from './sessions';

const keyFailureMessages = {
  malformed: 'Malformed API key: expected <id>.<token>',
  invalid: 'Invalid API key',
  expired: 'API key expired',
} as const;

/**
 * Resolves the caller of a request. An `ApiKey` header, when present, is the only credential considered
 * and must be valid (401 otherwise). Without it the session cookie is used; a missing, unknown or expired
 * session means an anonymous caller (null). `boardId`, for a request on a board, lets the key check read the
 * caller's access to that board in the same query.
 */
export async function authenticate(db: Db, headers: IncomingHttpHeaders, hints: { boardId?: string } = {}): Promise<Principal | null> {
  const apiKey = headers.apikey;
  if (apiKey !== undefined) {
    const value = Array.isArray(apiKey) ? apiKey[0] : apiKey;
    const check = await verifyApiKey(db, value.trim(), { boardId: hints.boardId });
    if (!check.ok) throw unauthorized(keyFailureMessages[check.reason]);
    return check.principal;
  }
  const token = readCookie(headers.cookie, sessionCookieName);
  if (!token) return null;
  const userId = await findSessionUser(db, token);
  if (!userId) return null;
  return loadPrincipal(db, userId, { authMethod: 'session', apiKeyId: null, scopes: null });
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A cookie is sent by the browser on cross-site requests too, so a cookie-authenticated write must prove it
 * was made by script on our own origin: JSON content type (a form or text/plain post cannot set it without a
 * CORS preflight, which we never grant) and, when the browser sends one, a matching Origin.
 */
export function assertNotCrossSite(principal: Principal | null, method: string, headers: IncomingHttpHeaders): void {
  if (!principal || principal.authMethod !== 'session' || safeMethods.has(method.toUpperCase())) return;
  const contentType = String(headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (contentType !== 'application/json') {
    throw new ApiError('FORBIDDEN', 'Cross-site request refused: cookie-authenticated writes must send Content-Type: application/json');
  }
  const origin = headers.origin;
  if (origin && origin !== 'null') {
    let originHost: string | null = null;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = null;
    }
    if (originHost !== headers.host) throw new ApiError('FORBIDDEN', 'Cross-site request refused: Origin does not match Host');
  } else if (origin === 'null') {
    throw new ApiError('FORBIDDEN', 'Cross-site request refused: Origin does not match Host');
  }
}
