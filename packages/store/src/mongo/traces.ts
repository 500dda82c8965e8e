import { toIso } from '@lantern/domain';
import type { Span, TraceRecord } from '@lantern/domain';
import type { Filter, FindCursor } from 'mongodb';
import type { RootSpanQuery, RootSpanRow, TraceQuery } from '../port.js';
import { PROBE_CAP, filterHash, isKeyHash, rarestFirst } from '../attribute-pairs.js';
import { containsText } from '../text.js';
import type { Access } from './access.js';
import type { Collections, SpanDoc, TraceDoc } from './collections.js';
import { spanKey } from './collections.js';
import type { Deadline } from './budget.js';
import { deadlineOf } from './budget.js';
import type { Guard } from './errors.js';
import { chunksOf, containsRegex, keysetFilter, limitOption, remainingOf } from './paging.js';

export interface TraceReader {
  streamTraces(query: TraceQuery): AsyncIterable<TraceRecord>;
  streamRootSpans(query: RootSpanQuery): AsyncIterable<RootSpanRow>;
}

type TraceHead = Pick<TraceDoc, '_id' | 'id' | 'projectId' | 'applicationId' | 'traceId' | 'ts'>
  & Partial<Pick<TraceDoc, 'rootRank' | 'rootTs' | 'rootDurationMs' | 'rootStatus' | 'rootUrl'>>;

const HEAD = { _id: 1, id: 1, projectId: 1, applicationId: 1, traceId: 1, ts: 1 } as const;
/** With the url filter: what finding the root of a record written before `rootUrl` existed takes. */
const HEAD_WITH_ROOT = { ...HEAD, rootRank: 1, rootTs: 1, rootDurationMs: 1, rootStatus: 1, rootUrl: 1 } as const;

/** A status filter: a code, or a class's range. */
function statusFilter(status: NonNullable<TraceQuery['status']>): Filter<TraceDoc>['rootStatus'] {
  return status.min === status.max ? status.min : { $gte: status.min, $lte: status.max };
}

/**
 * The index a read names (`hint`): the attributes' when a `key=value` is among them (a pair's hash bounds it), the operation's, the service's or the failed traces', in the list's order within
 * their key, before the application's and the project's time indexes the planner picks by itself. Named, as the
 * SQLite store does, so that a filter's read never turns into a sort of the project's range.
 */
export function traceHint(query: TraceQuery): string | undefined {
  if (query.traceId !== undefined) return undefined;
  if (query.attributes?.some((a) => a.value !== undefined)) return 'project_attrs_ts';
  if (query.operation !== undefined) return 'project_operation_ts';
  if (query.service !== undefined) return 'project_service_ts';
  if (query.status !== undefined && query.status.min >= 500 && query.status.max <= 599) return 'project_errors_ts';
  return undefined;
}

/** The `attr` terms: the pairs' hashes in `attrs` (indexed), the keys' in `attrKeys`. */
function attributeFilter(attributes: TraceQuery['attributes']): Filter<TraceDoc> {
  const hashes = (attributes ?? []).map(filterHash);
  const pairs = hashes.filter((h) => !isKeyHash(h));
  const keys = hashes.filter(isKeyHash);
  return { ...(pairs.length ? { attrs: { $all: pairs } } : {}), ...(keys.length ? { attrKeys: { $all: keys } } : {}) };
}

