import { describe, expect, it } from '@jest/globals';
import { cosine, TopK, vectorBytes, vectorOf } from '../src/vectors.js';

const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};

describe('store: chunk vectors', () => {
  it('keeps a vector as float32 bytes and reads it back the same, whatever the offset of the bytes', () => {
    const v = unit(3, -4, 12);
    const bytes = vectorBytes(v);
    expect(bytes.byteLength).toBe(12);
    const unaligned = Buffer.concat([Buffer.from([7]), bytes]).subarray(1);
    expect(Array.from(vectorOf(unaligned))).toEqual(Array.from(v));
  });

  it('finds the nearest unit vectors by cosine, best first, keeping only as many as asked', () => {
    const top = new TopK<string>(2);
    for (const [id, vector] of [['far', unit(0, 1)], ['near', unit(1, 0.1)], ['mid', unit(1, 1)], ['opposite', unit(-1, 0)]] as const) top.offer(id, cosine(unit(1, 0), vector));
    const best = top.best();
    expect(best.map((b) => b.item)).toEqual(['near', 'mid']);
    expect(best[1]!.similarity).toBeCloseTo(Math.SQRT1_2, 6);
  });

  it('keeps the first offered among equals, and nothing when asked for none', () => {
    const top = new TopK<string>(2);
    for (const id of ['a', 'b', 'c']) top.offer(id, 0.5);
    expect(top.best().map((b) => b.item)).toEqual(['a', 'b']);
    const none = new TopK<string>(0);
    none.offer('a', 1);
    expect(none.best()).toEqual([]);
  });
});
