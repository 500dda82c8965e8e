/**
 * A relative-error quantile sketch (the DDSketch idea): values fall into logarithmic buckets so that any
 * quantile is returned within `alpha` of the exact value, in memory bounded by the value range (about 1,100
 * buckets from 1 ms to a month at 1%), whatever the count. Values below 1 ms share one bucket and report 0.
 *
 * Bucket counts are integers, so two sketches of the same alpha merge by adding counts, and a value added
 * earlier can be taken out again (`add(value, -1)`): the store's per-minute rollups rely on both. `toArray`
 * gives a compact serialisable form, a flat array of numbers (JSON in SQLite).
 */
export class QuantileSketch {
  private readonly gamma: number;
  private readonly logGamma: number;
  private readonly buckets = new Map<number, number>();
  zeros = 0;
  count = 0;

  constructor(readonly alpha = 0.01) {
    this.gamma = (1 + alpha) / (1 - alpha);
    this.logGamma = Math.log(this.gamma);
  }

  /** The bucket of a value, or null for the zero bucket (below 1 ms, or not a number). */
  keyOf(value: number): number | null {
    return value >= 1 ? Math.ceil(Math.log(value) / this.logGamma) : null;
  }

  /** Adds `n` values (a negative `n` takes values out). */
  add(value: number, n = 1): void {
    this.addKey(this.keyOf(value), n);
  }

  /** Adds `n` to a bucket (null: the zero bucket). */
  addKey(key: number | null, n: number): void {
    this.count += n;
    if (key === null) {
      this.zeros += n;
      return;
    }
    const next = (this.buckets.get(key) ?? 0) + n;
    if (next === 0) this.buckets.delete(key);
    else this.buckets.set(key, next);
  }

  /** Adds every count of `other` (a sketch of the same alpha). */
  merge(other: QuantileSketch): this {
    this.addKey(null, other.zeros);
    for (const [k, n] of other.buckets) this.addKey(k, n);
    return this;
  }

  /** The non-empty buckets, ascending by key. */
  entries(): [number, number][] {
    return [...this.buckets.entries()].sort((a, b) => a[0] - b[0]);
  }

  /** The q-quantile (0..1), or null when empty. */
  quantile(q: number): number | null {
    if (this.count <= 0) return null;
    const rank = Math.max(0, Math.ceil(q * this.count) - 1);
    if (rank < this.zeros) return 0;
    let seen = this.zeros;
    for (const [k, n] of this.entries()) {
      seen += n;
      if (seen > rank) return (2 * Math.pow(this.gamma, k)) / (this.gamma + 1);
    }
    return null;
  }

  /**
   * The compact serialisable form: `[zeros, key, count, key, count, ...]`, keys ascending. Counts may be negative
   * (a delta serialises as well as a sketch).
   */
  toArray(): number[] {
    const out = [this.zeros];
    for (const [k, n] of this.entries()) out.push(k, n);
    return out;
  }

  /** Adds the counts of a serialised sketch (of the same alpha) to this one. */
  mergeArray(counts: readonly number[]): this {
    this.addKey(null, counts[0] ?? 0);
    for (let i = 1; i + 1 < counts.length; i += 2) this.addKey(counts[i]!, counts[i + 1]!);
    return this;
  }

  static fromArray(counts: readonly number[], alpha = 0.01): QuantileSketch {
    return new QuantileSketch(alpha).mergeArray(counts);
  }
}

/** Rounds to 2 decimals for reporting. */
export function round2(v: number | null): number | null {
  return v === null ? null : Math.round(v * 100) / 100;
}
