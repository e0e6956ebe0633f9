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
export type AppUrlField = 'href' | 'iconUrl' | 'pingUrl';

// Control characters and the format characters of the Basic Multilingual Plane, spelled as code points so that the
// patterns need no Unicode property classes (Spectral, Python's re and most code generators have none); the rarer
// format characters beyond it are refused by appUrlProblem.
const hidden = String.raw`\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb`;
const visible = `[^\\s${hidden}]`;
const firstSegment = `[^\\s${hidden}:/?#&%]`;
const http = String.raw`[Hh][Tt][Tt][Pp][Ss]?://${visible}+`;
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
  href: 'must be an http:// or https:// URL or a relative URL',
  iconUrl: 'must be an http:// or https:// URL, a data:image/ URL or a relative URL',
  pingUrl: 'must be an http:// or https:// URL',
};

const hiddenCharacter = /[\p{Cc}\p{Cf}]/u;
const compiled = Object.fromEntries(Object.entries(appUrlPatterns).map(([field, source]) => [field, new RegExp(source, 'u')])) as Record<AppUrlField, RegExp>;

/** APP-6: why `value` (trimmed, not empty) may not be stored in `field`, or null when it may. */
export function appUrlProblem(field: AppUrlField, value: string): string | null {
  if (!compiled[field].test(value) || hiddenCharacter.test(value.trim())) return appUrlMessages[field];
  if (/^https?:/i.test(value) && !URL.canParse(value)) return `${appUrlMessages[field]} (this one does not parse)`;
  return null;
}
