import { describe, expect, it } from '@jest/globals';
import { isoTime } from '../src/clock.js';

describe('isoTime', () => {
  it('writes what Date#toISOString writes, within a second, across seconds and at the edges', () => {
    const base = Date.UTC(2026, 10, 23, 4, 59, 59, 990);
    const cases = [0, 1, 999, 1000, 59_999, 253402300799999, 253402300800000, -1, -1000, 8.64e15, base];
    for (let i = 0; i < 3000; i++) cases.push(base + i); // through several second and minute boundaries
    for (let i = 0; i < 2000; i++) cases.push(Math.floor(Math.random() * 4e12));
    for (const ms of cases) expect([ms, isoTime(ms)]).toEqual([ms, new Date(ms).toISOString()]);
  });
});
