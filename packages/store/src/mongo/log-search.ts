import type { Filter } from 'mongodb';
import { isKeyHash } from '../attribute-pairs.js';
import { attributeKey, levelKey } from '../log-postings.js';
import type { Cursor } from '../port.js';
import { asciiLower } from '../text.js';
import { searchTrigrams } from '../trigrams.js';
import { deadlineOf } from './budget.js';
import type { Deadline } from './budget.js';
import type { Collections, LogDoc } from './collections.js';
import { newerLog, searchProject } from './log-candidates.js';
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

const keyOf = (doc: LogDoc): Cursor => ({ ts: doc.ts.getTime(), id: doc._id });

/** What a search page reads: the projects, the filter of a log after a cursor, the window, and the level. */
export interface SearchScope {
  projects: number[];
  base: (after: Cursor | undefined) => Filter<LogDoc>;
  from?: number;
  to?: number;
  level?: string;
}

/**
 * One page of a search by a text of 3+ characters (docs/architecture.md, "Log search"), the newest `limit` logs
 * after `after` that contain the text:
 * - the pending logs (not yet in a segment: log-indexer.ts), on their partial index `project_pending_ts`,
 *   newest first; those without `message` (written before the field existed) have `tested: false`;
 * - then, per project, its postings (log-candidates.ts): the logs whose segments hold every trigram of the text
 *   (and the level's key), fetched with the text as a regex.
 * In that order, each read whole before the next: the indexer makes a segment ready before it takes its logs out
 * of the pending ones, so a log it moves between the two reads is in the first or in the second, never in neither
 * (MongoDB reads no snapshot across two queries); a log in both comes once. Each read takes the newest `limit` of
 * its own, so the newest `limit` of them all are the page's; the next page starts after its last, when it is full.
 */
export async function searchPage(c: Collections, scope: SearchScope, text: string | undefined, grams: string[],
  after: Cursor | undefined, limit: number, deadline: Deadline = deadlineOf(undefined), attributes: readonly number[] = []): Promise<{ found: Found[]; next: Cursor | undefined }> {
  // The text as a regex, and the attributes on the log's hashes: the exact tests of every candidate.
  const exact: Filter<LogDoc>[] = [
    ...(text === undefined ? [] : [{ message: containsRegex(text) }]),
    ...(attributes.length === 0 ? [] : [{ attrs: { $all: [...attributes] } }]),
  ];
  const { projects } = scope;
  // Both from the primary: two members at different points of replication could each miss the moving log. A
  // pending log without `message` (written before it existed) is the reader's to test; one without `attrs` never
  // matches an attribute.
  const pendingText: Filter<LogDoc>[] = text === undefined ? [] : [{ $or: [{ message: containsRegex(text) }, { message: { $exists: false } }] }];
  const pendingAttrs: Filter<LogDoc>[] = attributes.length === 0 ? [] : [{ attrs: { $all: [...attributes] } }];
  const pending = await c.logs.find({ $and: [scope.base(after), { gramsPending: true }, ...pendingText, ...pendingAttrs] },
    { sort: { ts: -1, _id: -1 }, limit, hint: 'project_pending_ts', readPreference: 'primary', ...deadline.maxTime() }).toArray();
  const attributeKeys = attributes.filter((h) => !isKeyHash(h)).map(attributeKey);
  const keys = [...grams, ...attributeKeys, ...(scope.level === undefined ? [] : [levelKey(scope.level)])];
  const upTo = after === undefined ? (scope.to === undefined ? undefined : scope.to - 1) : after.ts;
  const indexed: LogDoc[] = [];
  for (const projectId of projects) {
    indexed.push(...await searchProject(c, projectId, keys, { $and: [scope.base(after), ...exact] }, { from: scope.from, upTo }, limit, deadline));
  }
  const seen = new Set<string>();
  const found: Found[] = [];
  for (const doc of [...indexed, ...pending].sort(newerLog)) {
    if (seen.has(doc._id)) continue;
    seen.add(doc._id);
    found.push({ doc, tested: doc.message !== undefined });
    if (found.length === limit) break;
  }
  return { found, next: found.length === limit ? keyOf(found.at(-1)!.doc) : undefined };
}
