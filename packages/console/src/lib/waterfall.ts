/**
 * Layout of one trace's waterfall from its trace records (one per application the trace crossed), joined.
 * Pure: no DOM, no React. O(n log n) in the number of spans, iterative (explicit stacks), so a 10,000-span
 * trace or a 10,000-deep chain of spans lays out without recursion.
 *
 * - Spans nest by `parentSpanId`; siblings are ordered by (clock-skew adjusted) start time.
 * - A span whose parent is not in the trace is shown at top level, flagged `orphan`.
 * - A cycle of parent links is broken at one of its spans, shown at top level and flagged `cycle`.
 * - A repeated `spanId` is laid out once (the first seen); the others are counted in `duplicateCount`.
 * - Clock skew: a child span of another application than its parent that starts before the parent or ends after
 *   it by more than SKEW_TOLERANCE_MS is moved, with its subtree, into the parent (Jaeger-style): centred when it
 *   fits, else at the parent's start. The row records its own adjustment (`skewMs`) and the total shift it was drawn with (`shiftMs`).
 * - A span is an error when its status is 5xx, it has an `error` field, or its OpenTelemetry status is ERROR.
 */
import type { Span, TraceRecord } from '../api/types';
import { spanType } from './format';
import { hasErrorStatus } from './otel-span';

export type SpanKind = 'controller' | 'service' | 'external' | 'other';

export interface WaterfallRow {
  span: Span;
  spanId: string;
  /** Parent as drawn; undefined for a top-level row (root, orphan, or a broken cycle). */
  parentSpanId: string | undefined;
  applicationId: number;
  /** Position in `layout.rows` (pre-order). */
  index: number;
  depth: number;
  kind: SpanKind;
  /** The word before `:` in requestMethod, as sent (`db`, `queue`...), even when `kind` is `other`. */
  type: string;
  error: boolean;
  orphan: boolean;
  cycle: boolean;
  /** Start, adjusted for clock skew, in epoch ms. */
  startMs: number;
  /** From the trace's start to this span's (adjusted) start. */
  offsetMs: number;
  durationMs: number;
  /** Adjustment made at this span (0 when it was not moved relative to its parent). */
  skewMs: number;
  /** Total shift applied to this span: its own adjustment plus its ancestors'. */
  shiftMs: number;
  childCount: number;
  /** Index just past this row's last descendant in `layout.rows`. */
  subtreeEnd: number;
}

export interface WaterfallLayout {
  rows: WaterfallRow[];
  /** Earliest adjusted start (epoch ms); 0 for an empty trace. */
  startMs: number;
  endMs: number;
  /** endMs - startMs. */
  totalMs: number;
  spanCount: number;
  duplicateCount: number;
  orphanCount: number;
  cycleCount: number;
  skewedCount: number;
}

interface Node {
  span: Span;
  id: string;
  parentId: string | undefined;
  applicationId: number;
  order: number;
  rawStart: number;
  durationMs: number;
  parent: Node | undefined;
  children: Node[];
  orphan: boolean;
  cycle: boolean;
  visited: boolean;
  shift: number;
  skew: number;
  depth: number;
}

const KINDS = new Set(['controller', 'service', 'external']);

export function spanKind(requestMethod: string): SpanKind {
  const t = spanType(requestMethod);
  return KINDS.has(t) ? (t as SpanKind) : 'other';
}

/** Status 5xx, an `error` field, or an OpenTelemetry status of ERROR. */
export function isErrorSpan(span: Span): boolean {
  return (typeof span.responseStatus === 'number' && span.responseStatus >= 500) || Boolean(span.error) || hasErrorStatus(span);
}

function collect(records: readonly TraceRecord[]): { nodes: Node[]; duplicates: number } {
  const seen = new Set<string>();
  const nodes: Node[] = [];
  let duplicates = 0;
  for (const record of records) {
    for (const span of record.telemetry ?? []) {
      const id = String(span.spanId ?? '').toLowerCase();
      if (seen.has(id)) { duplicates += 1; continue; }
      seen.add(id);
      const parentId = span.parentSpanId ? String(span.parentSpanId).toLowerCase() : undefined;
      const d = Number(span.durationMs);
      nodes.push({
        span, id, parentId, applicationId: record.applicationId, order: nodes.length,
        rawStart: Date.parse(span.timestamp), durationMs: Number.isFinite(d) && d > 0 ? d : 0,
        parent: undefined, children: [], orphan: false, cycle: false, visited: false, shift: 0, skew: 0, depth: 0,
      });
    }
  }
  // A span without a readable timestamp is drawn at the trace's earliest known start.
  let earliest = Infinity;
  for (const n of nodes) if (Number.isFinite(n.rawStart) && n.rawStart < earliest) earliest = n.rawStart;
  for (const n of nodes) if (!Number.isFinite(n.rawStart)) n.rawStart = Number.isFinite(earliest) ? earliest : 0;
  return { nodes, duplicates };
}

/**
 * How far (ms) a child of another application may lie outside its parent and be drawn where its own clock puts
 * it: timestamps and durations are whole milliseconds taken on two hosts, so an overhang of a few is noise, not
 * skew (on a demo machine a third of the traces were "adjusted" for 1-2 ms).
 */
export const SKEW_TOLERANCE_MS = 5;

/**
 * Jaeger-style: where a child of another application's span must move to lie within it; 0 when it already does,
 * or lies outside by at most SKEW_TOLERANCE_MS at either end.
 */
