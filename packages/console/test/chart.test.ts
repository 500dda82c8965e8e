import { describe, expect, it } from '@jest/globals';
import { band, bars, extent, hasValues, labelIndices, linePath, lonePoints, niceStep, niceTicks, ratios, scaleLinear } from '../src/lib/chart';

describe('niceStep', () => {
  it('rounds a step up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect(niceStep(1)).toBe(1);
    expect(niceStep(1.2)).toBe(2);
    expect(niceStep(2.2)).toBe(2.5);
    expect(niceStep(3)).toBe(5);
    expect(niceStep(7)).toBe(10);
    expect(niceStep(230)).toBe(250);
    expect(niceStep(0.03)).toBeCloseTo(0.05);
  });

  it('answers 1 for a step that is not positive', () => {
    expect(niceStep(0)).toBe(1);
    expect(niceStep(-3)).toBe(1);
    expect(niceStep(NaN)).toBe(1);
  });
});

describe('niceTicks', () => {
  it('covers the range with round ticks', () => {
    expect(niceTicks(0, 100)).toEqual({ min: 0, max: 100, ticks: [0, 25, 50, 75, 100] });
    expect(niceTicks(0, 97)).toEqual({ min: 0, max: 100, ticks: [0, 25, 50, 75, 100] });
    expect(niceTicks(0, 7)).toEqual({ min: 0, max: 8, ticks: [0, 2, 4, 6, 8] });
    expect(niceTicks(12, 38).ticks).toEqual([10, 20, 30, 40]);
  });

  it('steps by whole numbers for counts', () => {
    expect(niceTicks(0, 1, 3, true).ticks).toEqual([0, 1]);
    expect(niceTicks(0, 0, 3, true).ticks).toEqual([0, 1]);
    expect(niceTicks(0, 10, 4, true).ticks).toEqual([0, 5, 10]);
    expect(niceTicks(0, 3, 3, true).ticks).toEqual([0, 1, 2, 3]);
    expect(niceTicks(0, 100, 4, true).ticks).toEqual([0, 25, 50, 75, 100]);
  });

  it('keeps decimal ticks free of floating-point noise', () => {
    expect(niceTicks(0, 0.3).ticks).toEqual([0, 0.1, 0.2, 0.3]);
  });

  it('gives a flat, empty or reversed series a usable axis', () => {
    expect(niceTicks(0, 0)).toEqual({ min: 0, max: 1, ticks: [0, 0.25, 0.5, 0.75, 1] });
    expect(niceTicks(5, 5).min).toBe(0);
    expect(niceTicks(5, 5).max).toBeGreaterThanOrEqual(5);
    expect(niceTicks(-4, -4).max).toBe(0);
    expect(niceTicks(NaN, Infinity).ticks).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(niceTicks(100, 0)).toEqual(niceTicks(0, 100));
  });

  it('always includes both ends of the data', () => {
    for (const [lo, hi] of [[0, 1], [0, 13], [3, 999], [0, 1234567], [0.001, 0.0173]] as const) {
      const a = niceTicks(lo, hi);
      expect(a.min).toBeLessThanOrEqual(lo);
      expect(a.max).toBeGreaterThanOrEqual(hi);
      expect(a.ticks.length).toBeGreaterThanOrEqual(2);
      expect(a.ticks.length).toBeLessThanOrEqual(7);
    }
  });
});

describe('extent', () => {
  it('ignores gaps', () => {
    expect(extent([3, null, 1, undefined, NaN, 7])).toEqual([1, 7]);
    expect(extent([null, null])).toBeUndefined();
    expect(extent([])).toBeUndefined();
  });

  it('spans several series sharing one axis (p50, p95 and p99 lines)', () => {
    expect(extent([10, null, 12], [null, 40, 30], [90, null, null])).toEqual([10, 90]);
    expect(extent([], [null, 5], [])).toEqual([5, 5]);
    expect(extent([null], [undefined], [NaN])).toBeUndefined();
  });
});

describe('hasValues', () => {
  it('tells a series with a value from one of gaps only', () => {
    expect(hasValues([null, 0])).toBe(true);
    expect(hasValues([null, undefined, NaN])).toBe(false);
    expect(hasValues([])).toBe(false);
  });
});

