import { wordsOf } from '@lantern/domain';
import { Binary } from 'mongodb';
import { onlyDuplicates } from './bulk.js';
import type { Collections } from './collections.js';

/**
 * The lexical index of the chunks on MongoDB: postings of the service's own, one entry per word and document (not
 * per chunk), scored as BM25 in the service (chunk-search.ts). mongod's text index took one key per distinct word
 * of every chunk (a 70 KB document's 60 chunks: about 15,000 keys) and held both cores while it indexed; one entry
 * per word of the document is about 4,000 (docs/benchmarks.md).
 *
 * - A posting's `_id` is `[tenantId, term, documentId, claim]` as JSON, so that a term's entries in a tenant are
 *   one range of the `_id` index (no other index); `p` is its chunks as little-endian uint32 triples: the chunk's
 *   index, the term's count in it and the chunk's length in words.
 * - The terms a claim wrote are listed first (`postingLists`, `_id` `[documentId, claim, part]`), so that its
 *   postings can be found again to be removed; a removal takes the postings first, the list last.
 */
export interface PostingDoc {
  _id: string;
  p: Binary;
}

export interface PostingListDoc {
  _id: string;
  tenantId: string;
  /** The terms, separated by spaces (a term holds letters, digits and marks only: packages/domain wordsOf). */
  terms: string;
}

/** Terms a list part holds (a document of random text has millions: a part stays far under 16 MB). */
const LIST_TERMS = 20_000;
/** Postings an insert takes at a time, and a removal. */
const WRITE_BATCH = 5_000;
const REMOVE_BATCH = 1_000;
/** The integers of one chunk's entry in `p`. */
export const ENTRY = 3;

/** The ids starting with `prefix` (a JSON array's opening, ending in a comma): [prefix, prefix with ',' + 1). */
const startingWith = (prefix: string) => ({ $gte: prefix, $lt: `${prefix.slice(0, -1)}-` });
const opening = (parts: string[]) => `${JSON.stringify(parts).slice(0, -1)},`;

export const postingId = (tenantId: string, term: string, documentId: string, claim: string): string => JSON.stringify([tenantId, term, documentId, claim]);
/** The `_id` range of a term's postings in a tenant. */
export const termRange = (tenantId: string, term: string) => startingWith(opening([tenantId, term]));

/** A posting's document and claim, from its `_id`. */
export function postingOwner(id: string): { documentId: string; claim: string } {
  const [, , documentId, claim] = JSON.parse(id) as string[];
  return { documentId: documentId!, claim: claim! };
}

/** The postings of a claim's chunks: per term, its chunks' entries; and the words of all chunks. */
export function postingsOf(chunks: readonly { index: number; text: string }[]): { entries: Map<string, number[]>; words: number } {
  const entries = new Map<string, number[]>();
  let words = 0;
  for (const chunk of chunks) {
    const all = wordsOf(chunk.text);
    words += all.length;
    const counts = new Map<string, number>();
    for (const word of all) counts.set(word, (counts.get(word) ?? 0) + 1);
    for (const [term, count] of counts) {
      let list = entries.get(term);
      if (list === undefined) entries.set(term, (list = []));
      list.push(chunk.index, count, all.length);
    }
  }
  return { entries, words };
}

const packed = (values: number[]) => new Binary(Buffer.from(new Uint32Array(values).buffer));

/** The integers of a posting's `p`. */
export function entriesOf(p: Binary): Uint32Array {
  const bytes = p.buffer.subarray(0, p.position);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Uint32Array(bytes.byteLength >> 2);
  for (let i = 0; i < values.length; i++) values[i] = view.getUint32(i * 4, true);
  return values;
}

/**
 * Removes postings by id, a batch at a time: one delete statement per id (an equality on a clustered collection's
 * `_id` is a bounded scan; mongod 6.0 scans the whole collection for an `_id: {$in: [...]}`).
 */
async function removeIds(c: Collections, ids: string[], afterBatch?: () => Promise<void>): Promise<void> {
  for (let i = 0; i < ids.length; i += REMOVE_BATCH) {
    await c.postings.bulkWrite(ids.slice(i, i + REMOVE_BATCH).map((_id) => ({ deleteOne: { filter: { _id } } })), { ordered: false });
    await afterBatch?.();
  }
}

/**
 * Writes a claim's postings (the list first; a repeat inserts nothing twice) and gives the words counted and a way
 * to take exactly these postings back (a completion that lost its claim: its list may already be gone).
 */
export async function writePostings(c: Collections, owner: { tenantId: string; documentId: string; claim: string },
  chunks: readonly { index: number; text: string }[]): Promise<{ words: number; takeBack: () => Promise<void> }> {
  const { tenantId, documentId, claim } = owner;
  const { entries, words } = postingsOf(chunks);
  const terms = [...entries.keys()];
  for (let i = 0, part = 0; i < terms.length; i += LIST_TERMS, part++) {
    const list = { tenantId, terms: terms.slice(i, i + LIST_TERMS).join(' ') };
    await c.postingLists.replaceOne({ _id: JSON.stringify([documentId, claim, part]) }, list, { upsert: true });
  }
  const ids = terms.map((term) => postingId(tenantId, term, documentId, claim));
  for (let i = 0; i < terms.length; i += WRITE_BATCH) {
    const docs = terms.slice(i, i + WRITE_BATCH).map((term, j) => ({ _id: ids[i + j]!, p: packed(entries.get(term)!) }));
    try {
      await c.postings.insertMany(docs, { ordered: false });
    } catch (e) {
      if (!onlyDuplicates(e)) throw e;
    }
  }
  return { words, takeBack: () => removeIds(c, ids) };
}

/**
 * Removes the postings of a document's claims that `keep` does not keep (all, without it), and then their lists;
 * `afterBatch` runs after each batch removed (a withdrawal renews its grace). Safe to run again.
 */
export async function removePostings(c: Collections, documentId: string, keep?: (claim: string) => boolean,
  afterBatch?: () => Promise<void>): Promise<void> {
  const lists = await c.postingLists.find({ _id: startingWith(opening([documentId])) }).toArray();
  for (const list of lists) {
    const [, claim] = JSON.parse(list._id) as [string, string, number];
    if (keep?.(claim)) continue;
    await removeIds(c, list.terms.split(' ').map((term) => postingId(list.tenantId, term, documentId, claim)), afterBatch);
    await c.postingLists.deleteOne({ _id: list._id });
  }
}
