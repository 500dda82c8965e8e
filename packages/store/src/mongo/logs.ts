import type { LogEntry } from '@lantern/domain';
import type { Filter } from 'mongodb';
import type { LogQuery } from '../port.js';
import { asciiLower, containsText } from '../text.js';
import { searchTrigrams } from '../trigrams.js';
import type { Access } from './access.js';
import type { Collections, LogDoc } from './collections.js';
import type { Guard } from './errors.js';
import { afterCursor, containsRegex, limitOption, remainingOf, windowFilter } from './paging.js';

export interface LogReader {
  streamLogs(query: LogQuery): AsyncIterable<LogEntry>;
}

function toLog(doc: LogDoc): LogEntry {
  return { id: doc._id, projectId: doc.projectId, applicationId: doc.applicationId, ...(JSON.parse(doc.data) as object) } as LogEntry;
}

/** The most trigrams of a text in the filter (searchTrigrams). */
const MAX_TRIGRAMS = 8;

/** One newest-first read of the logs a text filter selects; `decide`: its documents still need the text test. */
interface TextSource {
  filter: Filter<LogDoc>;
  hint?: string;
  decide: boolean;
}

/**
 * The `q` filter, as reads that each come newest first, merged (mergeNewestFirst, which drops a log found twice).
 * With 3+ characters:
 * - logs with `grams` holding every trigram of the text (ASCII capitals lowered on both sides) and matching the
 *   literal regex on `message`: the (projectId, grams, ts, _id) index serves one trigram as an equality;
 * - logs flagged `gramsPending` (not indexed yet, or indexed within SETTLE_MS: log-indexer.ts) matching the regex,
 *   down their partial index, named: left to itself the planner took the whole project's time index for them,
 *   since the newest logs, pending, fill its first batch;
 * - logs without `grams`, at the null key of the trigram index, named: those written before the field existed
 *   (without `message` either: tested on `data` here), whether marked pending yet or not.
 * A text under 3 characters has no trigram: one read, the regex on `message`, and logs without it decided here.
 * Separate reads, not an `$or`, so that no plan choice can turn a rare text into a scan.
 */
function textSources(base: Filter<LogDoc>, text: string): TextSource[] {
  const regex = containsRegex(text);
  const grams = searchTrigrams(asciiLower(text), MAX_TRIGRAMS);
  const orUnknown: Filter<LogDoc> = { $or: [{ message: regex }, { message: { $exists: false } }] };
  if (grams.length === 0) return [{ filter: { $and: [base, orUnknown] }, decide: true }];
  return [
    { filter: { $and: [base, { grams: { $all: grams }, message: regex }] }, decide: false },
    { filter: { $and: [base, { gramsPending: { $exists: true }, message: regex }] }, hint: 'project_pending_ts', decide: false },
    { filter: { $and: [base, { grams: { $exists: false } }, orUnknown] }, hint: 'project_grams_ts', decide: true },
  ];
}

/** A document and whether its read tested the text on the server. */
interface Found {
  doc: LogDoc;
  tested: boolean;
}

/** Newer first: later `ts`, then larger `_id` (the order of every read here). */
const newer = (a: LogDoc, b: LogDoc): boolean => a.ts.getTime() > b.ts.getTime() || (a.ts.getTime() === b.ts.getTime() && a._id > b._id);

async function* found(cursor: AsyncIterable<LogDoc>, tested: boolean): AsyncGenerator<Found> {
  for await (const doc of cursor) yield { doc, tested };
}

/** Several newest-first streams as one, newest first. */
async function* mergeNewestFirst(streams: AsyncIterator<Found>[]): AsyncGenerator<Found> {
  const heads = await Promise.all(streams.map((s) => s.next()));
  let last: string | undefined;
  for (;;) {
    let best: number | undefined;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i]!;
      if (!head.done && (best === undefined || newer(head.value.doc, (heads[best] as IteratorYieldResult<Found>).value.doc))) best = i;
    }
    if (best === undefined) return;
    const next = (heads[best] as IteratorYieldResult<Found>).value;
    // The same log in two ranges (flagged and indexed, or flagged and without grams) comes twice in a row.
    if (next.doc._id !== last) yield next;
    last = next.doc._id;
    heads[best] = await streams[best]!.next();
  }
}

/**
 * Logs newest first, streamed from driver cursors. Over several projects the filter is `projectId: {$in}`,
 * and the server merges the (projectId, ts, _id) index ranges of those projects in order: no query sorts a
 * project's logs in memory.
 */
export function createLogReader(c: Collections, guard: Guard, access: Access, pageSize: number): LogReader {
  return {
    streamLogs: (query) => guard.stream(async function* () {
      let remaining = remainingOf(query.limit);
      if (remaining === 0) return;
      const projects = await access.visibleProjects(query.userId, query.projectId);
      if (projects.length === 0) return;
      const text = query.messageContains;
      const filter: Filter<LogDoc> = {
        projectId: projects.length === 1 ? projects[0]! : { $in: projects },
        ...windowFilter(query),
        ...(query.applicationId === undefined ? {} : { applicationId: query.applicationId }),
        ...(query.traceId === undefined ? {} : { traceId: query.traceId }),
        ...(query.level === undefined ? {} : { level: query.level }),
        ...afterCursor(query.cursor, '_id'),
      };
      const sources: TextSource[] = text === undefined ? [{ filter, decide: false }] : textSources(filter, text);
      const cursors = sources.map((source) => c.logs.find(source.filter, {
        sort: { ts: -1, _id: -1 }, batchSize: pageSize, ...(source.hint ? { hint: source.hint } : {}),
        ...(source.decide ? {} : limitOption(remaining)),
      }));
      try {
        for await (const { doc, tested } of mergeNewestFirst(cursors.map((cursor, i) => found(cursor, !sources[i]!.decide)))) {
          const log = toLog(doc);
          // A document of a read that could not test the text itself: on `message` or, older still, on `data`.
          if (text !== undefined && !tested && !containsText(doc.message === undefined ? log.message : doc.message, text)) continue;
          yield log;
          if (--remaining === 0) return;
        }
      } finally {
        await Promise.all(cursors.map((cursor) => cursor.close()));
      }
    }),
  };
}
