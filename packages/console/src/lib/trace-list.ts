/**
 * The traces list's data: one row per trace, joined from the trace records the API pages out (one record per
 * application a trace crossed), and the list's filters as kept in the hash. Pure: unit-tested.
 */
import type { TraceFilter } from '../api/client';
import type { Span, TraceRecord } from '../api/types';
import { attributeTerms } from './attribute-terms';
import { spanType } from './format';
import { spanLabel } from './otel-span';
import { DEFAULT_RANGE, parseRange, rangeParams, resolveRange, type TimeRange } from './time-range';

/** The root span of one record: its span without parent, else its first controller span, else its first span. */
export function rootSpan(record: TraceRecord): Span | undefined {
  const spans = record.telemetry ?? [];
  return spans.find((s) => !s.parentSpanId) ?? spans.find((s) => spanType(s.requestMethod ?? '') === 'controller') ?? spans[0];
}

/** What the list shows of a record's root span: a few fields, never the span itself (its extra fields can be large). */
export interface RootSpanSummary {
  spanId: string;
  /** Set when the record's root has a parent in another application's record (the record is not the entry). */
  parentSpanId: string | undefined;
  requestMethod: string;
  requestURL: string | undefined;
  durationMs: number | undefined;
  responseStatus: number | undefined;
  /** The root span's service.name (an OpenTelemetry span's resource); a Lantern SDK span has none. */
  serviceName: string | undefined;
  /** The root span's operation, as the trace filter names it (lib/otel-span.ts spanLabel). */
  operation: string | undefined;
}

/**
 * One trace record as the list keeps it: what the table and the chart show, without its telemetry. A page of 100
 * records of thousands of spans each is tens of MB as parsed JSON, and the list keeps every page it loads, so each
 * record is summarised once, when its page arrives, and the page itself is let go.
 */
