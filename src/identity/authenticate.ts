import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../db/database';
import { isYamlContentType, mediaTypeOf } from '../core/mediaTypes';
import { ApiError, unauthorized } from '../core/errors';
import { KeyCompanionLookup, verifyApiKey } from './apiKeys';
import { loadPrincipal, Principal } from './principal';
import { findSessionUser, readCookie, sessionCookieName } from './sessions';
import { recordAudit, type AuditSource } from '../observability/audit';
import { AuditEntry } from '../db/models/AuditEntry';
import type { McpOAuthConfig } from '../config/config';
import { looksLikeJwt } from './oidc/mcpResource';
import { verifyProviderToken, invalidToken } from './oidc/accessTokens';
import { userForIdentity } from './oidc/identityUser';

const keyFailureMessages = {
  malformed: 'Malformed API key: expected <id>.<token>',
  invalid: 'Invalid API key',
  expired: 'API key expired',
} as const;

/** AUTH-5: the API key of a request: the `ApiKey` header, else `Authorization: Bearer <id>.<token>`. */
function apiKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.apikey;
  if (header !== undefined) return Array.isArray(header) ? header[0] : header;
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
  return bearer ? bearer[1] : undefined;
}

/**
 * Resolves the caller of a request. An API key (`ApiKey` header, or `Authorization: Bearer`), when present, is the
 * only credential considered and must be valid (401 otherwise). Without it the session cookie is used; a missing, unknown or expired
 * session means an anonymous caller (null). `companion`, for a request about one resource, lets the key check
 * read the caller's facts about it in the same query (see KeyCompanionLookup).
 */
export async function authenticate(
  db: Db,
  headers: IncomingHttpHeaders,
  hints: {
    companion?: { lookup: KeyCompanionLookup; id: string };
    audit?: Omit<AuditSource, 'principal'>;
    /** MCPAUTH-5: the provider whose access tokens this request may carry (the MCP endpoint, OAuth on). */
    providerTokens?: McpOAuthConfig;
  } = {},
): Promise<Principal | null> {
  const apiKey = apiKeyOf(headers);
  if (apiKey !== undefined && hints.providerTokens && headers.apikey === undefined && looksLikeJwt(apiKey.trim())) {
    return providerTokenPrincipal(db, hints.providerTokens, apiKey.trim());
  }
  if (apiKey !== undefined) {
    const check = await verifyApiKey(db, apiKey.trim(), { companion: hints.companion });
    if (!check.ok) {
      if (check.reason === 'expired' && hints.audit) await auditExpiredKey(hints.audit, check.key);
      throw unauthorized(keyFailureMessages[check.reason]);
    }
    return check.principal;
  }
  const token = readCookie(headers.cookie, sessionCookieName);
  if (!token) return null;
  const userId = await findSessionUser(db, token);
  if (!userId) return null;
  return loadPrincipal(db, userId, { authMethod: 'session', apiKeyId: null, scopes: null });
}

/**
 * MCPAUTH-5, MCPAUTH-7: a provider access token acts as the user linked to its (issuer, subject) (userForIdentity),
 * with that user's live groups and permissions, as an unscoped key of the user would; no such user is a 401.
 */
async function providerTokenPrincipal(db: Db, oauth: McpOAuthConfig, token: string): Promise<Principal> {
  const identity = await verifyProviderToken(oauth, token);
  const userId = await userForIdentity(db, identity.issuer, identity.subject);
  const principal = userId ? await loadPrincipal(db, userId, { authMethod: 'oauth', apiKeyId: null, scopes: null }) : null;
  if (!principal) throw invalidToken('No Tessera user for this access token');
  return principal;
}

/**
 * AUDIT-8: the use of an expired key is one entry (outcome failure, actor the key and its owner), written on its
 * own: a refused request changes nothing, and only this rare failure path writes (never a valid key's request). A
 * client retrying with its expired key would otherwise write a row per request, so a key gets at most one entry per
 * `expiredKeyAuditWindowSeconds`: the check and the insert run in one transaction under an advisory lock on the key, so
 * instances sharing the database decide it there. An entry that cannot be written is logged and the request still
 * gets its 401.
 */
