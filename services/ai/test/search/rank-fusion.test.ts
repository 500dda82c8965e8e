import { describe, expect, it } from '@jest/globals';
import { fuseByReciprocalRank, RRF_K } from '../../src/search/rank-fusion.js';

describe('ai search: hybrid ranking', () => {
  it('fuses lexical and semantic lists by reciprocal rank (k = 60): found by both ranks above found by one', () => {
    const lexical = ['a', 'b', 'c'];
    const semantic = ['d', 'b', 'a'];
    const fused = fuseByReciprocalRank([lexical, semantic], (x) => x);
    expect(RRF_K).toBe(60);
    expect(fused.map((f) => f.item)).toEqual(['a', 'b', 'd', 'c']);
    expect(fused[0]).toEqual({ item: 'a', score: 1 / 61 + 1 / 63, ranks: [1, 3] });
    expect(fused[2]).toEqual({ item: 'd', score: 1 / 61, ranks: [undefined, 1] });
  });

  it('keeps the first appearance first among ties, and counts an item named twice in one list once, at its best rank', () => {
    expect(fuseByReciprocalRank([['x', 'y'], ['y', 'x']], (v) => v).map((f) => f.item)).toEqual(['x', 'y']);
    expect(fuseByReciprocalRank([['x', 'x']], (v) => v)).toEqual([{ item: 'x', score: 1 / 61, ranks: [1] }]);
  });
});
