/**
 * MCPAUTH-5..8: bearer access tokens of the OpenID provider (AUTH_OIDC_ISSUER), as the MCP endpoint takes them. A
 * token is a JWT checked here and nowhere else: signature against the provider's keys (its JWKS, found through its
 * discovery document), `iss`, `exp` and `nbf` with a bounded clock tolerance, and `aud` equal to this resource
 * (MCP_RESOURCE_URL). The token is never sent on to anything. The discovery document and the keys are a per-process
 * cache only (jose's remote key set refreshes the keys on its own, and fetches them again for an unknown key id).
 */
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { McpOAuthConfig } from '../../config/config';
import { ApiError } from '../../core/errors';
import { outboundFetch, OutboundError } from '../../outbound/fetch';

type Jose = typeof import('jose');

/** jose is an ES module (Node >= 20.19 requires it); loaded on the first provider token, as the MCP SDK is. */
function jose(): Jose {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('jose') as Jose;
}

/** MCPAUTH-6: how far the provider's clock and ours may disagree for `exp` and `nbf`. */
export const clockToleranceSeconds = 30;

/** MCPAUTH-8: one request to the provider (discovery document or keys) and its answer. */
const providerTimeoutMs = 5_000;
const providerMaxBytes = 512 * 1024;
/** MCPAUTH-8: the discovery document is read again after this long; the keys by jose's own schedule. */
const discoveryMaxAgeMs = 60 * 60 * 1000;
/** Asymmetric signatures only: a key set holds public keys, and `none` or a shared secret never verifies a token. */
const algorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Who a verified token speaks for: the provider and its subject. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
}

/** The provider could not be asked (down, slow, or answering something else than its documents). */
class ProviderUnavailable extends Error {}

/** MCPAUTH-8: an honest answer when the provider cannot be asked: 503, never a 500, and nothing of the token. */
export const providerUnavailable = () =>
  new ApiError('SERVICE_UNAVAILABLE', 'The identity provider cannot be reached to check the access token; retry later', {});

/** MCPAUTH-6: a token that does not authenticate: 401 (the MCP endpoint adds its challenge, MCPAUTH-3). */
export const invalidToken = (message: string) => new ApiError('UNAUTHORIZED', message, {});

/** One bounded GET of a provider document (OUT-1's fetcher), as a fetch Response for jose. */
async function providerGet(url: string): Promise<Response> {
  try {
    const answer = await outboundFetch(url, { timeoutMs: providerTimeoutMs, maxBytes: providerMaxBytes, headers: { accept: 'application/json' } });
    if (answer.status !== 200) throw new ProviderUnavailable(`${new URL(url).origin} answered ${answer.status}`);
    try {
      JSON.parse(answer.text);
    } catch {
      throw new ProviderUnavailable(`${new URL(url).origin} answered something else than JSON`);
    }
    return new Response(answer.text, { status: 200, headers: { 'content-type': 'application/json' } });
  } catch (error) {
    if (error instanceof OutboundError) throw new ProviderUnavailable(error.message);
    throw error;
  }
}

interface ProviderKeys {
  keys: JWTVerifyGetKey;
  at: number;
}

/** MCPAUTH-8: per process, per issuer: a cache only (every instance reads the same provider). */
const providers = new Map<string, Promise<ProviderKeys>>();

async function discover(issuer: string): Promise<ProviderKeys> {
  const response = await providerGet(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  const document = ((await response.json()) ?? {}) as { issuer?: unknown; jwks_uri?: unknown };
  if (document.issuer !== issuer) throw new ProviderUnavailable('the discovery document names another issuer');
  if (typeof document.jwks_uri !== 'string' || !/^https?:\/\//.test(document.jwks_uri)) throw new ProviderUnavailable('the discovery document has no jwks_uri');
  const { createRemoteJWKSet, customFetch } = jose();
  const keys = createRemoteJWKSet(new URL(document.jwks_uri), {
    timeoutDuration: providerTimeoutMs,
    [customFetch]: (url: string) => providerGet(url),
  });
  return { keys, at: Date.now() };
}

function providerKeys(issuer: string): Promise<ProviderKeys> {
  const cached = providers.get(issuer);
  if (cached) return cached.then((entry) => (Date.now() - entry.at < discoveryMaxAgeMs ? entry : refresh(issuer, cached)));
  return refresh(issuer, undefined);
}

function refresh(issuer: string, stale: Promise<ProviderKeys> | undefined): Promise<ProviderKeys> {
  if (providers.get(issuer) !== stale) return providers.get(issuer)!;
  const next = discover(issuer);
  providers.set(issuer, next);
  // A failed discovery is not kept: the next token asks again.
  next.catch(() => {
    if (providers.get(issuer) === next) providers.delete(issuer);
  });
  return next;
}

/** The claims of a JWT without checking them, for a refusal that needs no key (another issuer). */
function unverifiedClaims(token: string): JWTPayload | null {
  try {
    return jose().decodeJwt(token);
  } catch {
    return null;
  }
}

const claimMessages: Record<string, string> = {
  aud: 'Access token not issued for this resource',
  iss: 'Access token from another issuer',
  nbf: 'Access token not yet valid',
  exp: 'Invalid access token',
  sub: 'Invalid access token',
};

/** jose's failures that mean the provider's keys could not be had, not that the token is bad. */
const unavailableCodes = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID']);

/**
 * MCPAUTH-5, MCPAUTH-6, MCPAUTH-8: the identity a provider access token speaks for. 401 (`ApiError` UNAUTHORIZED) for a
 * token that is not the provider's, not for this resource, expired, not yet valid or malformed; 503 when the
 * provider's documents cannot be read.
 */
export async function verifyProviderToken(oauth: McpOAuthConfig, token: string): Promise<ProviderIdentity> {
  const claims = unverifiedClaims(token);
  if (!claims) throw invalidToken('Invalid access token');
  // Another issuer's token needs none of our provider's keys to be refused.
  if (claims.iss !== oauth.issuer) throw invalidToken(claimMessages.iss);
  let provider: ProviderKeys;
  try {
    provider = await providerKeys(oauth.issuer);
  } catch (error) {
    if (error instanceof ProviderUnavailable) throw providerUnavailable();
    throw error;
  }
  try {
    const { payload } = await jose().jwtVerify(token, provider.keys, {
      issuer: oauth.issuer,
      audience: oauth.resource,
      clockTolerance: clockToleranceSeconds,
      algorithms,
      requiredClaims: ['exp', 'sub'],
    });
    return { issuer: oauth.issuer, subject: payload.sub! };
  } catch (error) {
    if (error instanceof ProviderUnavailable) throw providerUnavailable();
    const { code, claim } = error as { code?: string; claim?: string };
    if (code !== undefined && unavailableCodes.has(code)) throw providerUnavailable();
    if (code === 'ERR_JWT_EXPIRED') throw invalidToken('Access token expired');
    if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') throw invalidToken(claimMessages[claim ?? ''] ?? 'Invalid access token');
    if (typeof code === 'string' && code.startsWith('ERR_')) throw invalidToken('Invalid access token');
    throw error;
  }
}