function traceFilter(query: TraceQuery): Filter<TraceDoc> {
  const duration = {
    ...(query.minDurationMs === undefined ? {} : { $gte: query.minDurationMs }),
    ...(query.maxDurationMs === undefined ? {} : { $lte: query.maxDurationMs }),
  };
  const filter: Filter<TraceDoc> = {
    projectId: query.projectId,
    ...keysetFilter(query, query.cursor, 'id'),
    ...(query.applicationId === undefined ? {} : { applicationId: query.applicationId }),
    ...(query.traceId === undefined ? {} : { traceId: query.traceId }),
    ...(query.service === undefined ? {} : { rootService: query.service }),
    ...(query.operation === undefined ? {} : { rootOperation: query.operation }),
    ...(Object.keys(duration).length ? { rootDurationMs: duration } : {}),
    ...(query.status === undefined ? {} : { rootStatus: statusFilter(query.status) }),
    // A pair's hash bounds the index (traceHint); the other terms, and the keys alone, are tested on the records.
    ...attributeFilter(query.attributes),
  };
  if (query.urlContains === undefined) return filter;
  // A record written before `rootUrl` existed has a root (rootRank > 0) but no such field: it is a candidate,
  // decided once its spans are read (legacyRootMatches).
  const url: Filter<TraceDoc> = { $or: [{ rootUrl: containsRegex(query.urlContains) }, { rootUrl: { $exists: false }, rootRank: { $gt: 0 } }] };
  return { $and: [filter, url] };
}

const sameNumber = (a: unknown, b: number | null | undefined): boolean =>
  (typeof a === 'number' && Number.isFinite(a) ? a : null) === (b ?? null);

/**
 * The root span of a record stored before `rootUrl` existed: the span its root columns came from, chosen as the
 * SQLite store's migration 3 chooses it: a span without parent (rank 2), or a controller span with a parent at
 * rootTs (rank 1), with the record's duration and status (of several such, the earliest: the spans come ordered
 * by time). Undefined for a record without root.
 */
export function legacyRoot(t: Pick<TraceHead, 'rootRank' | 'rootTs' | 'rootDurationMs' | 'rootStatus'>, spans: Span[]): Span | undefined {
  if (!t.rootRank) return undefined;
  return spans.find((s) => sameNumber(s.durationMs, t.rootDurationMs) && sameNumber(s.responseStatus, t.rootStatus) && (t.rootRank === 2
    ? s.parentSpanId == null
    : s.parentSpanId != null && typeof s.requestMethod === 'string' && s.requestMethod.startsWith('controller:')
      && Date.parse(s.timestamp) === t.rootTs?.getTime()));
}

/** For a record stored before `rootUrl` existed: whether its root span's requestURL contains the text. */
function legacyRootMatches(t: TraceHead, spans: Span[], text: string): boolean {
  const root = legacyRoot(t, spans);
  return root !== undefined && containsText(root.requestURL, text);
}

