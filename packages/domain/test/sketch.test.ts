import { describe, expect, it } from '@jest/globals';
import { QuantileSketch } from '@lantern/domain';

/** The exact q-quantile by nearest rank (the definition the sketch approximates). */
function exact(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

const sketchOf = (values: number[]): QuantileSketch => {
  const s = new QuantileSketch();
  for (const v of values) s.add(v);
  return s;
};

describe('QuantileSketch', () => {
  const a = Array.from({ length: 1000 }, (_, i) => 1 + ((i * 7919) % 5000) / 3);
  const b = [0, 0.5, ...Array.from({ length: 300 }, (_, i) => 2000 + i * 13)];

  it('merges by adding counts: the merge answers as one sketch of both value sets', () => {
    const merged = sketchOf(a).merge(sketchOf(b));
    const whole = sketchOf([...a, ...b]);
    expect(merged.count).toBe(a.length + b.length);
    expect(merged.toArray()).toEqual(whole.toArray());
    for (const q of [0.5, 0.95, 0.99]) {
      const v = exact([...a, ...b], q);
      expect(Math.abs(merged.quantile(q)! - v)).toBeLessThanOrEqual(v * 0.01);
    }
  });

  it('takes values out with a negative count, down to the sketch of what is left', () => {
    const s = sketchOf([...a, ...b]);
    for (const v of b) s.add(v, -1);
    expect(s.toArray()).toEqual(sketchOf(a).toArray());
    expect(s.count).toBe(a.length);
    for (const v of a) s.add(v, -1);
    expect(s.toArray()).toEqual([0]);
    expect(s.quantile(0.5)).toBeNull();
  });

  it('serialises to [zeros, key, count, ...] and back, the zero bucket included', () => {
    const s = sketchOf(b);
    const array = s.toArray();
    expect(array[0]).toBe(2);
    expect(array.length % 2).toBe(1);
    const back = QuantileSketch.fromArray(JSON.parse(JSON.stringify(array)) as number[]);
    expect(back.count).toBe(s.count);
    expect(back.toArray()).toEqual(array);
    expect(back.quantile(0.99)).toBe(s.quantile(0.99));
    expect(back.quantile(0)).toBe(0);
  });
});

describe('QuantileSketch bytes', () => {
  it('encodes to bytes and merges them back: the same counts as the array form, negative counts included', () => {
    const s = sketchOf([0, 1, 3, 3, 250, 99_999, 1e12]);
    s.add(250, -1);
    s.add(7, -2);
    const back = new QuantileSketch().mergeEncoded(s.encode());
    expect(back.toArray()).toEqual(s.toArray());
    expect(back.count).toBe(s.count);
    expect(s.encode().length).toBeLessThan(JSON.stringify(s.toArray()).length);
    expect(() => new QuantileSketch().mergeEncoded(Uint8Array.from([0x80]))).toThrow(/truncated/);
  });
});
