/**
 * The OpenID provider client (OIDC-2..5, OIDC-22..24): the certified `openid-client` (v6, an ES module, loaded with
 * Node's require(esm)). Discovery runs once per process and is refreshed hourly; the provider's keys are cached and
 * refreshed by openid-client itself (an unknown key id fetches the key set again). Both are caches only: any
 * instance can finish any sign-in, because what a sign-in needs lives in the database (OIDC-20).
 */
import * as client from 'openid-client';
import { ApiError } from '../../core/errors';
import type { OidcConfig } from '../../config/config';
import type { AccountClaims } from './rules';
import { needsUserinfo } from './rules';

/** OIDC-23: the clock difference tolerated in the ID token's time claims (iat, exp, nbf), in seconds. */
export const clockToleranceSeconds = 5;
/** OIDC-22: how long a discovery document is used before it is read again. */
const discoveryTtlMs = 60 * 60 * 1000;
/** OIDC-24: how long one request to the provider may take. */
const requestTimeoutSeconds = 10;

interface Cached {
  config: client.Configuration;
  at: number;
}
const discovered = new Map<string, Promise<Cached>>();

/** OIDC-24: 502 with a message naming the provider, never a 500. */
export const providerUnavailable = (issuer: string) =>
  new ApiError('BAD_GATEWAY', `The sign-in provider (${issuer}) cannot be reached or answered in a way Tessera cannot use; try again later`, { issuer });

/** OIDC-5: a sign-in the provider's answer does not let through (401). */
export const signInRefused = (reason: string) => new ApiError('UNAUTHORIZED', `Sign-in failed: ${reason}`, { reason });

/** Whether an error of openid-client is the provider's answer failing a check (as opposed to the provider being unreachable). */
function isValidationError(error: unknown): boolean {
  if (error instanceof client.AuthorizationResponseError) return true;
  if (error instanceof client.ResponseBodyError) return error.status < 500;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('OAUTH_') && code !== 'OAUTH_RESPONSE_IS_NOT_CONFORM';
}

/** The provider's configuration, discovered once per process and again after an hour or a failed discovery. */
export async function providerConfiguration(oidc: OidcConfig): Promise<client.Configuration> {
  const key = `${oidc.issuer} ${oidc.clientId}`;
  const cached = discovered.get(key);
  if (cached) {
    const value = await cached.catch(() => null);
    if (value && Date.now() - value.at < discoveryTtlMs) return value.config;
    if (discovered.get(key) === cached) discovered.delete(key);
  }
  const pending =
    discovered.get(key) ??
    (async (): Promise<Cached> => {
      const metadata: Partial<client.ClientMetadata> = { [client.clockTolerance]: clockToleranceSeconds };
      if (oidc.clientSecret !== null) metadata.client_secret = oidc.clientSecret;
      const auth = oidc.clientSecret !== null ? client.ClientSecretBasic(oidc.clientSecret) : client.None();
      const issuerUrl = new URL(oidc.issuer);
      // An http:// issuer is the admin's explicit choice (a provider on the same host or a test); https otherwise.
      const execute = issuerUrl.protocol === 'http:' ? [client.allowInsecureRequests] : [];
      const config = await client.discovery(issuerUrl, oidc.clientId, metadata, auth, { execute, timeout: requestTimeoutSeconds });
      return { config, at: Date.now() };
    })();
  discovered.set(key, pending);
  try {
    return (await pending).config;
  } catch {
    if (discovered.get(key) === pending) discovered.delete(key);
    throw providerUnavailable(oidc.issuer);
  }
}

export interface SignInStart {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** OIDC-3: the provider's authorization URL with a fresh state, nonce and PKCE challenge (S256). */
export async function authorizationUrl(oidc: OidcConfig): Promise<SignInStart> {
  const config = await providerConfiguration(oidc);
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: oidc.redirectUri,
    scope: oidc.scope,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  return { url: url.href, state, nonce, codeVerifier };
}

export interface SignInResult {
  claims: AccountClaims;
  idToken: string;
}

/**
 * OIDC-4, OIDC-5: redeems the code at the token endpoint and validates the ID token (signature by the provider's
 * keys, issuer, audience, expiry with OIDC-23's tolerance, nonce), checking state and PKCE; then reads the userinfo
 * endpoint when forced or when the ID token lacks the claims the sign-in needs (OIDC-13).
 */
export async function finishSignIn(oidc: OidcConfig, callbackQuery: string, checks: { state: string; nonce: string; codeVerifier: string }): Promise<SignInResult> {
  const config = await providerConfiguration(oidc);
  try {
    const tokens = await client.authorizationCodeGrant(config, new URL(`${oidc.redirectUri}?${callbackQuery}`), {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims || !tokens.id_token) throw signInRefused('the provider sent no ID token');
    let claims: AccountClaims = { ...(idClaims as Record<string, unknown>), sub: idClaims.sub };
    if ((oidc.forceUserinfo || needsUserinfo(claims, oidc.groupsAttribute)) && config.serverMetadata().userinfo_endpoint) {
      const userinfo = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      claims = { ...claims, ...(userinfo as Record<string, unknown>), sub: idClaims.sub };
    }
    return { claims, idToken: tokens.id_token };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (isValidationError(error)) throw signInRefused(describe(error));
    throw providerUnavailable(oidc.issuer);
  }
}

/** What failed, in words a user can pass on to an admin (the library's message; never a token). */
function describe(error: unknown): string {
  if (error instanceof client.AuthorizationResponseError) return `the provider refused the sign-in (${error.error})`;
  if (error instanceof client.ResponseBodyError) return `the provider refused the code (${error.error})`;
  const message = error instanceof Error ? error.message : String(error);
  return `the provider's answer did not validate (${message.slice(0, 200)})`;
}

/**
 * OIDC-17: the provider's logout URL (RP-initiated logout) with the session's ID token as hint and a return to this
 * instance, or null where the provider's discovery names no `end_session_endpoint` or cannot be read now.
 */
export async function endSessionUrl(oidc: OidcConfig, idToken: string | null): Promise<string | null> {
  const config = await providerConfiguration(oidc).catch(() => null);
  if (!config?.serverMetadata().end_session_endpoint) return null;
  const parameters: Record<string, string> = { post_logout_redirect_uri: `${oidc.baseUrl}/`, client_id: oidc.clientId };
  if (idToken) parameters.id_token_hint = idToken;
  return client.buildEndSessionUrl(config, parameters).href;
}
