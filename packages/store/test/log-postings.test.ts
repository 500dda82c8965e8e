import { describe, expect, it } from '@jest/globals';
import { BITMAP_BYTES, BLOCK_LOGS, DENSE_POSITIONS, bitmapOf, blockPostings, encodePositions, intersect, levelKey, positionsOf, postingsAt, unionOf } from '../src/log-postings.js';
import { asciiLower } from '../src/text.js';
import { searchTrigrams } from '../src/trigrams.js';

/** mulberry32: the same values on every run. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** `count` distinct positions of a block, ascending. */
function positions(next: (n: number) => number, count: number): number[] {
  const set = new Set<number>();
  while (set.size < count) set.add(next(BLOCK_LOGS));
  return [...set].sort((a, b) => a - b);
}

describe('log postings: a block\'s positions per trigram and level', () => {
  it('encodes positions as a list below DENSE_POSITIONS and as a bitmap from it, and reads both back', () => {
    const next = random(7);
    for (const count of [0, 1, 2, 100, DENSE_POSITIONS - 1, DENSE_POSITIONS, DENSE_POSITIONS + 1, 30_000, BLOCK_LOGS]) {
      const list = count === BLOCK_LOGS ? Array.from({ length: BLOCK_LOGS }, (_, i) => i) : positions(next, count);
      const bytes = encodePositions(list);
      expect([count, bytes.length]).toEqual([count, count >= DENSE_POSITIONS ? BITMAP_BYTES : count * 2]);
      expect(positionsOf(bitmapOf(bytes))).toEqual([...list].reverse());
    }
    // The edges of the block and of a word.
    expect(positionsOf(bitmapOf(encodePositions([0, 31, 32, 65_535])))).toEqual([65_535, 32, 31, 0]);
    expect(() => bitmapOf(Buffer.alloc(3))).toThrow(RangeError);
    for (const bad of [-1, BLOCK_LOGS, 1.5]) expect(() => encodePositions([bad])).toThrow(RangeError);
    expect(() => encodePositions([...Array.from({ length: DENSE_POSITIONS }, (_, i) => i), BLOCK_LOGS])).toThrow(RangeError);
    // The bitmap's layout, whatever the machine: position p is bit p % 8 of byte p / 8.
    const dense = encodePositions(Array.from({ length: DENSE_POSITIONS }, (_, i) => i * 16 + 9));
    expect([dense[0], dense[1], dense[2], dense[3]]).toEqual([0, 0b10, 0, 0b10]);
  });

  it('intersects bitmaps, says whether anything is left, and gives the newest positions first up to a limit', () => {
    const next = random(11);
    const a = positions(next, 20_000);
    const b = positions(next, 900);
    const acc = bitmapOf(encodePositions(a));
    const both = b.filter((p) => a.includes(p));
    expect(intersect(acc, bitmapOf(encodePositions(b)))).toBe(both.length > 0);
    expect(positionsOf(acc)).toEqual([...both].reverse());
    expect(positionsOf(acc, 3)).toEqual([...both].reverse().slice(0, 3));
    expect(intersect(acc, bitmapOf(encodePositions([])))).toBe(false);
    expect(positionsOf(acc)).toEqual([]);
  });

  it('posts each log under every trigram of its lower-cased message and its level, so a text\'s logs are among the intersection', () => {
    const logs = [
      { message: 'GET /api/v1/items served in 12 ms', level: 'info' },
      { message: 'Timeout calling billing after 3000 ms', level: 'error' },
      { message: 'retrying billing request with backoff 200 ms', level: 'warn' },
      { message: 'ünïcødé ✓ TIMEOUT', level: 'info' },
      { message: 'ab', level: 'debug' },
    ];
    const postings = blockPostings(logs);
    expect(postings.get(levelKey('info'))).toEqual([0, 3]);
    expect(postings.get('tim')).toEqual([1, 3]);
    expect(postings.get('ab')).toBeUndefined();
    for (const text of ['billing', 'TIMEOUT', 'served in', 'ünï', 'nothing here']) {
      let acc: Uint32Array | undefined;
      for (const gram of searchTrigrams(asciiLower(text), 8)) {
        const bits = bitmapOf(encodePositions(postings.get(gram) ?? []));
        if (acc === undefined) acc = bits;
        else intersect(acc, bits);
      }
      const holding = logs.map((log, i) => [log, i] as const).filter(([log]) => asciiLower(log.message).includes(asciiLower(text))).map(([, i]) => i);
      // Every log that holds the text is a candidate; here no other log is.
      expect([text, positionsOf(acc!).reverse()]).toEqual([text, holding]);
    }
    expect(() => blockPostings(Array.from({ length: BLOCK_LOGS + 1 }, () => logs[0]!))).toThrow(RangeError);
  });

  it('posts logs at the positions given, in any order, ascending in every posting; a message that is not a string has no trigram', () => {
    const postings = postingsAt([
      { position: 9, message: 'Abcd', level: 'info' },
      { position: 3, message: 'xabc', level: 'warn' },
      { position: 5, message: null, level: 'info' },
    ]);
    expect(Object.fromEntries(postings)).toEqual({
      xab: [3], abc: [3, 9], bcd: [9], [levelKey('warn')]: [3], [levelKey('info')]: [5, 9],
    });
  });

  it('merges postings into the union of their positions, as a list or a bitmap by the count', () => {
    const next = random(7);
    const sets = [positions(next, 100), positions(next, DENSE_POSITIONS - 1), positions(next, 3000)];
    const union = unionOf(sets.map((p) => encodePositions(p)));
    const expected = [...new Set(sets.flat())].sort((a, b) => a - b);
    expect(union.length).toBe(expected.length >= DENSE_POSITIONS ? BITMAP_BYTES : expected.length * 2);
    expect(positionsOf(bitmapOf(union)).reverse()).toEqual(expected);
    expect(unionOf([encodePositions([1, 5])])).toEqual(encodePositions([1, 5]));
  });
});
