import type { LogEntry } from '@lantern/domain';
import type { Filter } from 'mongodb';
import type { LogQuery } from '../port.js';
import { containsText } from '../text.js';
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
      // A log written before `message` existed has no such field: a candidate, decided on its `data` here (so the
      // server cannot count the limit). The cursor's `$or` is in `filter`, hence the `$and`.
      const textFilter: Filter<LogDoc> | undefined = text === undefined ? undefined
        : { $or: [{ message: containsRegex(text) }, { message: { $exists: false } }] };
      const cursor = c.logs.find(textFilter ? { $and: [filter, textFilter] } : filter,
        { sort: { ts: -1, _id: -1 }, batchSize: pageSize, ...(text === undefined ? limitOption(remaining) : {}) });
      try {
        for await (const doc of cursor) {
          const log = toLog(doc);
          if (text !== undefined && doc.message === undefined && !containsText(log.message, text)) continue;
          yield log;
          if (--remaining === 0) return;
        }
      } finally {
        await cursor.close();
      }
    }),
  };
}
