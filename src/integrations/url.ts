/**
 * INTEG-2: the addresses an integration may hold, as one pattern that the OpenAPI schema IntegrationUrl carries (a
 * test keeps them equal) and the server checks, so that the contract accepts exactly what the server accepts. Every
 * string the pattern matches parses with the WHATWG URL parser (the pattern leaves out what it refuses: a label
 * starting with `xn--`, whose punycode may not decode; a last label read as a number; ports past 65535), written
 * without lookaheads or Unicode classes so that schema-driven generators can produce from it.
 */
import { canParseUrl } from '../core/url';

/** The characters String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator), spelled out. */
const space = String.raw`\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;
const labelChar = '[A-Za-z0-9_-]';
/** A host label that does not start with `xn--` (letter case ignored). */
const label = `(?:[A-WYZa-wyz0-9_-]${labelChar}*|[Xx](?:[A-MO-Za-mo-z0-9_-]${labelChar}*)?|[Xx][Nn](?:[A-Za-z0-9_]${labelChar}*)?|[Xx][Nn]-(?:[A-Za-z0-9_]${labelChar}*)?)`;
/** The last label: also not a number (it would be read as IPv4), so it starts with a letter, `_` or `-`. */
const lastLabel = `(?:[A-WYZa-wyz_-]${labelChar}*|[Xx](?:[A-MO-Za-mo-z0-9_-]${labelChar}*)?|[Xx][Nn](?:[A-Za-z0-9_]${labelChar}*)?|[Xx][Nn]-(?:[A-Za-z0-9_]${labelChar}*)?)`;
const octet = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const h16 = '[0-9A-Fa-f]{1,4}';
const ipv6 = [
  `(?:${h16}:){7}${h16}`,
  `(?:${h16}:){1,7}:`,
  `(?:${h16}:){1,6}:${h16}`,
  `(?:${h16}:){1,5}(?::${h16}){1,2}`,
  `(?:${h16}:){1,4}(?::${h16}){1,3}`,
  `(?:${h16}:){1,3}(?::${h16}){1,4}`,
  `(?:${h16}:){1,2}(?::${h16}){1,5}`,
  `${h16}:(?::${h16}){1,6}`,
  `:(?:(?::${h16}){1,7}|:)`,
].join('|');
const host = `(?:(?:${label}\\.)*${lastLabel}|${octet}(?:\\.${octet}){3}|\\[(?:${ipv6})\\])`;
const port = '(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?';
const userinfo = "(?:[A-Za-z0-9._~!$&'()*+,;=%-]+(?::[A-Za-z0-9._~!$&'()*+,;=%-]*)?@)?";
/** Path, query and fragment: printable characters, no whitespace, control characters or lone surrogates. */
const rest = String.raw`(?:[/?#][!-~\u00a1-\u167f\u1681-\u1fff\u200b-\u2027\u202a-\u202e\u2030-\u205e\u2060-\u2fff\u3001-\ud7ff\ue000-\ufefe\uff00-\uffff]*)?`;

/**
 * THEME-2: the board setting webSearchUrl's pattern: an http(s) URL with a host as IntegrationUrl's, and `{query}` in
 * its path, query or fragment, or blank text (stored as null). Every string it matches is one the server takes.
 */
export const webSearchUrlPattern = `^(?:[Hh][Tt][Tt][Pp][Ss]?://${userinfo}${host}${port}[/?#]${rest.slice('(?:[/?#]'.length, -'*)?'.length)}*\\{query\\}${rest.slice('(?:[/?#]'.length, -'*)?'.length)}*|\\s*)$`;

/** IntegrationUrl's pattern: an http(s) URL, surrounding whitespace allowed (it is trimmed). */
export const integrationUrlPattern = `^[${space}]*[Hh][Tt][Tt][Pp][Ss]?://${userinfo}${host}${port}${rest}[${space}]*$`;

const compiled = new RegExp(integrationUrlPattern, 'u');

/** INTEG-2: whether `url` may be stored as an integration's address (before trimming). */
export const isIntegrationUrl = (url: string): boolean => compiled.test(url) && canParseUrl(url.trim());
