/**
 * APP-6: the addresses an app may hold, one allow-list for every surface (REST, tRPC, MCP, board-file import). The
 * OpenAPI schemas AppHref, AppIconUrl and AppPingUrl carry these very patterns (a test keeps them equal), so the
 * contract refuses what the server refuses; `appUrlProblem` adds what a pattern cannot say (the URL parses).
 *
 * A relative URL's first segment (before the first `/`, `?` or `#`) holds no `:` (else it names a scheme), no `&`
 * (an HTML character reference such as `javascript&#58;` decodes to a colon in an attribute) and no `%`
 * (percent-decoding consumers); no part of an address holds whitespace, control or invisible (format) characters,
 * which browsers drop or which hide a scheme (a zero-width space before `javascript:`). Patterns avoid lookaheads
 * so that the fuzzer can generate from them.
 */
import { canParseUrl } from '../core/url';
export type AppUrlField = 'href' | 'iconUrl' | 'pingUrl';

// Control characters and the format characters of the Basic Multilingual Plane, spelled as code points so that the
// patterns need no Unicode property classes (Spectral, Python's re and most code generators have none); the rarer
// format characters beyond it are refused by appUrlProblem.
const hidden = String.raw`\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb`;
const visible = `[^\\s${hidden}]`;
const firstSegment = `[^\\s${hidden}:/?#&%]`;
// SEC-8: a host holds letters (any script), digits, `-`, `.` and `_`, an IPv6 address in brackets, and a port: no
// other ASCII punctuation (`;` and `,` would end a Content-Security-Policy directive or start a second policy, `%`
// decodes to them, `*` widens a source). The userinfo before an `@` is left as it was (it never reaches a policy).
const hostCharacter = String.raw`[^\s${hidden}\x21-\x2c\x2f\x3b-\x40\x5c\x5e\x60\x7b-\x7e]`;
const http = String.raw`[Hh][Tt][Tt][Pp][Ss]?://(?:[^\s${hidden}/?#@]*@)?${hostCharacter}+(?:[/?#]${visible}*)?`;
const imageData = String.raw`[Dd][Aa][Tt][Aa]:[Ii][Mm][Aa][Gg][Ee]/${visible}+`;
const relative = `${firstSegment}*(?:[/?#]${visible}*)?`;
const padded = (body: string) => String.raw`^\s*(?:${body})\s*$`;

/** The pattern of each field, as the OpenAPI document states it (surrounding whitespace is trimmed, APP-4). */
export const appUrlPatterns: Readonly<Record<AppUrlField, string>> = {
  href: padded(`${http}|${relative}`),
  iconUrl: padded(`${http}|${imageData}|${relative}`),
  pingUrl: padded(`(?:${http})?`),
};

/** What each field may be, as an issue message says it (the schemas' `x-pattern-message`). */
export const appUrlMessages: Readonly<Record<AppUrlField, string>> = {
  href: 'must be an http:// or https:// URL whose host is a name or an IP address, or a relative URL',
  iconUrl: 'must be an http:// or https:// URL whose host is a name or an IP address, a data:image/ URL or a relative URL',
  pingUrl: 'must be an http:// or https:// URL whose host is a name or an IP address',
};

/**
 * SEC-8: a host as a Content-Security-Policy source may carry it: a domain name of letters, digits and hyphens in
 * dot-separated labels (as `new URL` leaves it: lower case, punycode), or an IPv6 address in brackets, or IPv4. Pure.
 */
const policyHostPattern = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])$/;
/**
 * SEC-8: what a stored address's parsed host may hold: the characters of the pattern's host after the URL parser
 * (lower case, punycode, percent-decoded, Unicode mapped: a fullwidth `；` becomes `;`), `_` too (container service
 * names), never reaching a policy. Characters only, so that what the pattern lets through is refused only when the
 * parser turned it into punctuation. Pure.
 */
const storedHostPattern = /^(?:[a-z0-9_.-]+|\[[0-9a-f:.]+\])$/;

/**
 * SEC-8: the origin of an absolute URL of one of `protocols` for a Content-Security-Policy source list, or null: only
 * when its host passes the strict grammar and its port is digits (so that no stored value, however it was written,
 * adds a directive, a policy or a wildcard). Pure.
 */
export function policyOrigin(value: unknown, protocols: readonly string[]): string | null {
  if (typeof value !== 'string') return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (!protocols.includes(url.protocol) || !policyHostPattern.test(url.hostname) || !/^\d*$/.test(url.port)) return null;
  return `${url.protocol}//${url.hostname}${url.port ? `:${url.port}` : ''}`;
}

const hiddenCharacter = /[\p{Cc}\p{Cf}]/u;
const compiled = Object.fromEntries(Object.entries(appUrlPatterns).map(([field, source]) => [field, new RegExp(source, 'u')])) as Record<AppUrlField, RegExp>;

/** APP-6: why `value` (trimmed, not empty) may not be stored in `field`, or null when it may. */
export function appUrlProblem(field: AppUrlField, value: string): string | null {
  if (!compiled[field].test(value) || hiddenCharacter.test(value.trim())) return appUrlMessages[field];
  if (/^https?:/i.test(value)) {
    if (!canParseUrl(value)) return `${appUrlMessages[field]} (this one does not parse)`;
    // SEC-8: what the URL parser makes of the host (percent-decoded, lower-cased) passes the grammar too.
    if (!storedHostPattern.test(new URL(value).hostname)) return appUrlMessages[field];
  }
  return null;
}
