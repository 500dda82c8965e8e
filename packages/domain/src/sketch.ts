/**
 * A relative-error quantile sketch (the DDSketch idea): values fall into logarithmic buckets so that any
 * quantile is returned within `alpha` of the exact value, in memory bounded by the value range (about 1,100
 * buckets from 1 ms to a month at 1%), whatever the count. Values below 1 ms share one bucket and report 0.
 *
 * Bucket counts are integers, so two sketches of the same alpha merge by adding counts, and a value added
 * earlier can be taken out again (`add(value, -1)`): the store's per-minute rollups rely on both. `toArray`
 * gives a compact serialisable form, a flat array of numbers, and `encode` the same as varint bytes.
 */
export class QuantileSketch {
  private readonly gamma: number;
  private readonly logGamma: number;
  /** Counts of the buckets `offset`, `offset + 1`, ...: dense, since keys cluster (about 1,100 from 1 ms to a month). */
  private counts: number[] = [];
  private offset = 0;
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
    if (this.counts.length === 0) this.offset = key;
    else if (key < this.offset) {
      this.counts = [...new Array<number>(this.offset - key).fill(0), ...this.counts];
      this.offset = key;
    }
    const i = key - this.offset;
    while (this.counts.length <= i) this.counts.push(0);
    this.counts[i]! += n;
  }

  /** Adds every count of `other` (a sketch of the same alpha). */
  merge(other: QuantileSketch): this {
    this.addKey(null, other.zeros);
    other.counts.forEach((n, i) => n !== 0 && this.addKey(other.offset + i, n));
    return this;
  }

  /** The non-empty buckets, ascending by key. */
  entries(): [number, number][] {
    const out: [number, number][] = [];
    this.counts.forEach((n, i) => n !== 0 && out.push([this.offset + i, n]));
    return out;
  }

  /** The q-quantile (0..1), or null when empty. */
  quantile(q: number): number | null {
    if (this.count <= 0) return null;
    const rank = Math.max(0, Math.ceil(q * this.count) - 1);
    if (rank < this.zeros) return 0;
    let seen = this.zeros;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i]!;
      if (seen > rank) return (2 * Math.pow(this.gamma, this.offset + i)) / (this.gamma + 1);
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

  /** The same as bytes, about a third of its JSON text: varints of the zero count, then of key deltas and counts. */
  encode(): Uint8Array {
    const out: number[] = [];
    writeVarint(out, zigzag(this.zeros));
    let previous = 0;
    for (const [k, n] of this.entries()) {
      writeVarint(out, zigzag(k - previous));
      writeVarint(out, zigzag(n));
      previous = k;
    }
    return Uint8Array.from(out);
  }

  /** Adds the counts of an encoded sketch (of the same alpha) to this one: the read path of the rollups, kept tight. */
  mergeEncoded(bytes: Uint8Array): this {
    cursor.at = 0;
    this.addKey(null, unzigzag(readVarint(bytes)));
    let key = 0;
    while (cursor.at < bytes.length) {
      key += unzigzag(readVarint(bytes));
      const n = unzigzag(readVarint(bytes));
      const i = key - this.offset;
      if (this.counts.length > 0 && i >= 0 && i < this.counts.length) {
        this.counts[i]! += n;
        this.count += n;
      } else {
        this.addKey(key, n);
      }
    }
    return this;
  }
}

const zigzag = (n: number): number => (n >= 0 ? n * 2 : -n * 2 - 1);
const unzigzag = (n: number): number => (n % 2 === 0 ? n / 2 : -(n + 1) / 2);

/** Unsigned LEB128, by arithmetic (counts may pass 32 bits). */
function writeVarint(out: number[], n: number): void {
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
}

/** The read position of `readVarint` (one decode at a time: JavaScript runs one at a time). */
const cursor = { at: 0 };

function readVarint(bytes: Uint8Array): number {
  let b = bytes[cursor.at++];
  if (b === undefined) throw new Error('A truncated sketch.');
  if (b < 0x80) return b;
  let n = b & 0x7f;
  let scale = 0x80;
  for (;;) {
    b = bytes[cursor.at++];
    if (b === undefined) throw new Error('A truncated sketch.');
    n += (b & 0x7f) * scale;
    if (b < 0x80) return n;
    scale *= 0x80;
  }
}

/** Rounds to 2 decimals for reporting. */
export function round2(v: number | null): number | null {
  return v === null ? null : Math.round(v * 100) / 100;
}
