import type { LogQuery, MetricsQuery, TraceQuery } from '../port.js';

/**
 * Which of the read pool's workers a read may take (read-pool.ts). A light read is short whatever the data: a
 * small page whose every filter an index serves (keyset paging bounds it, paging.ts), or metrics over at most a
 * day. Everything else is heavy: a whole-set stream, a large page, a text or another filter that slices through
 * the index, metrics over a longer window, the entry spans of a window. Light reads have a worker of their own at
 * the normal priority, so that a heavy reader, however busy the other workers are, never stands in front of them.
 */
export type ReadClass = 'light' | 'heavy';

/** The largest page (records, the store's `limit` being the route's + 1) that counts as light. */
export const LIGHT_PAGE = 101;
const DAY = 86_400_000;

export function traceReadClass(query: TraceQuery): ReadClass {
  const attributes = query.attributes?.length ?? 0;
  // A pair's postings drive the read: another term, a key alone, or a filter that had its own index, slices it.
  const onPostings = attributes > 1 || (attributes === 1 && (query.attributes![0]!.value === undefined
    || query.service !== undefined || query.operation !== undefined || query.applicationId !== undefined));
  const sliced = query.urlContains !== undefined || query.minDurationMs !== undefined || query.maxDurationMs !== undefined
    || query.status !== undefined || onPostings;
  return query.limit !== undefined && query.limit <= LIGHT_PAGE && !sliced ? 'light' : 'heavy';
}

export function logReadClass(query: LogQuery): ReadClass {
  // A level or a trace id has its index; an application or a text does not (and a text may take the scan plan).
  const sliced = query.messageContains !== undefined || (query.attributes?.length ?? 0) > 0
    || (query.applicationId !== undefined && query.traceId === undefined);
  return query.limit !== undefined && query.limit <= LIGHT_PAGE && !sliced ? 'light' : 'heavy';
}

/** A metrics read, or a log volume read (its rows are per minute too): up to a day light, longer heavy. */
export function metricsReadClass(query: Pick<MetricsQuery, 'from' | 'to'>): ReadClass {
  return query.to - query.from <= DAY ? 'light' : 'heavy';
}
