import { describe, expect, it } from '@jest/globals';
import { isNearEnd, scrollTopToReveal, visibleRange } from '../src/lib/virtual';

describe('visibleRange', () => {
  it('renders the rows in view plus the overscan, from the top', () => {
    expect(visibleRange({ count: 1000, rowHeight: 20, scrollTop: 0, viewportHeight: 200, overscan: 5 }))
      .toEqual({ start: 0, end: 15, offsetTop: 0, totalHeight: 20_000 });
  });

  it('follows the scroll position, with overscan on both sides', () => {
    const r = visibleRange({ count: 1000, rowHeight: 20, scrollTop: 1010, viewportHeight: 200, overscan: 5 });
    expect(r.start).toBe(45); // row 50 is at the top (partly), minus 5
    expect(r.end).toBe(66); // rows up to 60 (partly) in view, plus 5
    expect(r.offsetTop).toBe(45 * 20);
  });

  it('clamps at the end of the list and past it', () => {
    expect(visibleRange({ count: 100, rowHeight: 10, scrollTop: 950, viewportHeight: 100, overscan: 3 }))
      .toEqual({ start: 92, end: 100, offsetTop: 920, totalHeight: 1000 });
    const past = visibleRange({ count: 100, rowHeight: 10, scrollTop: 99_999, viewportHeight: 100, overscan: 0 });
    expect(past.end).toBe(100);
    expect(past.start).toBeLessThan(100);
  });

  it('handles an empty list, a negative scroll and a viewport not measured yet', () => {
    expect(visibleRange({ count: 0, rowHeight: 20, scrollTop: 0, viewportHeight: 500 })).toEqual({ start: 0, end: 0, offsetTop: 0, totalHeight: 0 });
    expect(visibleRange({ count: 10, rowHeight: 20, scrollTop: -50, viewportHeight: 100, overscan: 0 }).start).toBe(0);
    const unmeasured = visibleRange({ count: 10, rowHeight: 20, scrollTop: 0, viewportHeight: 0, overscan: 2 });
    expect(unmeasured.end).toBe(3);
  });

  it('keeps the DOM small for a 10,000-row list', () => {
    const r = visibleRange({ count: 10_000, rowHeight: 24, scrollTop: 120_000, viewportHeight: 600 });
    expect(r.end - r.start).toBeLessThan(50);
    expect(r.totalHeight).toBe(240_000);
  });
});

describe('scrollTopToReveal', () => {
  it('scrolls up or down just enough, and not at all when the row is in view', () => {
    expect(scrollTopToReveal(5, 20, 200, 100)).toBe(100);
    expect(scrollTopToReveal(20, 20, 200, 100)).toBe(320);
    expect(scrollTopToReveal(12, 20, 200, 100)).toBe(200);
  });
});

describe('isNearEnd', () => {
  it('is true once the rows in view reach the threshold before the end', () => {
    const near = visibleRange({ count: 100, rowHeight: 10, scrollTop: 750, viewportHeight: 100, overscan: 4 });
    expect(isNearEnd(near, 100, 4, 20)).toBe(true);
    const far = visibleRange({ count: 100, rowHeight: 10, scrollTop: 0, viewportHeight: 100, overscan: 4 });
    expect(isNearEnd(far, 100, 4, 20)).toBe(false);
    expect(isNearEnd(visibleRange({ count: 0, rowHeight: 10, scrollTop: 0, viewportHeight: 100 }), 0, 8)).toBe(false);
  });
});
