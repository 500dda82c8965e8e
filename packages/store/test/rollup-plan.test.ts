import { describe, expect, it } from '@jest/globals';
import { planRollupRead } from '../src/rollup-plan.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const T = Date.parse('2026-03-01T00:00:00.000Z');

describe('planRollupRead', () => {
  it('reads buckets under an hour by the minute, whatever the window', () => {
    expect(planRollupRead({ from: T, to: T + DAY, bucketMs: 10 * MINUTE })).toEqual({ hours: [], minutes: [{ from: T, to: T + DAY }] });
  });

  it('reads whole hours from hour cells and the partial first and last hours by the minute', () => {
    expect(planRollupRead({ from: T, to: T + 7 * DAY, bucketMs: HOUR })).toEqual({ hours: [{ from: T, to: T + 7 * DAY }], minutes: [] });
    expect(planRollupRead({ from: T + 17 * MINUTE, to: T + 5 * HOUR + 3 * MINUTE, bucketMs: 6 * HOUR })).toEqual({
      hours: [{ from: T + HOUR, to: T + 5 * HOUR }],
      minutes: [{ from: T + 17 * MINUTE, to: T + HOUR }, { from: T + 5 * HOUR, to: T + 5 * HOUR + 3 * MINUTE }],
    });
  });

  it('never takes an hour that crosses a bucket edge, nor one before the first trusted hour', () => {
    // Buckets of 90 minutes from 00:00: [0:00, 1:30) holds the hour 0-1; [1:30, 3:00) holds the hour 2-3.
    expect(planRollupRead({ from: T, to: T + 3 * HOUR, bucketMs: 90 * MINUTE })).toEqual({
      hours: [{ from: T, to: T + HOUR }, { from: T + 2 * HOUR, to: T + 3 * HOUR }],
      minutes: [{ from: T + HOUR, to: T + 2 * HOUR }],
    });
    // Buckets of an hour from :30 hold no whole hour.
    expect(planRollupRead({ from: T + 30 * MINUTE, to: T + 3 * HOUR + 30 * MINUTE, bucketMs: HOUR }).hours).toEqual([]);
    expect(planRollupRead({ from: T, to: T + 4 * HOUR, bucketMs: 2 * HOUR }, T + HOUR + 1)).toEqual({
      hours: [{ from: T + 2 * HOUR, to: T + 4 * HOUR }],
      minutes: [{ from: T, to: T + 2 * HOUR }],
    });
  });
});
