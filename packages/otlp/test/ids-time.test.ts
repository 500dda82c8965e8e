import { describe, expect, it } from '@jest/globals';
import { durationMsOf, isoOfNanos, nanosOf, nanosOfFixed64 } from '../src/ids-time.js';
import { uint64Text } from '../src/protobuf-wire.js';

// The reference: the same rules in BigInt arithmetic (how the times were read before they were split in two numbers).
const reference = (value: string | number) => {
  const n = BigInt(value);
  return n > 0n ? n : undefined;
};
const refIso = (n: bigint) => new Date(Number(n / 1_000_000n)).toISOString();
const refDuration = (start: bigint, end: bigint | undefined) => (end === undefined || end < start ? 0 : Number((end - start + 500_000n) / 1_000_000n));

const texts = [
  '1', '999999', '1000000', '1000001', '1764130000000000000', '1764130000123456789', '1764130000999999999', '1764130001000000000',
  '1764130000000499999', '1764130000000500000', '9007199254740991', '9007199254740993', '18446744073709551615', '99999999999999999999',
];
const numbers = [1, 999_999, 1_000_000, 1_764_130_000_123, 9_007_199_254_740_991, 8_999_999_999_999_999, 4_503_599_627_370_495];

describe('OTLP times: milliseconds and the nanoseconds left over, without BigInt', () => {
  it('gives the BigInt arithmetic\'s timestamp for decimal text and numbers', () => {
    for (const value of [...texts, ...numbers]) {
      const n = nanosOf(value);
      expect(n).toBeDefined();
      expect(n!.ns).toBeGreaterThanOrEqual(0);
      expect(n!.ns).toBeLessThan(1e6);
      expect(isoOfNanos(n!, 't')).toBe(refIso(reference(value)!));
    }
  });

  it('prints the same text as Date whether the second is the last one printed or another', () => {
    const base = 1_764_130_000_000;
    // Within a second, across seconds, back in time, milliseconds 0-999, the epoch, and years past 9999.
    const values = [base, base + 7, base + 999, base + 1000, base + 1001, base - 1, base + 10, base + 999, 0, 5, 999, 1000,
      253_402_300_799_999, 253_402_300_800_000, 253_402_300_800_042, 8_640_000_000_000_000];
    for (let i = 0; i < 2000; i++) values.push(base + i * 7);
    for (const ms of values) expect(isoOfNanos({ ms, ns: 0 }, 't')).toBe(new Date(ms).toISOString());
  });

  it('reads a fixed64 as nanosOf reads its decimal text, at the edges of both halves and between', () => {
    const halves = [0, 1, 999_999, 1_000_000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 967_296, 4294];
    for (let i = 1; i <= 500; i++) halves.push(Math.imul(i, 2654435761) >>> 0);
    for (const lo of halves) for (const hi of halves.slice(0, 40)) expect(nanosOfFixed64(lo, hi)).toEqual(nanosOf(uint64Text(lo, hi)));
  });

  it('refuses 0, negative, fractional and non-digit values', () => {
    for (const value of ['0', '000', '', '-5', '1.5', '1e9', 0, -1, 1.5, Number.NaN]) expect(nanosOf(value)).toBeUndefined();
    expect(nanosOf(undefined)).toBeUndefined();
  });

  it('gives the BigInt arithmetic\'s rounded duration, 0 when the end is before the start or absent', () => {
    const pairs: Array<[string, string]> = [];
    for (const a of texts) for (const b of texts) pairs.push([a, b]);
    for (const [a, b] of pairs) {
      expect(durationMsOf(nanosOf(a)!, nanosOf(b))).toBe(refDuration(reference(a)!, reference(b)));
    }
    expect(durationMsOf(nanosOf('1764130000000000000')!, undefined)).toBe(0);
  });
});
