import { wordsOf } from '@lantern/domain';
import { Binary } from 'mongodb';
import { onlyDuplicates } from './bulk.js';
import type { Collections } from './collections.js';

/**
 * The lexical index of the chunks on MongoDB: postings of the service's own, scored as BM25 in the service
 * (chunk-search.ts). A document's words are spread over BUCKETS buckets by a hash, and the document writes one
 * entry per bucket it fills, holding the postings of all its words in that bucket. mongod's text index took one
 * key per distinct word of every chunk (a 70 KB document's 60 chunks: about 15,000 keys) and indexed 0.18 MB/s
 * with both cores; an entry per word and document was 3,900 writes for that document; its entries per bucket
 * are at most BUCKETS (docs/benchmarks.md, "Postings on MongoDB in place of its text index", "Fewer buckets").
 *
 * - An entry's `_id` is `[tenantId, bucket, claim, documentId]` as JSON, so that a bucket's entries in a tenant
 *   are one range of the `_id` (a clustered collection: no other index). A claim is a time-ordered id, so a new
 *   document's entries land at the end of their buckets' ranges: keyed by the (random) document id first, they
 *   landed anywhere in them, and once the collection outgrew mongod's cache every insert read and dirtied a page
 *   of its own (3 MB/s of text written at 2,000 documents against 9 MB/s). `t` is its words, separated by spaces;
 *   `p` their postings in the same order, little-endian uint32s: for each word, how many chunks hold it, then per
 *   chunk its index, the word's count in it and the chunk's length in words.
 * - A search of a word reads the word's bucket across the tenant: one entry per document with a word in that
 *   bucket, whose other words it skips; the cost grows with the tenant's text (its index over BUCKETS), not with
 *   how many chunks hold the word.
 * - The buckets a claim wrote are listed first (`postingLists`, `_id` `[documentId, claim]`), so that its entries
 *   can be found again to be removed; a removal takes the entries first, the list last.
 */
export interface PostingDoc {
  _id: string;
  t: string;
  p: Binary;
}

export interface PostingListDoc {
  _id: string;
  tenantId: string;
  buckets: number[];
  /** The layout its entries were written with (POSTINGS_LAYOUT; absent: 1). */
  layout?: number;
}

/**
 * The layout of the entries, recorded on each list and on the document (`postingsLayout`): search reads only
 * documents of the current one, requeueOutdated makes the others again, and a removal finds a list's entries by
 * its own. 1: 1,024 buckets, `_id` [tenantId, bucket, documentId, claim]; 2: 256 buckets, [tenantId, bucket,
 * claim, documentId].
 */
export const POSTINGS_LAYOUT = 2;

/**
 * 256: a document writes at most 256 entries, and every one lands in another part of the collection (its bucket's
 * range), dirtying a page of its own. With 1,024 buckets, mongod spent 60 s of CPU writing 600 documents of 70 KB
 * with a 0.5 GB cache, 17 s with 512 and 5 s with 256, where a word's read across 2,000 documents went from about
 * 25 to 30 ms (docs/benchmarks.md, "Fewer buckets and keys in time order").
 */
export const BUCKETS = 256;
/**
 * Entries an insert takes at a time: 128, or fewer of 4 MB in all (a 10 MB PDF's 13,000 chunks make about 55 MB of
 * postings, which in large inserts held up the span and log writes sharing mongod). A removal takes 128.
 */
const WRITE_BATCH = 128;
const WRITE_BATCH_BYTES = 4 * 1024 * 1024;
const REMOVE_BATCH = 128;

/** The ids starting with `prefix` (a JSON array's opening, ending in a comma): [prefix, prefix with ',' + 1). */
const startingWith = (prefix: string) => ({ $gte: prefix, $lt: `${prefix.slice(0, -1)}-` });
const opening = (parts: (string | number)[]) => `${JSON.stringify(parts).slice(0, -1)},`;

/** A word's bucket: FNV-1a over its UTF-16 units, modulo BUCKETS. */
export function bucketOf(term: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % BUCKETS;
}

export const entryId = (tenantId: string, bucket: number, documentId: string, claim: string, layout = POSTINGS_LAYOUT): string =>
  JSON.stringify(layout === 1 ? [tenantId, bucket, documentId, claim] : [tenantId, bucket, claim, documentId]);
/** The `_id` range of a bucket's entries in a tenant. */
export const bucketRange = (tenantId: string, bucket: number) => startingWith(opening([tenantId, bucket]));

/** An entry's document and claim, from its `_id`. */
export function entryOwner(id: string): { documentId: string; claim: string } {
  const [, , claim, documentId] = JSON.parse(id) as [string, number, string, string];
  return { documentId, claim };
}

/** A chunk's `_id`: its claim first (time-ordered: new chunks land at the end of the `_id` index), then its index. */
export const chunkId = (claim: string, index: number): string => `${claim}:${index}`;

