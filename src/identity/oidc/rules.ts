/**
 * Single sign-on through an OpenID provider: the pure rules (OIDC-*), state in, decision out, no I/O.
 */

/** OIDC-21: the longest return path kept; a longer one falls back to `/`. */
export const maxReturnPathLength = 2000;

/**
 * OIDC-21: where a sign-in returns to: a path on this origin only. An absolute URL (`https://…`, `javascript:`), a
 * scheme-relative `//host`, a backslash anywhere (browsers read `/\host` as `//host`), a control character or a path
 * not starting with `/` falls back to `/`.
 */
export function safeReturnPath(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > maxReturnPathLength) return '/';
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) return '/';
  let url: URL;
  try {
    url = new URL(raw, 'http://tessera.invalid');
  } catch {
    return '/';
  }
  if (url.origin !== 'http://tessera.invalid') return '/';
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The claims Tessera reads of a provider's account (from the ID token, and the userinfo endpoint where needed). */
export interface AccountClaims {
  sub: string;
  email?: unknown;
  email_verified?: unknown;
  preferred_username?: unknown;
  name?: unknown;
  [claim: string]: unknown;
}

/** Tessera's group names (openapi GroupName): 1 to 64 of letters, digits, `_`, space, `.`, `-`. */
const groupNamePattern = /^[A-Za-z0-9_ .-]{1,64}$/;
/** Tessera's usernames (openapi Username). */
const usernamePattern = /^[A-Za-z0-9_.@-]{1,64}$/;

/**
 * OIDC-14: the group names in the claim `attribute`: an array of strings (or one string), trimmed; a value that is not
 * a Tessera group name is skipped (named in `skipped`), duplicates (case-insensitive) kept once.
 */
export function claimGroups(claims: Record<string, unknown>, attribute: string): { groups: string[]; skipped: string[] } {
  const raw = claims[attribute];
  const values = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  const groups: string[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  for (const value of values) {
    const name = typeof value === 'string' ? value.trim() : '';
    if (!groupNamePattern.test(name)) {
      skipped.push(String(value).slice(0, 100));
      continue;
    }
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    groups.push(name);
  }
  return { groups, skipped };
}

/** A user's membership as the sync sees it. */
export interface CurrentMembership {
  groupId: string;
  name: string;
  viaProvider: boolean;
}

export interface GroupSyncPlan {
  /** Group names to join (created when missing), as provider memberships. */
  join: string[];
  /** Provider memberships to end (group ids): their group left the claim. */
  leave: string[];
}

/**
 * OIDC-14: membership follows the claim both ways, for memberships the provider made only: a claimed group the user is
 * not in is joined; a provider membership whose group left the claim ends; a membership an admin made (local) is
 * never ended, and a claimed group the user is already a local member of stays a local membership. Names compare
 * case-insensitively, as group names are unique that way.
 */
export function planGroupSync(current: readonly CurrentMembership[], claimed: readonly string[]): GroupSyncPlan {
  const claimedLower = new Set(claimed.map((name) => name.toLowerCase()));
  const currentLower = new Set(current.map((membership) => membership.name.toLowerCase()));
  return {
    join: claimed.filter((name) => !currentLower.has(name.toLowerCase())),
    leave: current.filter((membership) => membership.viaProvider && !claimedLower.has(membership.name.toLowerCase())).map((m) => m.groupId),
  };
}

/** OIDC-11: the username a first sign-in creates: `preferred_username`, else the e-mail address, else the subject, if each is a Tessera username. */
export function usernameFor(claims: AccountClaims): string | null {
  for (const candidate of [claims.preferred_username, claims.email, claims.sub]) {
    if (typeof candidate === 'string' && usernamePattern.test(candidate)) return candidate;
  }
  return null;
}

/** OIDC-12: the verified e-mail address of the claims, or null (an unverified address never links). */
export function verifiedEmail(claims: AccountClaims): string | null {
  return typeof claims.email === 'string' && claims.email.length > 0 && claims.email_verified === true ? claims.email : null;
}

/** The e-mail address stored with a new user (verified or not: it is shown to the user and admins only, PRIV-1). */
export function emailOf(claims: AccountClaims): string | null {
  return typeof claims.email === 'string' && claims.email.length > 0 && claims.email.length <= 254 ? claims.email : null;
}

/**
 * OIDC-13: whether the claims lack what the sign-in reads, so that the userinfo endpoint must be asked: the groups
 * claim, or every name to create a user from.
 */
export function needsUserinfo(claims: Record<string, unknown>, groupsAttribute: string): boolean {
  return !(groupsAttribute in claims) || (claims.preferred_username === undefined && claims.email === undefined);
}
