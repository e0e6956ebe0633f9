/**
 * TIME-1: an RFC 3339 date-time, as the document's `format: date-time` accepts it, read as an instant both databases
 * can store and compare. Date cannot read a leap second (`23:59:60`): it counts as the second before it. PostgreSQL
 * refuses the year 0 and PGlite's writer the years past 9999 (a 500 once, for `9999-12-31T23:59:59-23:59`, which is in
 * the year 10000), so the instant is held to the years 1 to 9999. Null when the text reads as no time at all.
 */
const earliest = Date.parse('0001-01-01T00:00:00Z');
const latest = Date.parse('9999-12-31T23:59:59.999Z');

export function storableInstant(text: string): Date | null {
  const ms = Date.parse(text.replace(/:60(?=(\.\d+)?([zZ]|[+-]\d\d:?\d\d)$)/, ':59'));
  return Number.isNaN(ms) ? null : new Date(Math.min(Math.max(ms, earliest), latest));
}