/** The postings of a claim's chunks: per word, its chunks' (index, count, length); and the words of all chunks. */
export function postingsOf(chunks: readonly { index: number; text: string }[]): { postings: Map<string, number[]>; words: number } {
  const postings = new Map<string, number[]>();
  let words = 0;
  for (const chunk of chunks) {
    const all = wordsOf(chunk.text);
    words += all.length;
    const counts = new Map<string, number>();
    for (const word of all) counts.set(word, (counts.get(word) ?? 0) + 1);
    for (const [term, count] of counts) {
      let list = postings.get(term);
      if (list === undefined) postings.set(term, (list = []));
      list.push(chunk.index, count, all.length);
    }
  }
  return { postings, words };
}

/** The entries of a claim's postings, by bucket: its words and their packed postings. */
function entriesOf(postings: Map<string, number[]>): Map<number, { t: string; p: Binary }> {
  const byBucket = new Map<number, string[]>();
  for (const term of postings.keys()) {
    const bucket = bucketOf(term);
    const terms = byBucket.get(bucket);
    if (terms === undefined) byBucket.set(bucket, [term]);
    else terms.push(term);
  }
  const entries = new Map<number, { t: string; p: Binary }>();
  for (const [bucket, terms] of byBucket) {
    const values: number[] = [];
    for (const term of terms) {
      const list = postings.get(term)!;
      values.push(list.length / 3);
      for (const value of list) values.push(value);
    }
    entries.set(bucket, { t: terms.join(' '), p: new Binary(Buffer.from(new Uint32Array(values).buffer)) });
  }
  return entries;
}

/**
 * The postings of `term` in an entry, as (index, count, length) triples, or undefined when the entry has none.
 * Reads only as far as the term's own.
 */
export function termPostings(entry: Pick<PostingDoc, 't' | 'p'>, term: string): Uint32Array | undefined {
  const position = entry.t.split(' ').indexOf(term);
  if (position < 0) return undefined;
  const bytes = entry.p.buffer.subarray(0, entry.p.position);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  for (let i = 0; i < position; i++) at += 4 + view.getUint32(at, true) * 12;
  const count = view.getUint32(at, true) * 3;
  const values = new Uint32Array(count);
  for (let i = 0; i < count; i++) values[i] = view.getUint32(at + 4 + i * 4, true);
  return values;
}

async function removeIds(c: Collections, ids: string[], afterBatch?: () => Promise<void>): Promise<void> {
  // One delete statement per id: an equality on a clustered collection's `_id` is a bounded scan, where mongod
  // 6.0 scans the whole collection for an `_id: {$in: [...]}`.
  for (let i = 0; i < ids.length; i += REMOVE_BATCH) {
    await c.postings.bulkWrite(ids.slice(i, i + REMOVE_BATCH).map((_id) => ({ deleteOne: { filter: { _id } } })), { ordered: false });
    await afterBatch?.();
  }
}

/**
 * Writes a claim's entries (the list of its buckets first; a repeat inserts nothing twice) and gives the words
 * counted and a way to take exactly these entries back (a completion that lost its claim: its list may be gone).
 */
export async function writePostings(c: Collections, owner: { tenantId: string; documentId: string; claim: string },
  chunks: readonly { index: number; text: string }[]): Promise<{ words: number; takeBack: () => Promise<void> }> {
  const { tenantId, documentId, claim } = owner;
  const { postings, words } = postingsOf(chunks);
  const entries = entriesOf(postings);
  const buckets = [...entries.keys()];
  if (buckets.length > 0) await c.postingLists.replaceOne({ _id: JSON.stringify([documentId, claim]) }, { tenantId, buckets, layout: POSTINGS_LAYOUT }, { upsert: true });
  const ids = buckets.map((bucket) => entryId(tenantId, bucket, documentId, claim));
  let batch: PostingDoc[] = [];
  let bytes = 0;
  const insert = async () => {
    try {
      await c.postings.insertMany(batch, { ordered: false });
    } catch (e) {
      if (!onlyDuplicates(e)) throw e;
    }
    batch = [];
    bytes = 0;
  };
  for (const [i, bucket] of buckets.entries()) {
    const entry = entries.get(bucket)!;
    if (batch.length === WRITE_BATCH || (batch.length > 0 && bytes + entry.p.position > WRITE_BATCH_BYTES)) await insert();
    batch.push({ _id: ids[i]!, ...entry });
    bytes += entry.p.position + entry.t.length;
  }
  if (batch.length > 0) await insert();
  return { words, takeBack: () => removeIds(c, ids) };
}

/**
 * Removes the entries of a document's claims that `keep` does not keep (all, without it), and then their lists;
 * `afterBatch` runs after each batch removed (a withdrawal renews its grace). Safe to run again.
 */
export async function removePostings(c: Collections, documentId: string, keep?: (claim: string) => boolean,
  afterBatch?: () => Promise<void>): Promise<void> {
  const lists = await c.postingLists.find({ _id: startingWith(opening([documentId])) }).toArray();
  for (const list of lists) {
    const [, claim] = JSON.parse(list._id) as [string, string];
    if (keep?.(claim)) continue;
    await removeIds(c, list.buckets.map((bucket) => entryId(list.tenantId, bucket, documentId, claim, list.layout ?? 1)), afterBatch);
    await c.postingLists.deleteOne({ _id: list._id });
  }
}
