/**
 * Per-caller rate limits (RATE-2..6), the pure part: which class an operation falls in, whose bucket a request takes
 * from, and the RateLimit fields of an answer. No I/O here; src/ratelimit/buckets.ts keeps the buckets.
 */
import type { RateLimitPolicy } from '../config/config';
import { isBatch, procedureNames } from '../trpc/wire';

export type RateClass = 'reads' | 'writes' | 'imports';

/**
 * RATE-3: operations outside every class. Probes (load balancers call them often, without credentials), the metrics
 * scrape (METRIC-4), and logging in, which keeps its own throttle of failures (SEC-3).
 */
const exempt = new Set(['getLiveness', 'getReadiness', 'getMetrics', 'login']);

/** RATE-3: board file imports and set applies (and their dry runs) are the costly class. */
const importOperations = new Set(['importBoard', 'applyBoardSet']);

/** RATE-3: the class of an operation by its id and HTTP method; null when it is not limited. */
export function rateClassOf(operationId: string, method: string): RateClass | null {
  if (exempt.has(operationId)) return null;
  if (importOperations.has(operationId)) return 'imports';
  return method === 'GET' || method === 'HEAD' ? 'reads' : 'writes';
}

/** The tRPC endpoints, whose batches run several procedures in one request. */
const batchOperations = new Set(['trpcQuery', 'trpcMutation']);

/**
 * RATE-3: the tokens a request takes: one, or one per procedure of a tRPC batch (`?batch=1`, procedures named in the
 * path separated by commas, encoded or not).
 */
export function requestCost(operationId: string, rawProcedures: string | undefined, batch: unknown): number {
  if (!batchOperations.has(operationId) || rawProcedures === undefined) return 1;
  return procedureNames(rawProcedures.replace(/%2C/gi, ','), isBatch(batch)).length;
}

/**
 * RATE-3: an operation run inside another request (an MCP tool, a tRPC procedure) takes a token of its own class
 * besides the request's when that class is the costly one: import_board counts as importBoard does over REST.
 */
export function invokedClassOf(operationId: string): RateClass | null {
  return importOperations.has(operationId) ? 'imports' : null;
}

/** RATE-2: whose bucket: the API key, else the user of the session, else the client address (anonymous callers). */
export function callerKey(principal: { apiKeyId: string | null; userId: string } | null, clientIp: () => string): string {
  if (principal?.apiKeyId) return `key:${principal.apiKeyId}`;
  if (principal) return `user:${principal.userId}`;
  return `addr:${clientIp()}`;
}

/** Tokens a bucket gains per second. */
export const refillPerSecond = (policy: RateLimitPolicy) => policy.quota / policy.windowSeconds;

/**
 * RATE-4: the fields every answer of a limited operation carries (IETF draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Policy: "<class>";q=<quota>;w=<window>` and `RateLimit: "<class>";r=<tokens left>;t=<seconds until
 * the bucket is full again>`.
 */
export function rateLimitFields(rateClass: RateClass, policy: RateLimitPolicy, tokensLeft: number): Record<string, string> {
  const remaining = Math.max(0, Math.floor(tokensLeft));
  const untilFull = Math.ceil((policy.quota - Math.max(0, tokensLeft)) / refillPerSecond(policy));
  return {
    'RateLimit-Policy': `"${rateClass}";q=${policy.quota};w=${policy.windowSeconds}`,
    RateLimit: `"${rateClass}";r=${remaining};t=${Math.max(0, untilFull)}`,
  };
}

/** Seconds until a bucket holding `tokens` has one whole token again (at least 1). */
export function secondsUntilToken(policy: RateLimitPolicy, tokens: number): number {
  return Math.max(1, Math.ceil((1 - tokens) / refillPerSecond(policy)));
}

/** RATE-2: the message of the 429 of an empty bucket (MOCK-1: the OpenAPI examples show it under the default quotas). */
export function rateLimitedMessage(rateClass: RateClass, policy: RateLimitPolicy): string {
  return `Rate limit reached: at most ${policy.quota} ${rateClass} per ${policy.windowSeconds} s per caller, retry later`;
}
