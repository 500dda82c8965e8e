/**
 * A relative-error quantile sketch (the DDSketch idea): values fall into logarithmic buckets so that any
 * quantile is returned within `alpha` of the exact value, in memory bounded by the value range (about 1,100
 * buckets from 1 ms to a month at 1%), whatever the count. Values below 1 ms share one bucket and report 0.
 */
export class QuantileSketch {
  private readonly gamma: number;
  private readonly logGamma: number;
  private readonly buckets = new Map<number, number>();
  private zeros = 0;
  count = 0;

  constructor(readonly alpha = 0.01) {
    this.gamma = (1 + alpha) / (1 - alpha);
    this.logGamma = Math.log(this.gamma);
  }

  add(value: number): void {
    this.count++;
    if (!(value >= 1)) {
      this.zeros++;
      return;
    }
    const k = Math.ceil(Math.log(value) / this.logGamma);
    this.buckets.set(k, (this.buckets.get(k) ?? 0) + 1);
  }

  /** The q-quantile (0..1), or null when empty. */
  quantile(q: number): number | null {
    if (this.count === 0) return null;
    const rank = Math.max(0, Math.ceil(q * this.count) - 1);
    if (rank < this.zeros) return 0;
    let seen = this.zeros;
    const keys = [...this.buckets.keys()].sort((a, b) => a - b);
    for (const k of keys) {
      seen += this.buckets.get(k)!;
      if (seen > rank) return (2 * Math.pow(this.gamma, k)) / (this.gamma + 1);
    }
    return null;
  }
}

/** Rounds to 2 decimals for reporting. */
export function round2(v: number | null): number | null {
  return v === null ? null : Math.round(v * 100) / 100;
}
