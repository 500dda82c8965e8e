/**
 * Chunk vectors as both stores keep them (SQLite: a float32 BLOB; MongoDB: an array of numbers) and the brute-force
 * nearest-neighbour pass over a tenant's vectors (docs/architecture.md, known limits: its cost grows with the
 * tenant's chunks).
 */

/** The vector's bytes, little-endian float32, for a BLOB column. */
export const vectorBytes = (vector: Float32Array): Buffer => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

/** A BLOB column's bytes as a vector: a view when they are aligned for a Float32Array, else a copy. */
export function vectorOf(bytes: Uint8Array): Float32Array {
  if (bytes.byteOffset % 4 === 0 && bytes.byteLength % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/** The dot product; of unit vectors, their cosine. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/**
 * Keeps the `count` best of the candidates offered one by one (highest similarity first, ties by the order offered),
 * without holding them all: a tenant's vectors can be read as a stream.
 */
export class TopK<T> {
  private readonly kept: { item: T; similarity: number; order: number }[] = [];
  private offered = 0;
  constructor(private readonly count: number) {}

  offer(item: T, similarity: number): void {
    const order = this.offered++;
    if (this.count <= 0) return;
    const last = this.kept[this.kept.length - 1];
    if (this.kept.length >= this.count && last && similarity <= last.similarity) return;
    let at = this.kept.length;
    while (at > 0 && this.kept[at - 1]!.similarity < similarity) at--;
    this.kept.splice(at, 0, { item, similarity, order });
    if (this.kept.length > this.count) this.kept.pop();
  }

  /** Best first. */
  best(): { item: T; similarity: number }[] {
    return this.kept.map(({ item, similarity }) => ({ item, similarity }));
  }
}
