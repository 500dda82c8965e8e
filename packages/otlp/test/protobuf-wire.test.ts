import { describe, expect, it } from '@jest/globals';
import { uint64Text } from '../src/protobuf-wire.js';

describe('uint64Text', () => {
  const exact = (lo: number, hi: number): string => ((BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0)).toString();

  it('agrees with BigInt at the edges: 0, 2^32, 2^53 +- 1, 10^n boundaries, 2^64 - 1', () => {
    const cases: Array<[number, number]> = [[0, 0], [1, 0], [0xffffffff, 0], [0, 1], [0xffffffff, 0x1fffff], [0, 0x200000], [1, 0x200000],
      [0xffffffff, 0xffffffff], [0, 0x80000000], [0x89e80000, 0x8ac72304] /* 10^19 */, [0x89e7ffff, 0x8ac72304]];
    for (const [lo, hi] of cases) expect(uint64Text(lo, hi)).toBe(exact(lo, hi));
  });

  it('agrees with BigInt on 100,000 pseudo-random values, nanosecond times among them', () => {
    let seed = 12345;
    const next = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
    const wrong: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const lo = next();
      const hi = i % 2 ? next() : 0x17000000 + (next() & 0xffffff); // around 1.7e18 ns: today's times
      if (uint64Text(lo, hi) !== exact(lo, hi)) wrong.push(`${lo},${hi}`);
    }
    expect(wrong).toEqual([]);
  });
});
