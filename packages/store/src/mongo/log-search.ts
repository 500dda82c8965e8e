import type { Filter } from 'mongodb';
import type { Cursor } from '../port.js';
import { asciiLower } from '../text.js';
import { searchTrigrams } from '../trigrams.js';
import { deadlineOf } from './budget.js';
import type { Deadline } from './budget.js';
import type { Collections, LogDoc } from './collections.js';
import { containsRegex } from './paging.js';

/** The most trigrams of a text in the filter (searchTrigrams). */
const MAX_TRIGRAMS = 8;

/** The trigrams a text is looked up by: none under 3 characters (then no index serves it). */
export const searchGramsOf = (text: string): string[] => searchTrigrams(asciiLower(text), MAX_TRIGRAMS);

/** A log found by a search page, and whether its read tested the text on the server (else the reader does). */
export interface Found {
  doc: LogDoc;
  tested: boolean;
}

/** Newer first: later `ts`, then larger `_id` (the order of every read here). */
const newer = (a: LogDoc, b: LogDoc): boolean => a.ts.getTime() > b.ts.getTime() || (a.ts.getTime() === b.ts.getTime() && a._id > b._id);
const keyOf = (doc: LogDoc): Cursor => ({ ts: doc.ts.getTime(), id: doc._id });

/**
 * One page of a search by a text of 3+ characters (docs/architecture.md, "Log search"), after `base(cursor)`:
 * - the logs without `grams`, at the null key of the (projectId, grams, ts, _id) index, named (left to itself the
 *   planner took the project's time index, whose first batch the newest, pending, logs fill): the ones the log
 *   indexer has not reached yet (log-indexer.ts), those whose message has too many trigrams to index, and any
 *   written before the field existed; `tested: false` (the reader tests them again, on `data` when they have no
 *   `message`);
 * - then the logs whose `grams` hold the text's trigrams and whose `message` matches the literal regex: one
 *   trigram's range of the same index.
 * In that order, each read whole before the next: a log the indexer moves from the null key to its trigrams
 * between the two reads is in the first (it had not moved when that read ended) or in the second (it had moved
 * when that one began), never in neither. (MongoDB reads no snapshot across two queries.) Each read takes at
 * most `limit`; the page ends at the newest of the last logs of the reads that filled their limit (beyond it a
 * read may have more), and the next page starts after it. A log in both reads comes once. Each read is sent with
 * what is left of the search's budget as its `maxTimeMS` (budget.ts).
 */
export async function searchPage(c: Collections, base: (after: Cursor | undefined) => Filter<LogDoc>, text: string, grams: string[],
  after: Cursor | undefined, limit: number, deadline: Deadline = deadlineOf(undefined)): Promise<{ found: Found[]; next: Cursor | undefined }> {
  const regex = containsRegex(text);
  const sort = { ts: -1, _id: -1 } as const;
  // Both from the primary: two members at different points of replication could each miss the moving log.
  const unindexed = await c.logs.find({ $and: [base(after), { grams: { $exists: false } }, { $or: [{ message: regex }, { message: { $exists: false } }] }] },
    { sort, limit, hint: 'project_grams_ts', readPreference: 'primary', ...deadline.maxTime() }).toArray();
  const indexed = await c.logs.find({ $and: [base(after), { grams: { $all: grams }, message: regex }] }, { sort, limit, readPreference: 'primary', ...deadline.maxTime() }).toArray();
  let boundary: LogDoc | undefined;
  for (const read of [unindexed, indexed]) {
    const last = read.at(-1);
    if (read.length === limit && last && (boundary === undefined || newer(last, boundary))) boundary = last;
  }
  const found: Found[] = [];
  let u = 0;
  let i = 0;
  for (;;) {
    const a = unindexed[u];
    const b = indexed[i];
    const next = a && (!b || newer(a, b) || a._id === b._id) ? a : b;
    if (!next || (boundary && newer(boundary, next))) break;
    if (next === a) {
      u++;
      if (b && b._id === a._id) continue; // moved between the reads: take the indexed one, tested by the server
      found.push({ doc: a, tested: false });
    } else {
      i++;
      found.push({ doc: b!, tested: true });
    }
  }
  return { found, next: boundary && keyOf(boundary) };
}