export function skewAdjustment(parentStart: number, parentDuration: number, childStart: number, childDuration: number): number {
  const parentEnd = parentStart + parentDuration;
  const overhang = Math.max(parentStart - childStart, childStart + childDuration - parentEnd, 0);
  if (overhang <= SKEW_TOLERANCE_MS) return 0;
  const target = childDuration <= parentDuration ? parentStart + (parentDuration - childDuration) / 2 : parentStart;
  return target - childStart;
}

const byStart = (a: Node, b: Node) => (a.rawStart + a.shift) - (b.rawStart + b.shift) || a.order - b.order;

export function layoutTrace(records: readonly TraceRecord[]): WaterfallLayout {
  const { nodes, duplicates } = collect(records);
  const byId = new Map<string, Node>();
  for (const n of nodes) byId.set(n.id, n);
  for (const n of nodes) {
    if (n.parentId === undefined) continue;
    const p = byId.get(n.parentId);
    if (!p) n.orphan = true;
    else if (p === n) n.cycle = true;
    else { n.parent = p; p.children.push(n); }
  }

  const rows: WaterfallRow[] = [];
  const stack: Node[] = [];
  // Pre-order walk from `top`; children's skew is settled before they are ordered, so the order is the drawn one.
  const walk = (top: Node) => {
    stack.push(top);
    while (stack.length) {
      const n = stack.pop()!;
      const start = n.rawStart + n.shift;
      rows.push({
        span: n.span, spanId: n.id, parentSpanId: n.parent?.id, applicationId: n.applicationId,
        index: rows.length, depth: n.depth, kind: spanKind(n.span.requestMethod ?? ''), type: spanType(n.span.requestMethod ?? ''),
        error: isErrorSpan(n.span), orphan: n.orphan, cycle: n.cycle, startMs: start, offsetMs: 0, durationMs: n.durationMs,
        skewMs: n.skew, shiftMs: n.shift, childCount: 0, subtreeEnd: 0,
      });
      const kids = n.children.filter((c) => !c.visited);
      for (const c of kids) {
        c.visited = true;
        c.depth = n.depth + 1;
        c.shift = n.shift;
        if (c.applicationId !== n.applicationId) {
          c.skew = skewAdjustment(start, n.durationMs, c.rawStart + c.shift, c.durationMs);
          c.shift += c.skew;
        }
      }
      kids.sort(byStart);
      n.children = kids;
      for (let i = kids.length - 1; i >= 0; i -= 1) stack.push(kids[i]!);
    }
  };

  const tops = nodes.filter((n) => !n.parent).sort(byStart);
  for (const t of tops) { t.visited = true; walk(t); }
  // Whatever is left hangs under a cycle: walk up to a span on it, cut its parent link, lay it out from there.
  for (const n of nodes) {
    if (n.visited) continue;
    const onPath = new Set<Node>();
    let cur = n;
    while (!onPath.has(cur)) { onPath.add(cur); cur = cur.parent!; }
    const p = cur.parent!;
    p.children = p.children.filter((c) => c !== cur);
    cur.parent = undefined;
    cur.cycle = true;
    cur.visited = true;
    walk(cur);
  }

  finish(rows);
  let startMs = Infinity;
  let endMs = -Infinity;
  for (const r of rows) {
    if (r.startMs < startMs) startMs = r.startMs;
    if (r.startMs + r.durationMs > endMs) endMs = r.startMs + r.durationMs;
  }
  if (!rows.length) { startMs = 0; endMs = 0; }
  let orphanCount = 0, cycleCount = 0, skewedCount = 0;
  for (const r of rows) {
    r.offsetMs = r.startMs - startMs;
    if (r.orphan) orphanCount += 1;
    if (r.cycle) cycleCount += 1;
    if (r.skewMs !== 0) skewedCount += 1;
  }
  return { rows, startMs, endMs, totalMs: endMs - startMs, spanCount: rows.length, duplicateCount: duplicates, orphanCount, cycleCount, skewedCount };
}

/** childCount and subtreeEnd from the pre-order rows and their depths, with one stack of open ancestors. */
function finish(rows: WaterfallRow[]): void {
  const open: WaterfallRow[] = [];
  for (const r of rows) {
    while (open.length && open[open.length - 1]!.depth >= r.depth) open.pop()!.subtreeEnd = r.index;
    const parent = open[open.length - 1];
    if (parent && r.depth === parent.depth + 1) parent.childCount += 1;
    open.push(r);
  }
  for (const r of open) r.subtreeEnd = rows.length;
}

/** The rows drawn when the spans in `collapsed` have their subtrees folded away. O(rows shown + collapsed). */
export function visibleRows(layout: WaterfallLayout, collapsed: ReadonlySet<string>): WaterfallRow[] {
  if (collapsed.size === 0) return layout.rows;
  const out: WaterfallRow[] = [];
  const rows = layout.rows;
  let i = 0;
  while (i < rows.length) {
    const r = rows[i]!;
    out.push(r);
    i = collapsed.has(r.spanId) && r.childCount > 0 ? r.subtreeEnd : i + 1;
  }
  return out;
}

/** Every span with children: the set that folds the whole trace to its top-level rows. */
export function allCollapsible(layout: WaterfallLayout): Set<string> {
  const s = new Set<string>();
  for (const r of layout.rows) if (r.childCount > 0) s.add(r.spanId);
  return s;
}