export interface RecordSummary {
  id: string;
  traceId: string;
  applicationId: number;
  /** The record's timestamp, epoch ms (NaN when unreadable). */
  timestampMs: number;
  spanCount: number;
  root: RootSpanSummary | undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function summariseRecord(record: TraceRecord): RecordSummary {
  const root = rootSpan(record);
  return {
    id: String(record.id),
    traceId: String(record.traceId).toLowerCase(),
    applicationId: record.applicationId,
    timestampMs: Date.parse(record.timestamp),
    spanCount: record.telemetry?.length ?? 0,
    root: root && {
      spanId: String(root.spanId ?? ''),
      parentSpanId: str(root.parentSpanId) || undefined,
      requestMethod: str(root.requestMethod) ?? '',
      requestURL: str(root.requestURL),
      durationMs: num(root.durationMs),
      responseStatus: num(root.responseStatus),
      serviceName: str(root.serviceName) || undefined,
      operation: spanLabel(root) || undefined,
    },
  };
}

export interface TraceSummary {
  traceId: string;
  /** Earliest record timestamp, epoch ms. */
  startMs: number;
  root: RootSpanSummary | undefined;
  /** Application of the root span's record. */
  applicationId: number;
  /** Every application whose record of the trace was loaded. */
  applicationIds: number[];
  spanCount: number;
  durationMs: number | undefined;
  status: number | undefined;
  /** The trace's records loaded so far, one per record id, summarised (no telemetry). */
  records: RecordSummary[];
}

export interface TraceList {
  rows: TraceSummary[];
  index: ReadonlyMap<string, number>;
}

export const EMPTY_TRACE_LIST: TraceList = { rows: [], index: new Map() };

function summarise(traceId: string, records: RecordSummary[]): TraceSummary {
  // The trace's entry: the earliest record holding a span without parent, else the earliest record.
  let main = records[0]!;
  for (const r of records) {
    const entry = !r.root?.parentSpanId;
    const mainEntry = !main.root?.parentSpanId;
    if ((entry && !mainEntry) || (entry === mainEntry && r.timestampMs < main.timestampMs)) main = r;
  }
  const root = main.root;
  let startMs = Infinity;
  let spanCount = 0;
  for (const r of records) {
    if (r.timestampMs < startMs) startMs = r.timestampMs;
    spanCount += r.spanCount;
  }
  return {
    traceId, startMs: Number.isFinite(startMs) ? startMs : 0, root, applicationId: main.applicationId,
    applicationIds: [...new Set(records.map((r) => r.applicationId))], spanCount,
    durationMs: root?.durationMs, status: root?.responseStatus, records,
  };
}

/** Adds a page of summarised records to the list: a record of a trace already listed joins its row, in place (a
 * record already there, by id, is left out); the rows before are kept as they are (the list never reorders under
 * the reader). */
export function addRecordSummaries(list: TraceList, records: readonly RecordSummary[]): TraceList {
  if (!records.length) return list;
  const rows = list.rows.slice();
  const index = new Map(list.index);
  const pending = new Map<number, RecordSummary[]>();
  for (const rec of records) {
    const id = rec.traceId;
    const at = index.get(id);
    if (at === undefined) {
      index.set(id, rows.length);
      pending.set(rows.length, [rec]);
      rows.push(summarise(id, [rec]));
      continue;
    }
    let recs = pending.get(at);
    if (!recs) pending.set(at, (recs = rows[at]!.records.slice()));
    if (!recs.some((r) => r.id === rec.id)) recs.push(rec);
  }
  // only rows that gained a record are summarised again
  for (const [at, recs] of pending) if (recs.length !== rows[at]!.records.length) rows[at] = summarise(rows[at]!.traceId, recs);
  return { rows, index };
}

/** addRecordSummaries of a page as the API answers it. */
export function addTraceRecords(list: TraceList, records: readonly TraceRecord[]): TraceList {
  return addRecordSummaries(list, records.map(summariseRecord));
}

// ---- filters in the hash --------------------------------------------------------------------------------------

/** The status classes: the list's status filter choices and the latency chart's legend. */
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

/**
 * The list's view as kept in the hash, so a link reproduces it:
 * `#/traces?range=1h&applicationId=3&status=5xx&minDurationMs=200&url=/cart&service=checkout&sort=duration`
 * (`applicationId=all`: every one).
 */
export interface TraceListParams {
  range: TimeRange;
  applicationId: number | undefined;
  status: string;
  minDurationMs: number | undefined;
  maxDurationMs: number | undefined;
  url: string;
  service: string;
  operation: string;
  /** Attribute terms (`key=value`, or `key`: present), all of them holding (lib/attribute-terms.ts). */
  attrs: string[];
  /** The order of the loaded rows: newest first (the API's), or by a column (lib/trace-sort.ts). */
  sort: TraceSort;
}

export const TRACE_SORTS = ['newest', 'oldest', 'slowest', 'fastest', 'most-spans', 'status'] as const;
export type TraceSort = (typeof TRACE_SORTS)[number];

const wholeNumber = (v: string | null): number | undefined => {
  const n = Number(v);
  return v && Number.isInteger(n) && n >= 0 ? n : undefined;
};

/** `fallbackApplicationId` (the workspace's application) applies when the hash names none; `all` clears it. */
export function parseTraceParams(params: URLSearchParams, fallbackApplicationId?: number): TraceListParams {
  const status = params.get('status') ?? '';
  const app = params.get('applicationId');
  const sort = params.get('sort');
  const name = (key: string) => (params.get(key) ?? '').trim().slice(0, 200);
  return {
    range: parseRange(params, DEFAULT_RANGE),
    applicationId: app === 'all' ? undefined : wholeNumber(app) ?? fallbackApplicationId,
    status: (STATUS_CLASSES as readonly string[]).includes(status) || /^[1-5]\d\d$/.test(status) ? status : '',
    minDurationMs: wholeNumber(params.get('minDurationMs')) || undefined,
    maxDurationMs: wholeNumber(params.get('maxDurationMs')),
    url: (params.get('url') ?? '').trim(),
    service: name('service'),
    operation: name('operation'),
    attrs: attributeTerms(params.getAll('attr')),
    sort: (TRACE_SORTS as readonly string[]).includes(sort ?? '') ? sort as TraceSort : 'newest',
  };
}

/** The hash params that reproduce `p`. */
export function traceParamsToHash(p: TraceListParams): Record<string, string | number | undefined | readonly string[]> {
  return {
    ...rangeParams(p.range),
    applicationId: p.applicationId ?? 'all',
    status: p.status || undefined,
    minDurationMs: p.minDurationMs,
    maxDurationMs: p.maxDurationMs,
    url: p.url || undefined,
    service: p.service || undefined,
    operation: p.operation || undefined,
    attr: p.attrs,
    sort: p.sort === 'newest' ? undefined : p.sort,
  };
}

/** The API filter of `p`, a relative time range ending `now`. */
export function toTraceFilter(p: TraceListParams, now: number): TraceFilter {
  const f: TraceFilter = { ...resolveRange(p.range, now) };
  if (p.applicationId !== undefined) f.applicationId = p.applicationId;
  if (p.status) f.status = p.status;
  if (p.minDurationMs) f.minDurationMs = p.minDurationMs;
  if (p.maxDurationMs !== undefined) f.maxDurationMs = p.maxDurationMs;
  if (p.url) f.url = p.url;
  if (p.service) f.service = p.service;
  if (p.operation) f.operation = p.operation;
  if (p.attrs.length) f.attr = p.attrs;
  return f;
}

/** Whether any filter besides the time range narrows the list. */
export function isFiltered(p: TraceListParams): boolean {
  return p.applicationId !== undefined || Boolean(p.status) || Boolean(p.minDurationMs) || p.maxDurationMs !== undefined
    || Boolean(p.url) || Boolean(p.service) || Boolean(p.operation) || p.attrs.length > 0;
}

/** The list's params with every filter cleared, the time range and the order kept. */
export function clearedFilters(p: TraceListParams): TraceListParams {
  return { range: p.range, applicationId: undefined, status: '', minDurationMs: undefined, maxDurationMs: undefined, url: '', service: '', operation: '', attrs: [], sort: p.sort };
}

/** Whether going from `a` to `b` changed only what is typed (texts, durations): a burst of typing. */
export function onlyTyped(a: TraceListParams, b: TraceListParams): boolean {
  const typed = (p: TraceListParams) => [p.url, p.minDurationMs, p.maxDurationMs, p.service, p.operation];
  return JSON.stringify(a.range) === JSON.stringify(b.range) && a.applicationId === b.applicationId && a.status === b.status
    && a.sort === b.sort && JSON.stringify(typed(a)) !== JSON.stringify(typed(b));
}

/** The distinct services and operations of the rows' roots, sorted: what the filter fields suggest. */
export function rootNames(rows: readonly TraceSummary[]): { services: string[]; operations: string[] } {
  const services = new Set<string>();
  const operations = new Set<string>();
  for (const r of rows) {
    if (r.root?.serviceName) services.add(r.root.serviceName);
    if (r.root?.operation) operations.add(r.root.operation);
  }
  return { services: [...services].sort(), operations: [...operations].sort() };
}
