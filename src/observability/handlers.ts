import { createHash, timingSafeEqual } from 'node:crypto';
import type { HandlerMap } from '../core/operation';
import { requirePrincipal, TextBody } from '../core/operation';
import { ApiError, notFound } from '../core/errors';
import { nextPageHeaders } from '../core/pages';
import { assertPermission } from '../identity/principal';
import { countFailedAttempt, giveSlotBack, type FailureCounter } from '../identity/loginThrottle';
import { listAuditEntries } from './auditLog';
import { metricsText } from './metrics';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** METRIC-4: `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time. */
function carriesToken(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1].trim()), digest(token));
}

/**
 * METRIC-8: wrong tokens are limited per client address, in the database (every instance counts on the same counter):
 * 10 in a minute; past that the address is refused with 429 before its token is compared.
 */
export const metricsTokenThrottle = { maxFailuresPerAddress: 10, windowSeconds: 60 };
const metricsCounter = (clientIp: string): FailureCounter => ({
  key: `metrics-ip:${clientIp}`,
  limit: metricsTokenThrottle.maxFailuresPerAddress,
  windowSeconds: metricsTokenThrottle.windowSeconds,
  policy: 'failed-metrics-tokens-per-address',
});

export const observabilityHandlers = {
  async getMetrics(_input, ctx) {
    const token = ctx.config.metricsToken;
    // METRIC-4: off the public port unless a token is set (METRICS_PORT serves it separately, without one).
    if (!token) throw notFound();
    // METRIC-8: counted as a failure before the comparison (so that simultaneous guesses cannot outrun the limit),
    // given back when the token is right.
    const counter = metricsCounter(ctx.clientIp);
    await countFailedAttempt(ctx.db, [counter], 'Too many failed metrics token attempts, retry later');
    if (!carriesToken(ctx.headers.authorization, token)) {
      throw new ApiError('UNAUTHORIZED', 'Authentication required', {}, { 'WWW-Authenticate': 'Bearer realm="tessera-metrics"' });
    }
    await giveSlotBack(ctx.db, counter);
    const { contentType, text } = await metricsText();
    return { status: 200, body: new TextBody(text, contentType) };
  },

  async listAuditEntries({ query }, ctx) {
    assertPermission(requirePrincipal(ctx), 'admin');
    const page = await listAuditEntries(ctx.db, query);
    return { status: 200, body: page.items, headers: nextPageHeaders('/api/audit', query, page.nextCursor) };
  },
} satisfies Partial<HandlerMap>;
