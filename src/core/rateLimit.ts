/**
 * RATE-1: the headers every 429 carries, in the form of the IETF draft "RateLimit header fields for HTTP"
 * (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` names the limit that was hit (`q` quota, `w` window in
 * seconds, or `qu="concurrent-requests"` for a cap on open requests), `RateLimit` says none of it is left and when it
 * resets (`t`), and `Retry-After` carries the same number of seconds for clients that only know that header.
 */
export interface RateLimitHit {
  /** The policy's name (a token of letters, digits and hyphens). */
  policy: string;
  quota: number;
  /** The window in seconds for a quota per time; omitted for a cap on concurrent requests. */
  windowSeconds?: number;
  /** Seconds until a slot is free again (at least 1). */
  retryAfterSeconds: number;
}

export function rateLimitHeaders(hit: RateLimitHit): Record<string, string> {
  const seconds = Math.max(1, Math.ceil(hit.retryAfterSeconds));
  const policy = hit.windowSeconds === undefined ? `q=${hit.quota};qu="concurrent-requests"` : `q=${hit.quota};w=${hit.windowSeconds}`;
  return {
    'RateLimit-Policy': `"${hit.policy}";${policy}`,
    RateLimit: `"${hit.policy}";r=0;t=${seconds}`,
    'Retry-After': String(seconds),
  };
}