async function auditExpiredKey(source: Omit<AuditSource, 'principal'>, key: { id: string; userId: string; username: string }): Promise<void> {
  try {
    await source.db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`apikey.expired:${key.id}`]);
      const recent = await AuditEntry.query(trx)
        .where({ targetId: key.id, action: 'apikey.expired' })
        .where('at', '>', trx.raw(`now() - make_interval(secs => ?)`, [expiredKeyAuditWindowSeconds]))
        .select('id')
        .first();
      if (recent) return;
      await recordAudit(trx, { ...source, db: trx, principal: { userId: key.userId, apiKeyId: key.id, username: key.username } }, {
        action: 'apikey.expired',
        outcome: 'failure',
        targetType: 'apikey',
        targetId: key.id,
      });
    });
  } catch (error) {
    source.logger.warn({ err: error }, 'audit: the use of an expired API key could not be recorded');
  }
}

/** AUDIT-8: the uses of one expired key within this many seconds of its last entry add none. */
export const expiredKeyAuditWindowSeconds = 60;

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A browser sends the session cookie with requests other sites' pages make too, so a cookie-authenticated write is
 * refused when it carries what such a page can send: a Content-Type other than JSON (form and text/plain posts need
 * no CORS preflight, which we never grant), `Sec-Fetch-Site: cross-site`, an Origin other than our own (`null`
 * included), or `Sec-Fetch-Site: same-site` (a sibling host) without our Origin. A bodyless write with no
 * Content-Type, such as a logout button's fetch, passes when nothing marks it as cross-site.
 * `startsSession` (the login): whatever the credentials, another site may not sign the browser in either (a
 * non-JSON body is refused with 415 by the operation's media type).
 */
export function assertNotCrossSite(
  principal: Principal | null,
  method: string,
  headers: IncomingHttpHeaders,
  startsSession = false,
  isListedOrigin: (origin: string) => boolean = () => false,
): void {
  if (safeMethods.has(method.toUpperCase())) return;
  if (startsSession) return refuseOtherSites(headers, method, isListedOrigin);
  if (!principal || principal.authMethod !== 'session') return;
  const contentType = headers['content-type'];
  if (contentType !== undefined && mediaTypeOf(contentType) !== 'application/json' && !isYamlContentType(contentType)) {
    throw crossSiteRefused('a cookie-authenticated write may only send Content-Type: application/json');
  }
  refuseOtherSites(headers, method, isListedOrigin);
}

/**
 * CORS-5: a page of an origin listed in CORS_ORIGINS passes the Origin and Sec-Fetch-Site checks only with a request
 * the browser had to preflight (which the server's preflight answer allowed for that origin alone): any method but
 * POST, or a body typed JSON or YAML (non-JSON bodies of cookie writes are refused above, and any other body is a
 * 415). A POST without Content-Type is a simple request no preflight guarded: refused as from any other site.
 */
function refuseOtherSites(headers: IncomingHttpHeaders, method: string, isListedOrigin: (origin: string) => boolean): void {
  const listed = headers.origin !== undefined && isListedOrigin(headers.origin);
  if (listed) {
    if (method.toUpperCase() !== 'POST' || headers['content-type'] !== undefined) return;
    throw crossSiteRefused('a write from another origin must send Content-Type: application/json');
  }
  const fetchSite = headerValue(headers['sec-fetch-site'])?.trim().toLowerCase();
  if (fetchSite === 'cross-site') throw crossSiteRefused('Sec-Fetch-Site is cross-site');
  const origin = headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, headers.host)) throw crossSiteRefused('Origin does not match Host');
  if (fetchSite === 'same-site' && origin === undefined) throw crossSiteRefused('Sec-Fetch-Site is same-site and Origin is missing');
}

function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (origin === 'null') return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

const crossSiteRefused = (reason: string) => new ApiError('FORBIDDEN', `Cross-site request refused: ${reason}`);
