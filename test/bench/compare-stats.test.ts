/** The arithmetic of `npm run bench:compare` (scripts/bench/compare-stats.ts): pure functions, no server. */
import { comparisonRow, median, minRoundsToCall, pairRatios, rangesOverlap, spread, verdict } from '../../scripts/bench/compare-stats';

describe('bench:compare arithmetic', () => {
  it('median: the middle value, the mean of the two middle ones for an even count, NaN for none', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('spread: median and range', () => {
    expect(spread([5, 9, 7])).toEqual({ median: 7, min: 5, max: 9 });
  });

  it('ranges overlap when they share a value, touching included', () => {
    expect(rangesOverlap(spread([1, 3]), spread([3, 5]))).toBe(true);
    expect(rangesOverlap(spread([1, 2]), spread([3, 5]))).toBe(false);
  });

  it('pair ratios are head/base round by round', () => {
    expect(pairRatios([100, 200], [50, 300])).toEqual([0.5, 1.5]);
  });

  it('overlapping ranges are "no difference", whatever the medians say', () => {
    expect(verdict([100, 120, 140], [130, 150, 170], 'lower')).toEqual({ kind: 'no difference', reason: 'the ranges overlap' });
  });

  it('ranges apart put every pair ratio on one side of 1.0; overlapping ranges may straddle it', () => {
    expect(verdict([100, 101, 100], [200, 101.5, 102], 'lower').kind).toBe('slower');
    expect(spread(pairRatios([100, 101, 100], [200, 101.5, 102])).min).toBeGreaterThan(1);
    expect(verdict([100, 300], [301, 299], 'lower')).toEqual({ kind: 'no difference', reason: 'the ranges overlap' });
  });

  it('separate ranges with every ratio on one side of 1: a percentage, named by the figure\'s better direction', () => {
    expect(verdict([100, 110, 105], [80, 84, 82], 'lower')).toEqual({ kind: 'faster', percent: 22 });
    expect(verdict([100, 110, 105], [80, 84, 82], 'higher')).toEqual({ kind: 'slower', percent: 22 });
    expect(verdict([1000, 1100], [1300, 1400], 'higher')).toEqual({ kind: 'faster', percent: 29 });
  });

  it('fewer rounds than the minimum: "no difference", however far apart', () => {
    expect(verdict([100, 110], [50, 55], 'lower', minRoundsToCall)).toEqual({ kind: 'no difference', reason: 'fewer than 4 rounds' });
    expect(verdict([100, 110, 105, 108], [50, 55, 52, 51], 'lower', minRoundsToCall)).toEqual({ kind: 'faster', percent: 50 });
  });

  it('no samples on a side (a revision without the feature): "no difference", naming the side, and "–" in its cells', () => {
    expect(verdict([], [1], 'lower')).toEqual({ kind: 'no difference', reason: 'not measured on base' });
    expect(verdict([1], [], 'lower')).toEqual({ kind: 'no difference', reason: 'not measured on head' });
    expect(comparisonRow('set apply', 'ms', [], [2800, 2900], 'lower')).toBe('| set apply | ms | – | 2850 (2800–2900) | – | no difference (not measured on base) |');
  });

  it('a table row prints each side\'s median and range, the ratio\'s, and the verdict', () => {
    expect(comparisonRow('PATCH item, 2,000 items', 'ms', [10, 12, 11], [10.5, 11.5, 11], 'lower')).toBe(
      '| PATCH item, 2,000 items | ms | 11 (10–12) | 11 (10.5–11.5) | 1.00 (0.96–1.05) | no difference (the ranges overlap) |',
    );
  });
});
