/**
 * The traces list's data: one row per trace, joined from the trace records the API pages out (one record per
 * application a trace crossed), and the list's filters as kept in the hash. Pure: unit-tested.
 */
import type { TraceFilter } from '../api/client';
import type { Span, TraceRecord } from '../api/types';
import { spanType } from './format';
import { parseRange, rangeParams, resolveRange, type TimeRange } from './time-range';

/** The root span of one record: its span without parent, else its first controller span, else its first span. */
export function rootSpan(record: TraceRecord): Span | undefined {
  const spans = record.telemetry ?? [];
  return spans.find((s) => !s.parentSpanId) ?? spans.find((s) => spanType(s.requestMethod ?? '') === 'controller') ?? spans[0];
}

export interface TraceSummary {
  traceId: string;
  /** Earliest record timestamp, epoch ms. */
  startMs: number;
  root: Span | undefined;
  /** Application of the root span's record. */
  applicationId: number;
  /** Every application whose record of the trace was loaded. */
  applicationIds: number[];
  spanCount: number;
  durationMs: number | undefined;
  status: number | undefined;
  records: TraceRecord[];
}

export interface TraceList {
  rows: TraceSummary[];
  index: ReadonlyMap<string, number>;
}

export const EMPTY_TRACE_LIST: TraceList = { rows: [], index: new Map() };

function summarise(traceId: string, records: TraceRecord[]): TraceSummary {
  // The trace's entry: the earliest record holding a span without parent, else the earliest record.
  const t = (r: TraceRecord) => Date.parse(r.timestamp);
  let main = records[0]!;
  for (const r of records) {
    const entry = !rootSpan(r)?.parentSpanId;
    const mainEntry = !rootSpan(main)?.parentSpanId;
    if ((entry && !mainEntry) || (entry === mainEntry && t(r) < t(main))) main = r;
  }
  const root = rootSpan(main);
  let startMs = Infinity;
  let spanCount = 0;
  for (const r of records) {
    if (t(r) < startMs) startMs = t(r);
    spanCount += r.telemetry?.length ?? 0;
  }
  return {
    traceId, startMs: Number.isFinite(startMs) ? startMs : 0, root, applicationId: main.applicationId,
    applicationIds: [...new Set(records.map((r) => r.applicationId))], spanCount,
    durationMs: typeof root?.durationMs === 'number' ? root.durationMs : undefined,
    status: typeof root?.responseStatus === 'number' ? root.responseStatus : undefined, records,
  };
}

/** Adds a page of records to the list: a record of a trace already listed joins its row, in place; the
 * rows before are kept as they are (the list never reorders under the reader). */
export function addTraceRecords(list: TraceList, records: readonly TraceRecord[]): TraceList {
  if (!records.length) return list;
  const rows = list.rows.slice();
  const index = new Map(list.index);
  const pending = new Map<number, TraceRecord[]>();
  for (const rec of records) {
    const id = String(rec.traceId).toLowerCase();
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

// ---- filters in the hash --------------------------------------------------------------------------------------

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

/**
 * The list's view as kept in the hash, so a link reproduces it:
 * `#/traces?range=1h&applicationId=3&status=5xx&minDurationMs=200&url=/cart` (`applicationId=all`: every one).
 */
export interface TraceListParams {
  range: TimeRange;
  applicationId: number | undefined;
  status: string;
  minDurationMs: number | undefined;
  url: string;
}

const wholeNumber = (v: string | null): number | undefined => {
  const n = Number(v);
  return v && Number.isInteger(n) && n >= 0 ? n : undefined;
};

/** `fallbackApplicationId` (the workspace's application) applies when the hash names none; `all` clears it. */
export function parseTraceParams(params: URLSearchParams, fallbackApplicationId?: number): TraceListParams {
  const status = params.get('status') ?? '';
  const app = params.get('applicationId');
  return {
    range: parseRange(params, 'all'),
    applicationId: app === 'all' ? undefined : wholeNumber(app) ?? fallbackApplicationId,
    status: (STATUS_CLASSES as readonly string[]).includes(status) || /^[1-5]\d\d$/.test(status) ? status : '',
    minDurationMs: wholeNumber(params.get('minDurationMs')) || undefined,
    url: (params.get('url') ?? '').trim(),
  };
}

/** The hash params that reproduce `p`. */
export function traceParamsToHash(p: TraceListParams): Record<string, string | number | undefined> {
  return {
    ...rangeParams(p.range),
    applicationId: p.applicationId ?? 'all',
    status: p.status || undefined,
    minDurationMs: p.minDurationMs,
    url: p.url || undefined,
  };
}

/** The API filter of `p`, a relative time range ending `now`. */
export function toTraceFilter(p: TraceListParams, now: number): TraceFilter {
  const f: TraceFilter = { ...resolveRange(p.range, now) };
  if (p.applicationId !== undefined) f.applicationId = p.applicationId;
  if (p.status) f.status = p.status;
  if (p.minDurationMs) f.minDurationMs = p.minDurationMs;
  if (p.url) f.url = p.url;
  return f;
}

/** Whether any filter narrows the list (so an empty answer means "nothing matches", not "no traces yet"). */
export function isFiltered(p: TraceListParams): boolean {
  return p.range.name !== 'all' || p.applicationId !== undefined || Boolean(p.status) || Boolean(p.minDurationMs) || Boolean(p.url);
}
