/**
 * Single sign-on's routes (OIDC-*): thin: the configuration, the provider client, the store, the audit.
 */
import type { HandlerMap, RequestContext } from '../../core/operation';
import { ApiError, badRequest, notFound } from '../../core/errors';
import type { OidcConfig } from '../../config/config';
import { recordAudit } from '../../observability/audit';
import { readCookie, sessionCookie } from '../sessions';
import { authorizationUrl, finishSignIn } from './provider';
import { claimGroups, safeReturnPath } from './rules';
import { beginSignIn, createProviderSession, signInTtlSeconds, syncGroups, takeSignIn, userForAccount } from './store';

/** OIDC-20: the cookie naming the sign-in under way; sent to the callback only. */
export const signInCookieName = 'tessera_oidc';
const signInCookiePath = '/api/auth/callback';

/**
 * OIDC-20: HttpOnly (no script reads it) and SameSite=Lax: the provider sends the browser back with a top-level GET
 * from its own site, which a Strict cookie would not go with, while Lax keeps it off other sites' subrequests and
 * POSTs. Secure as the session cookie (SEC-1).
 */
function signInCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${signInCookieName}=${value}`, `Path=${signInCookiePath}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

export const signInPath = '/api/auth/signin/oidc';

function oidcOf(ctx: RequestContext): OidcConfig {
  if (!ctx.config.oidc) throw notFound('Sign-in through an OpenID provider is not configured on this instance');
  return ctx.config.oidc;
}

/** OIDC-16: a failed sign-in is audited as a failed password login is (AUDIT-1), with why it failed; never a token. */
async function auditFailure(ctx: RequestContext, error: ApiError, details: Record<string, unknown>): Promise<void> {
  await recordAudit(ctx.db, ctx, {
    action: 'auth.login',
    outcome: 'failure',
    targetType: 'user',
    details: { method: 'oidc', status: error.status, reason: error.message, ...details },
  }).catch((auditError) => ctx.logger.warn({ err: auditError }, 'the failed sign-in could not be audited'));
}

export const oidcHandlers = {
  async getAuthProviders(_input, ctx) {
    const { authProviders, oidc } = ctx.config;
    return {
      status: 200,
      body: {
        credentials: authProviders.credentials,
        oidc: oidc ? { name: oidc.clientName, autoLogin: oidc.autoLogin, signInPath } : null,
      },
    };
  },

  async startOidcSignIn({ query }, ctx) {
    const oidc = oidcOf(ctx);
    const returnTo = safeReturnPath(query.returnTo);
    const start = await authorizationUrl(oidc);
    const token = await beginSignIn(ctx.db, { state: start.state, nonce: start.nonce, codeVerifier: start.codeVerifier, returnTo });
    return {
      status: 302,
      body: undefined,
      headers: { Location: start.url, 'Set-Cookie': signInCookie(token, signInTtlSeconds, ctx.config.cookieSecure), 'Cache-Control': 'no-store' },
    };
  },

  async finishOidcSignIn({ query }, ctx) {
    const oidc = oidcOf(ctx);
    const cleared = signInCookie('', 0, ctx.config.cookieSecure);
    const issuerDetails = { issuer: oidc.issuer };
    try {
      const token = readCookie(ctx.headers.cookie, signInCookieName);
      const pending = token ? await takeSignIn(ctx.db, token) : null;
      if (!pending) throw badRequest('No sign-in is under way in this browser, or it expired or was finished already; start again');
      if (query.state !== pending.state) throw badRequest('The state of the provider\'s answer is not the one of this sign-in; start again');
      if (!query.code && !query.error) throw badRequest('The provider\'s answer has no code; start again');
      const callbackQuery = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string')).toString();
      const { claims, idToken } = await finishSignIn(oidc, callbackQuery, pending);
      const { groups, skipped } = claimGroups(claims, oidc.groupsAttribute);
      // One transaction: the user, its groups, its session and the audit entry (OIDC-16, AUDIT-3) go together.
      const { signedIn, session } = await ctx.db.transaction(async (trx) => {
        const signedIn = await userForAccount(trx, oidc, claims);
        const sync = await syncGroups(trx, signedIn.userId, groups, oidc.adminGroup);
        const session = await createProviderSession(trx, signedIn.userId, ctx.config.sessionTtlSeconds, oidc.issuer, idToken);
        await recordAudit(trx, { ...ctx, principal: { userId: signedIn.userId, username: signedIn.username, apiKeyId: null } }, {
          action: 'auth.login',
          targetType: 'user',
          targetId: signedIn.userId,
          details: { method: 'oidc', ...issuerDetails, subject: claims.sub, username: signedIn.username, account: signedIn.how, groupsJoined: sync.joined, groupsLeft: sync.left, groupsSkipped: skipped },
        });
        return { signedIn, session };
      });
      ctx.logger.info({ userId: signedIn.userId, how: signedIn.how }, 'login (oidc)');
      return {
        status: 302,
        body: undefined,
        headers: {
          Location: pending.returnTo,
          'Set-Cookie': [sessionCookie(session.token, ctx.config.sessionTtlSeconds, ctx.config.cookieSecure), cleared],
          'Cache-Control': 'no-store',
        },
      };
    } catch (error) {
      if (error instanceof ApiError) {
        await auditFailure(ctx, error, issuerDetails);
        throw new ApiError(error.code, error.message, error.data, { ...error.headers, 'Set-Cookie': cleared });
      }
      throw error;
    }
  },
} satisfies Partial<HandlerMap>;
