import { isKeyHash } from './attribute-pairs.js';
import { asciiLower } from './text.js';
import { trigramsOf } from './trigrams.js';

/**
 * Postings of a block of logs, the unit of the MongoDB store's log search index (mongo/log-segments.ts;
 * docs/benchmarks.md, "A design for MongoDB measured at 10M"): for each trigram of the block's (ASCII-lowercased)
 * messages, and for each level, the positions (0 to BLOCK_LOGS - 1) of the logs that have it. A search intersects
 * the postings of its text's trigrams block by block; the logs left are the candidates it fetches and tests.
 *
 * A posting's bytes: the positions as little-endian uint16s in ascending order while they are fewer than
 * DENSE_POSITIONS, else a bitmap of BLOCK_LOGS bits (BITMAP_BYTES). The two never have the same length, so the
 * bytes say which they are.
 */

/** Logs in a block at most: a position fits in a uint16. */
export const BLOCK_LOGS = 65_536;
/** A bitmap of every position of a block. */
export const BITMAP_BYTES = BLOCK_LOGS / 8;
/** From this many positions on, the bitmap is the smaller. */
export const DENSE_POSITIONS = BITMAP_BYTES / 2;
/** The posting key of a level: not a trigram of any text (trigrams have three code points). */
export const levelKey = (level: string): string => `\u0001${level}`;
/** The posting key of an attribute's key-value hash (attribute-pairs.ts): neither a trigram nor a level's key. */
export const attributeKey = (hash: number): string => `\u0002${hash.toString(36)}`;

/** The postings of a block's logs, in order: each trigram's and each level's positions, ascending. */
export function blockPostings(logs: ReadonlyArray<{ message: string; level: string }>): Map<string, number[]> {
  if (logs.length > BLOCK_LOGS) throw new RangeError(`a block holds at most ${BLOCK_LOGS} logs`);
  return postingsAt(logs.map((log, position) => ({ position, message: log.message, level: log.level })));
}

/**
 * The postings of logs at the given positions of a block (distinct, 0 to BLOCK_LOGS - 1, in any order): each
 * trigram's and each level's positions, ascending. A message that is not a string has no trigram.
 */
export function postingsAt(logs: ReadonlyArray<{ position: number; message: string | null | undefined; level: string; attrs?: readonly number[] | undefined }>): Map<string, number[]> {
  const postings = new Map<string, number[]>();
  const add = (key: string, position: number) => {
    const list = postings.get(key);
    if (list === undefined) postings.set(key, [position]);
    else list.push(position);
  };
  for (const log of [...logs].sort((a, b) => a.position - b.position)) {
    if (typeof log.message === 'string') for (const gram of trigramsOf(asciiLower(log.message))) add(gram, log.position);
    add(levelKey(log.level), log.position);
    for (const h of log.attrs ?? []) if (!isKeyHash(h)) add(attributeKey(h), log.position);
  }
  return postings;
}

/**
 * A posting's bytes for ascending, distinct positions (0 to BLOCK_LOGS - 1; anything else is a RangeError). A
 * bitmap's words are little-endian whatever the machine, as the list's positions are: the bytes may be read elsewhere.
 */
export function encodePositions(positions: readonly number[]): Buffer {
  for (const p of positions) if (!Number.isInteger(p) || p < 0 || p >= BLOCK_LOGS) throw new RangeError(`not a position in a block: ${p}`);
  if (positions.length >= DENSE_POSITIONS) {
    const bits = new Uint32Array(BLOCK_LOGS / 32);
    for (const p of positions) bits[p >>> 5]! |= 1 << (p & 31);
    const out = Buffer.alloc(BITMAP_BYTES);
    bits.forEach((word, i) => out.writeUInt32LE(word, i * 4));
    return out;
  }
  const out = Buffer.alloc(positions.length * 2);
  positions.forEach((p, i) => out.writeUInt16LE(p, i * 2));
  return out;
}

/** A posting's positions as a bitmap of BLOCK_LOGS bits (a new array: the caller may change it). */
export function bitmapOf(bytes: Uint8Array): Uint32Array {
  const bits = new Uint32Array(BLOCK_LOGS / 32);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength === BITMAP_BYTES) {
    for (let i = 0; i < bits.length; i++) bits[i] = view.getUint32(i * 4, true);
    return bits;
  }
  if (bytes.byteLength % 2 !== 0 || bytes.byteLength >= BITMAP_BYTES) throw new RangeError(`not a posting: ${bytes.byteLength} bytes`);
  for (let i = 0; i < bytes.byteLength; i += 2) {
    const p = view.getUint16(i, true);
    bits[p >>> 5]! |= 1 << (p & 31);
  }
  return bits;
}

/** Keeps in `acc` the positions that `other` has too; whether any is left. */
export function intersect(acc: Uint32Array, other: Uint32Array): boolean {
  let any = 0;
  for (let i = 0; i < acc.length; i++) any |= acc[i]! &= other[i]!;
  return any !== 0;
}

/** The positions of a bitmap, highest (newest) first, at most `limit`. */
export function positionsOf(bits: Uint32Array, limit = BLOCK_LOGS): number[] {
  const out: number[] = [];
  for (let i = bits.length - 1; i >= 0 && out.length < limit; i--) {
    let word = bits[i]!;
    while (word !== 0 && out.length < limit) {
      const bit = 31 - Math.clz32(word);
      out.push(i * 32 + bit);
      word &= ~(1 << bit);
    }
  }
  return out;
}

/** One posting of the positions any of `postings` has (a merge of a block's segments). */
export function unionOf(postings: readonly Uint8Array[]): Buffer {
  const acc = new Uint32Array(BLOCK_LOGS / 32);
  for (const bytes of postings) {
    const bits = bitmapOf(bytes);
    for (let i = 0; i < acc.length; i++) acc[i]! |= bits[i]!;
  }
  return encodePositions(positionsOf(acc).reverse());
}

/** Whether a posting holds `position`. */
export function hasPosition(bytes: Uint8Array, position: number): boolean {
  return ((bitmapOf(bytes)[position >>> 5]! >>> (position & 31)) & 1) === 1;
}