export function createTraceReader(c: Collections, guard: Guard, access: Access, pageSize: number): TraceReader {
  /** The spans of a page of trace records, in one query on the (traceKey, ts, spanId) index, grouped by record. */
  async function spansOf(records: TraceHead[], deadline: Deadline): Promise<Map<string, Span[]>> {
    const byTrace = new Map<string, Span[]>();
    const spans = c.spans.find({ traceKey: { $in: records.map((r) => r._id) } },
      { sort: { traceKey: 1, ts: 1, spanId: 1 }, projection: { traceKey: 1, data: 1 }, batchSize: 1000, ...deadline.maxTime() });
    for await (const s of spans) {
      let list = byTrace.get(s.traceKey);
      if (list === undefined) byTrace.set(s.traceKey, (list = []));
      list.push(JSON.parse(s.data) as Span);
    }
    return byTrace;
  }

  /** Of these entry-span candidates, those whose parent is stored in their own application: not entries. */
  async function calledFromInside(candidates: SpanDoc[], deadline: Deadline): Promise<Set<string>> {
    const parentKeys = candidates.filter((s) => s.parentSpanId !== null)
      .map((s) => spanKey(s.applicationId, s.traceId, s.parentSpanId!));
    if (parentKeys.length === 0) return new Set();
    const found = await c.spans.find({ _id: { $in: parentKeys } }, { projection: { _id: 1 }, ...deadline.maxTime() }).toArray();
    return new Set(found.map((s) => s._id));
  }

  async function* traceRecords(asked: TraceQuery, deadline: Deadline): AsyncGenerator<TraceRecord> {
    let remaining = remainingOf(asked.limit);
    if (remaining === 0 || (await access.visibleProject(asked.projectId, asked.userId)) === null) return;
    // Several pairs: the rarest one first in `$all`, whose first element bounds the index (its count in the
    // window, up to PROBE_CAP, on that index).
    const window = asked.from === undefined && asked.to === undefined ? {} : { ts: { ...(asked.from === undefined ? {} : { $gte: new Date(asked.from) }), ...(asked.to === undefined ? {} : { $lt: new Date(asked.to) }) } };
    const attributes = await rarestFirst(asked.attributes, (hash) => c.traces.countDocuments({ projectId: asked.projectId, attrs: hash, ...window },
      { limit: PROBE_CAP, hint: 'project_attrs_ts', ...deadline.maxTime() }));
    const query = { ...asked, attributes };
    const text = query.urlContains;
    // With the url filter, records stored before `rootUrl` existed are decided here, so the server cannot count
    // the limit: the reader stops once it has yielded `remaining` records. A rare text is a scan of the project's
    // range (or the window's) until `remaining` records match: `maxTimeMS` bounds it (docs/deploy.md).
    const hint = traceHint(query);
    const cursor = c.traces.find(traceFilter(query), {
      sort: { ts: -1, id: -1 }, batchSize: pageSize, ...(text === undefined ? limitOption(remaining) : {}), ...(hint ? { hint } : {}),
      projection: text === undefined ? HEAD : HEAD_WITH_ROOT, ...deadline.maxTime(),
    });
    for await (const page of chunksOf(cursor as FindCursor<TraceHead>, pageSize)) {
      deadline.check();
      const spans = await spansOf(page, deadline);
      for (const t of page) {
        const telemetry = spans.get(t._id) ?? [];
        if (text !== undefined && t.rootUrl === undefined && !legacyRootMatches(t, telemetry, text)) continue;
        yield {
          id: t.id, projectId: t.projectId, applicationId: t.applicationId, traceId: t.traceId,
          timestamp: toIso(t.ts.getTime()), telemetry,
        };
        if (--remaining === 0) return;
      }
    }
  }

  /**
   * Entry spans: controller spans without parent, or whose parent is not a span of their own application. The
   * parent is looked up when read, not when written: a parent that arrives after its child makes the child an
   * inner span again. Project by project (ascending id), each in ascending time. One driver cursor over the
   * window: each batch continues where the last one ended (no keyset to rebuild, nothing rescanned).
   */
  async function* entrySpans(query: RootSpanQuery, deadline: Deadline): AsyncGenerator<RootSpanRow> {
    const projects = await access.visibleProjects(query.userId, query.projectId);
    if (projects.length === 0) return;
    const filter: Filter<SpanDoc> = {
      projectId: { $in: projects },
      controller: true,
      ts: { $gte: new Date(query.from), $lt: new Date(query.to) },
      ...(query.applicationId === undefined ? {} : { applicationId: query.applicationId }),
    };
    const cursor = c.spans.find(filter, { sort: { projectId: 1, ts: 1, _id: 1 }, batchSize: pageSize, projection: { data: 0 }, ...deadline.maxTime() });
    for await (const page of chunksOf(cursor, pageSize)) {
      deadline.check();
      const inner = await calledFromInside(page, deadline);
      for (const s of page) {
        if (s.parentSpanId !== null && inner.has(spanKey(s.applicationId, s.traceId, s.parentSpanId))) continue;
        yield { projectId: s.projectId, applicationId: s.applicationId, ts: s.ts.getTime(), durationMs: s.durationMs ?? 0, responseStatus: s.status,
          operation: s.operation ?? null };
      }
    }
  }

  // A read's budget counts from the call (budget.ts), though its first query waits for the first `next()`.
  return {
    streamTraces: (query) => {
      const deadline = deadlineOf(query.budgetMs, Date.now, query.signal);
      return guard.stream(() => traceRecords(query, deadline), { budgetMs: deadline.budgetMs });
    },
    streamRootSpans: (query) => {
      const deadline = deadlineOf(query.budgetMs, Date.now, query.signal);
      return guard.stream(() => entrySpans(query, deadline), { budgetMs: deadline.budgetMs });
    },
  };
}
