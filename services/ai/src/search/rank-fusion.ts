/**
 * Hybrid ranking: the lexical and the semantic result lists fused by reciprocal rank (Cormack, Clarke and Buettcher,
 * 2009): each item scores the sum over the lists it is in of 1 / (k + its rank there), ranks from 1, k = 60 by
 * default. Items found by both rank above items found by one; neither list's raw scores need to be comparable.
 */
export const RRF_K = 60;

export interface Fused<T> {
  item: T;
  score: number;
  /** The item's rank (from 1) in each list, undefined where it is absent. */
  ranks: (number | undefined)[];
}

/** The fused list, best first; ties keep the order of first appearance (the first list's first). */
export function fuseByReciprocalRank<T>(lists: readonly (readonly T[])[], keyOf: (item: T) => string, k = RRF_K): Fused<T>[] {
  const byKey = new Map<string, Fused<T> & { first: number }>();
  let seen = 0;
  lists.forEach((list, which) => {
    list.forEach((item, position) => {
      const key = keyOf(item);
      let entry = byKey.get(key);
      if (!entry) {
        entry = { item, score: 0, ranks: lists.map(() => undefined), first: seen++ };
        byKey.set(key, entry);
      }
      if (entry.ranks[which] !== undefined) return; // a list naming an item twice counts its best rank
      entry.ranks[which] = position + 1;
      entry.score += 1 / (k + position + 1);
    });
  });
  return [...byKey.values()].sort((a, b) => b.score - a.score || a.first - b.first).map(({ item, score, ranks }) => ({ item, score, ranks }));
}

