/**
 * CORS-1..6: which browser pages of other origins may call the API (CORS_ORIGINS), as pure decisions: the headers of
 * an answer to a request with `Origin`, and those of a preflight. No I/O. Nothing is allowed unless listed.
 */

/** CORS-3: request headers a listed origin's page may send (beyond the CORS-safelisted ones). */
export const allowedRequestHeaders = [
  'Content-Type',
  'Content-Encoding',
  'ApiKey',
  'Authorization',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
  'Last-Event-ID',
  'X-Request-Id',
] as const;

/** CORS-4: answer headers a listed origin's page may read (beyond the CORS-safelisted ones). */
export const exposedHeaders = [
  'ETag',
  'Link',
  'Location',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Idempotent-Replayed',
  'Tessera-Next-Cursor',
  'Tessera-Restore-Dropped',
  'WWW-Authenticate',
  'X-Request-Id',
] as const;

/** CORS-3: how long a browser may keep a preflight's answer (short, so that a change of CORS_ORIGINS soon applies). */
export const preflightMaxAgeSeconds = 600;

export interface CorsPolicy {
  origins: ReadonlySet<string>;
}

/** The policy of CORS_ORIGINS, or null when it lists none (no CORS header is ever sent: CORS-1). */
export function corsPolicyOf(origins: readonly string[]): CorsPolicy | null {
  return origins.length === 0 ? null : { origins: new Set(origins) };
}

/** CORS-1: whether `origin` (an `Origin` header as sent) is listed. `null` and anything unlisted are not. */
export function isListedOrigin(policy: CorsPolicy | null, origin: string | undefined): origin is string {
  return policy !== null && origin !== undefined && policy.origins.has(origin);
}

/**
 * CORS-2, CORS-4: the headers of any answer (errors and preflights included): `Vary: Origin` whenever an allow-list is
 * set (the answer depends on it); for a listed origin that origin (never `*`), credentials and the exposed headers.
 */
export function answerHeaders(policy: CorsPolicy | null, origin: string | undefined): Record<string, string> {
  if (policy === null) return {};
  if (!isListedOrigin(policy, origin)) return { Vary: 'Origin' };
  return {
    Vary: 'Origin',
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Expose-Headers': exposedHeaders.join(', '),
  };
}

/**
 * CORS-3: the preflight's own headers for a listed origin asking for a method (`Access-Control-Request-Method`): the
 * path's methods, the request headers allowed and how long to keep the answer. Nothing for another origin (the browser
 * then refuses the request without sending it) or an OPTIONS that is no preflight.
 */
export function preflightHeaders(
  policy: CorsPolicy | null,
  origin: string | undefined,
  requestMethod: string | undefined,
  pathMethods: readonly string[],
): Record<string, string> {
  if (!isListedOrigin(policy, origin) || requestMethod === undefined) return {};
  return {
    'Access-Control-Allow-Methods': pathMethods.join(', '),
    'Access-Control-Allow-Headers': allowedRequestHeaders.join(', '),
    'Access-Control-Max-Age': String(preflightMaxAgeSeconds),
  };
}
