import { QuantileSketch } from '@lantern/domain';
import type { RollupChange } from './rollups.js';

/**
 * Minute cells summed into cells of `width` that start on its multiples, grouped by `keyOf(cell, start)` (and
 * re-keyed by `relabel` first, if given), without those that end up changing nothing; new objects each call: a
 * caller merges the stored sketch into a change's, and the delta is read again for the next width.
 */
export function widen<T extends RollupChange>(cells: Iterable<T>, width: number, keyOf: (c: T, start: number) => string, relabel: (c: T) => T = (c) => c): T[] {
  const wide = new Map<string, T>();
  for (const cell of cells) {
    const c = relabel(cell);
    const start = Math.floor(c.start / width) * width;
    const key = keyOf(c, start);
    const into = wide.get(key);
    if (into === undefined) wide.set(key, { ...c, start, sketch: new QuantileSketch().merge(c.sketch) });
    else {
      into.requests += c.requests;
      into.errors += c.errors;
      into.sketch.merge(c.sketch);
    }
  }
  return [...wide.values()].filter((c) => c.requests !== 0 || c.sketch.toArray().some((n) => n !== 0));
}