describe('ratios', () => {
  it('divides per bucket, exactly, with a gap where there is nothing to divide', () => {
    expect(ratios([1, 0, 0, 2, 3], [2, 5, 0, 3, 3])).toEqual([0.5, 0, null, 2 / 3, 1]);
  });

  it('leaves a gap for a missing or invalid count, and follows the wholes\' length', () => {
    expect(ratios([1, null, 1], [null, 4, NaN])).toEqual([null, null, null]);
    expect(ratios([1], [2, 4])).toEqual([0.5, null]);
    expect(ratios([], [])).toEqual([]);
  });

  it('gives gaps a line breaks at', () => {
    const rates = ratios([1, 0, 0], [4, 0, 2]);
    expect(linePath(rates, (i) => i * 10, (v) => 100 - v * 100)).toBe('M0 75h0M20 100h0');
    expect(lonePoints(rates)).toEqual([0, 2]);
  });
});

describe('scaleLinear and band', () => {
  it('maps a domain onto a range, flipped for a y axis', () => {
    const y = scaleLinear([0, 100], [200, 0]);
    expect(y(0)).toBe(200);
    expect(y(50)).toBe(100);
    expect(y(100)).toBe(0);
    expect(scaleLinear([5, 5], [10, 0])(7)).toBe(10);
  });

  it('splits a width into equal slots', () => {
    expect(band(0, 4, 100)).toEqual({ x: 0, width: 25, center: 12.5 });
    expect(band(3, 4, 100)).toEqual({ x: 75, width: 25, center: 87.5 });
    expect(band(0, 0, 100).width).toBe(100);
  });
});

describe('linePath', () => {
  const x = (i: number) => i * 10;
  const y = (v: number) => 100 - v;

  it('draws one line through a series without gaps', () => {
    expect(linePath([0, 50, 100], x, y)).toBe('M0 100L10 50L20 0');
  });

  it('breaks the line at a gap and draws a lone value as a dot', () => {
    expect(linePath([1, 2, null, 3, 4], x, y)).toBe('M0 99L10 98M30 97L40 96');
    expect(linePath([null, 5, null], x, y)).toBe('M10 95h0');
    expect(linePath([5], x, y)).toBe('M0 95h0');
    expect(linePath([NaN, 5, 6], x, y)).toBe('M10 95L20 94');
  });

  it('draws nothing for an empty or all-gap series', () => {
    expect(linePath([], x, y)).toBe('');
    expect(linePath([null, undefined], x, y)).toBe('');
  });

  it('rounds coordinates to two decimals', () => {
    expect(linePath([1, 2], (i) => i / 3, (v) => v / 3)).toBe('M0 0.33L0.33 0.67');
  });
});

describe('lonePoints', () => {
  it('finds the values a line cannot draw', () => {
    expect(lonePoints([1, null, 2, 3, null, 4])).toEqual([0, 5]);
    expect(lonePoints([null, 5, NaN])).toEqual([1]);
    expect(lonePoints([1, 2])).toEqual([]);
    expect(lonePoints([])).toEqual([]);
  });
});

describe('bars', () => {
  it('draws a bar up from the baseline for each positive value', () => {
    expect(bars([10, 0, null, 5], 100, 50, 10, 0)).toEqual([
      { index: 0, value: 10, x: 0, y: 0, width: 25, height: 50 },
      { index: 3, value: 5, x: 75, y: 25, width: 25, height: 25 },
    ]);
  });

  it('leaves a gap between bars and clips a value above the axis', () => {
    const [b] = bars([20], 100, 50, 10, 0.2);
    expect(b).toEqual({ index: 0, value: 20, x: 10, y: 0, width: 80, height: 50 });
  });
});

describe('labelIndices', () => {
  it('spreads labels with the first and the last', () => {
    expect(labelIndices(60, 4)).toEqual([0, 20, 39, 59]);
    expect(labelIndices(3, 4)).toEqual([0, 1, 2]);
    expect(labelIndices(1)).toEqual([0]);
    expect(labelIndices(0)).toEqual([]);
  });
});
