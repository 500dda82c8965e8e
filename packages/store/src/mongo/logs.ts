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

/**
 * The `q` filter. A log written with `grams` is a candidate when they hold every trigram of the text (ASCII capitals
 * lowered on both sides): the (projectId, grams, ts, _id) index serves one of them as an equality, newest first,
 * and the regex on `message` then decides, literally. A text under 3 characters has no trigram: the regex alone.
 * Logs written before `grams` existed are all candidates, decided by the reader (without `message` either, on
 * `data`). The cursor's `$or` is in the other conditions, hence the `$and` around this one.
 */
function messageFilter(text: string): Filter<LogDoc> {
  const regex = containsRegex(text);
  const grams = searchTrigrams(asciiLower(text), MAX_TRIGRAMS);
  if (grams.length === 0) return { $or: [{ message: regex }, { grams: { $exists: false } }] };
  return { $or: [{ grams: { $all: grams }, message: regex }, { grams: { $exists: false } }] };
}

/**
 * Logs newest first, streamed from one driver cursor. Over several projects the filter is `projectId: {$in}`,
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
      const textFilter = text === undefined ? undefined : messageFilter(text);
      const cursor = c.logs.find(textFilter ? { $and: [filter, textFilter] } : filter,
        { sort: { ts: -1, _id: -1 }, batchSize: pageSize, ...(text === undefined ? limitOption(remaining) : {}) });
      try {
        for await (const doc of cursor) {
          const log = toLog(doc);
          // A log written before `grams` existed came without the text test: it is decided here, on `message`
          // or, older still, on `data` (so the server cannot count the limit).
          if (text !== undefined && doc.grams === undefined && !containsText(doc.message === undefined ? log.message : doc.message, text)) continue;
          yield log;
          if (--remaining === 0) return;
        }
      } finally {
        await cursor.close();
      }
    }),
  };
}
