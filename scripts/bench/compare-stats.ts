/**
 * The arithmetic of `npm run bench:compare` (scripts/bench/compare.ts), kept free of processes and HTTP so that it is
 * unit-tested (test/bench/compare-stats.test.ts): the median and range of each side's rounds, the ratio head/base of
 * each alternating pair with its median and range, and the verdict: a difference is called only when the two sides'
 * ranges do not overlap, which also puts every pair's ratio on the same side of 1.0 (each head sample is above, or
 * each below, every base sample). Anything else is "no difference".
 */

/** The middle value (the mean of the two middle values for an even count); NaN when there are none. */
export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** Median and range of the samples. */
export function spread(values: number[]): Spread {
  if (values.length === 0) return { median: NaN, min: NaN, max: NaN };
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** Whether two ranges share at least one value (touching counts as overlapping). */
export function rangesOverlap(a: Spread, b: Spread): boolean {
  return a.min <= b.max && b.min <= a.max;
}

/** head/base for each alternating pair (round i of each side). */
export function pairRatios(base: number[], head: number[]): number[] {
  const count = Math.min(base.length, head.length);
  return Array.from({ length: count }, (_, i) => head[i] / base[i]);
}

/** Which way is better for a figure: a time or CPU cost (lower) or a throughput (higher). */
export type Better = 'lower' | 'higher';

export type Verdict =
  | { kind: 'no difference'; reason: string }
  | { kind: 'faster' | 'slower'; percent: number };

/**
 * Fewest rounds per side for a difference to be called. With n rounds of two builds that do not differ, the chance
 * that one side's samples all lie above (or all below) the other's is 2 / C(2n, n): 33% for 2 rounds, 10% for 3,
 * 2.9% for 4, 0.2% for 6 (the default).
 */
export const minRoundsToCall = 4;

/**
 * The verdict rule: "no difference" with fewer than `minRounds` pairs, and when the sides' ranges overlap (then the
 * pairs' ratios may straddle 1.0; when they do not overlap, no ratio can); otherwise head is faster or slower by the median ratio's distance from 1, in percent
 * (rounded).
 */
export function verdict(base: number[], head: number[], better: Better, minRounds = 1): Verdict {
  if (base.length === 0 || head.length === 0) return { kind: 'no difference', reason: `not measured on ${base.length === 0 ? 'base' : 'head'}` };
  if (Math.min(base.length, head.length) < minRounds) return { kind: 'no difference', reason: `fewer than ${minRounds} rounds` };
  const ratios = spread(pairRatios(base, head));
  if (rangesOverlap(spread(base), spread(head))) return { kind: 'no difference', reason: 'the ranges overlap' };
  const headHigher = ratios.median > 1;
  const percent = Math.round(Math.abs(ratios.median - 1) * 100);
  return { kind: headHigher === (better === 'higher') ? 'faster' : 'slower', percent };
}

/** A number for a table: whole numbers from 100 up, otherwise three significant digits. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return Math.abs(value) >= 100 ? String(Math.round(value)) : String(Number(value.toPrecision(3)));
}

/** "median (min–max)"; "–" when there were no samples. */
export function formatSpread(s: Spread, digits = formatNumber): string {
  if (!Number.isFinite(s.median)) return '–';
  return `${digits(s.median)} (${digits(s.min)}–${digits(s.max)})`;
}

/** One line of the comparison's table, as markdown cells: figure, base, head, ratio, verdict. */
export function comparisonRow(figure: string, unit: string, base: number[], head: number[], better: Better, minRounds = 1): string {
  const ratio = spread(pairRatios(base, head));
  const result = verdict(base, head, better, minRounds);
  const said = result.kind === 'no difference' ? `no difference (${result.reason})` : `head ${result.percent}% ${result.kind}`;
  const twoDigits = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');
  return `| ${figure} | ${unit} | ${formatSpread(spread(base))} | ${formatSpread(spread(head))} | ${formatSpread(ratio, twoDigits)} | ${said} |`;
}
