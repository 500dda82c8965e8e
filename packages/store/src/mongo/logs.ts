import type { LogEntry } from '@lantern/domain';
import type { Filter } from 'mongodb';
import { levelsOf } from '../port.js';
import type { Cursor, LogQuery } from '../port.js';
import { containsText } from '../text.js';
import type { Access } from './access.js';
import type { Collections, LogDoc } from './collections.js';
import type { Deadline } from './budget.js';
import { deadlineOf } from './budget.js';
import type { Guard } from './errors.js';
import { searchGramsOf, searchPage } from './log-search.js';
import { filterHash, isKeyHash } from '../attribute-pairs.js';
import { chunksOf, containsRegex, keysetFilter, limitOption, remainingOf } from './paging.js';

export interface LogReader {
  streamLogs(query: LogQuery): AsyncIterable<LogEntry>;
}

function toLog(doc: LogDoc): LogEntry {
  return { id: doc._id, projectId: doc.projectId, applicationId: doc.applicationId, ...(JSON.parse(doc.data) as object) } as LogEntry;
}

/**
 * Logs newest first, streamed from driver cursors. Over several projects the filter is `projectId: {$in}`, and
 * the server merges the (projectId, ts, _id) index ranges of those projects in order: no query sorts a project's
 * logs in memory. A text of 3+ characters is searched page by page through the postings (log-search.ts), unless
 * the read is a trace's or the database's older logs are not all marked yet; a shorter one is the regex on `message` down the time index, logs without `message`
 * (written before the field existed) tested here on `data`.
 */
export function createLogReader(c: Collections, guard: Guard, access: Access, pageSize: number, postingsComplete: () => boolean = () => true): LogReader {
  async function* logs(query: LogQuery, deadline: Deadline): AsyncGenerator<LogEntry> {
    let remaining = remainingOf(query.limit);
    if (remaining === 0) return;
    const projects = await access.visibleProjects(query.userId, query.projectId);
    if (projects.length === 0) return;
    const text = query.messageContains;
    const levels = levelsOf(query);
    const hashes = (query.attributes ?? []).map(filterHash);
    const pairs = hashes.filter((h) => !isKeyHash(h));
    const base = (after: Cursor | undefined): Filter<LogDoc> => ({
      projectId: projects.length === 1 ? projects[0]! : { $in: projects },
      ...keysetFilter(query, after, '_id'),
      ...(query.applicationId === undefined ? {} : { applicationId: query.applicationId }),
      ...(query.traceId === undefined ? {} : { traceId: query.traceId }),
      ...(levels === undefined ? {} : { level: levels.length === 1 ? levels[0]! : { $in: levels } }),
      // Every attribute term on the log's own hashes (a log written before `attrs` existed has none).
      ...(hashes.length === 0 ? {} : { attrs: { $all: hashes } }),
    });
    const test = (doc: LogDoc, log: LogEntry): boolean => text === undefined
      || containsText(doc.message === undefined ? log.message : doc.message, text);

    // A trace's logs are few: its index and the regex serve a text better than the postings.
    // Until this process knows every log is numbered or pending (log-indexer.ts markLegacyLogs), the regex down the
    // time index: logs written before the postings are in neither read of the search.
    const grams = text === undefined || query.traceId !== undefined || !postingsComplete() ? [] : searchGramsOf(text);
    // A key-value attribute is a posting key too (log-postings.ts attributeKey): it narrows the search as a text does.
    const byPairs = pairs.length > 0 && query.traceId === undefined && postingsComplete();
    if ((text !== undefined && grams.length > 0) || byPairs) {
      // One level narrows the postings by its key; several are tested in `base` on the candidates.
      const scope = { projects, base, from: query.from, to: query.to, level: levels?.length === 1 ? levels[0] : undefined };
      let after = query.cursor;
      for (;;) {
        deadline.check();
        const page = await searchPage(c, scope, text, grams, after, Math.min(pageSize, remaining), deadline, hashes);
        for (const { doc, tested } of page.found) {
          const log = toLog(doc);
          if (!tested && !test(doc, log)) continue;
          yield log;
          if (--remaining === 0) return;
        }
        if (page.next === undefined) return;
        after = page.next;
      }
    }

    const filter: Filter<LogDoc> = text === undefined ? base(query.cursor)
      : { $and: [base(query.cursor), { $or: [{ message: containsRegex(text) }, { message: { $exists: false } }] }] };
    const cursor = c.logs.find(filter, { sort: { ts: -1, _id: -1 }, batchSize: pageSize, ...(text === undefined ? limitOption(remaining) : {}), ...deadline.maxTime() });
    for await (const page of chunksOf(cursor, pageSize)) {
      deadline.check();
      for (const doc of page) {
        const log = toLog(doc);
        if (!test(doc, log)) continue;
        yield log;
        if (--remaining === 0) return;
      }
    }
  }

  // A read's budget counts from the call (budget.ts), though its first query waits for the first `next()`.
  return {
    streamLogs: (query) => {
      const deadline = deadlineOf(query.budgetMs, Date.now, query.signal);
      return guard.stream(() => logs(query, deadline), { budgetMs: deadline.budgetMs });
    },
  };
}
