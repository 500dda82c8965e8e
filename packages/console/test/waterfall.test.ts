import { describe, expect, it } from '@jest/globals';
import type { Span, TraceRecord } from '../src/api/types';
import { SKEW_TOLERANCE_MS, allCollapsible, layoutTrace, skewAdjustment, visibleRows } from '../src/lib/waterfall';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const TRACE = '11111111-1111-4111-8111-111111111111';

interface S { id: string; parent?: string | null; at: number; dur: number; method?: string; status?: number; extra?: Record<string, unknown> }

function span(s: S): Span {
  return {
    traceId: TRACE, spanId: s.id, parentSpanId: s.parent ?? null, timestamp: new Date(T0 + s.at).toISOString(),
    durationMs: s.dur, requestMethod: s.method ?? 'service:work', requestURL: '/x', responseStatus: s.status ?? 200, ...s.extra,
  };
}

function record(applicationId: number, spans: S[]): TraceRecord {
  return { id: `r${applicationId}`, projectId: 1, applicationId, traceId: TRACE, timestamp: new Date(T0).toISOString(), telemetry: spans.map(span) };
}

const ids = (rows: { spanId: string }[]) => rows.map((r) => r.spanId);

describe('layoutTrace: nesting and order', () => {
  it('nests by parentSpanId, orders siblings by start, and gives depth, offset and total', () => {
    const layout = layoutTrace([record(1, [
      { id: 'c2', parent: 'root', at: 50, dur: 20 },
      { id: 'root', at: 0, dur: 100, method: 'controller:GET /a' },
      { id: 'c1', parent: 'root', at: 10, dur: 30, method: 'external:GET http://b' },
      { id: 'g1', parent: 'c1', at: 15, dur: 5 },
    ])]);
    expect(ids(layout.rows)).toEqual(['root', 'c1', 'g1', 'c2']);
    expect(layout.rows.map((r) => r.depth)).toEqual([0, 1, 2, 1]);
    expect(layout.rows.map((r) => r.offsetMs)).toEqual([0, 10, 15, 50]);
    expect(layout.rows.map((r) => r.kind)).toEqual(['controller', 'external', 'service', 'service']);
    expect(layout.startMs).toBe(T0);
    expect(layout.totalMs).toBe(100);
    expect(layout.spanCount).toBe(4);
    const root = layout.rows[0]!;
    expect(root.childCount).toBe(2);
    expect(root.subtreeEnd).toBe(4);
    expect(layout.rows[1]!.subtreeEnd).toBe(3);
    expect(layout.rows[2]!.parentSpanId).toBe('c1');
  });

  it('joins the spans of several records and keeps a repeated spanId once', () => {
    const layout = layoutTrace([
      record(1, [{ id: 'a', at: 0, dur: 100 }]),
      record(2, [{ id: 'b', parent: 'a', at: 10, dur: 10 }, { id: 'a', at: 0, dur: 100 }]),
    ]);
    expect(ids(layout.rows)).toEqual(['a', 'b']);
    expect(layout.rows[1]!.applicationId).toBe(2);
    expect(layout.duplicateCount).toBe(1);
  });

  it('compares ids without regard to case', () => {
    const layout = layoutTrace([record(1, [{ id: 'ABC', at: 0, dur: 10 }, { id: 'def', parent: 'abc', at: 1, dur: 1 }])]);
    expect(layout.rows.map((r) => r.depth)).toEqual([0, 1]);
  });

  it('flags errors by status >= 500 or a truthy error field', () => {
    const layout = layoutTrace([record(1, [
      { id: 'a', at: 0, dur: 10, status: 503 },
      { id: 'b', parent: 'a', at: 1, dur: 1, status: 404 },
      { id: 'c', parent: 'a', at: 2, dur: 1, extra: { error: 'boom' } },
    ])]);
    expect(layout.rows.map((r) => r.error)).toEqual([true, false, true]);
  });

  it('handles an empty trace', () => {
    const layout = layoutTrace([]);
    expect(layout.rows).toEqual([]);
    expect(layout.totalMs).toBe(0);
  });
});

describe('layoutTrace: broken links', () => {
  it('shows a span whose parent is missing at top level, flagged orphan', () => {
    const layout = layoutTrace([record(1, [
      { id: 'root', at: 0, dur: 100 },
      { id: 'lost', parent: 'nowhere', at: 5, dur: 10 },
      { id: 'lostkid', parent: 'lost', at: 6, dur: 1 },
    ])]);
    expect(ids(layout.rows)).toEqual(['root', 'lost', 'lostkid']);
    expect(layout.rows.map((r) => [r.depth, r.orphan])).toEqual([[0, false], [0, true], [1, false]]);
    expect(layout.orphanCount).toBe(1);
  });

  it('breaks a cycle of parent links and lays out every span once', () => {
    const layout = layoutTrace([record(1, [
      { id: 'root', at: 0, dur: 100 },
      { id: 'a', parent: 'b', at: 10, dur: 10 },
      { id: 'b', parent: 'a', at: 20, dur: 10 },
      { id: 'c', parent: 'a', at: 30, dur: 1 },
      { id: 'self', parent: 'self', at: 40, dur: 1 },
    ])]);
    expect(layout.spanCount).toBe(5);
    expect(new Set(ids(layout.rows)).size).toBe(5);
    expect(layout.cycleCount).toBe(2);
    const top = layout.rows.filter((r) => r.depth === 0).map((r) => r.spanId);
    expect(top).toContain('self');
    expect(top.filter((id) => id === 'a' || id === 'b')).toHaveLength(1);
    expect(layout.rows.find((r) => r.spanId === 'c')!.depth).toBeGreaterThan(0);
  });
});

describe('layoutTrace: clock skew between applications', () => {
  it('centres a child of another application that starts before its parent, with its subtree', () => {
    const layout = layoutTrace([
      record(1, [{ id: 'p', at: 1000, dur: 100, method: 'external:GET http://b' }]),
      record(2, [{ id: 'c', parent: 'p', at: 900, dur: 60, method: 'controller:GET /b' }, { id: 'g', parent: 'c', at: 910, dur: 10 }]),
    ]);
    const [p, c, g] = layout.rows;
    expect(c!.skewMs).toBe(120); // centred: 1000 + (100 - 60) / 2 = 1020
    expect(c!.startMs).toBe(T0 + 1020);
    expect(g!.skewMs).toBe(0);
    expect(g!.shiftMs).toBe(120);
    expect(g!.startMs).toBe(T0 + 1030);
    expect(layout.startMs).toBe(p!.startMs);
    expect(c!.offsetMs).toBe(20);
    expect(layout.skewedCount).toBe(1);
  });

  it('starts a child longer than its parent at the parent start', () => {
    const layout = layoutTrace([
      record(1, [{ id: 'p', at: 0, dur: 50 }]),
      record(2, [{ id: 'c', parent: 'p', at: 30, dur: 80 }]),
    ]);
    expect(layout.rows[1]!.startMs).toBe(T0);
    expect(layout.rows[1]!.skewMs).toBe(-30);
  });

  it('leaves a child of another application alone when it lies within its parent', () => {
    const layout = layoutTrace([
      record(1, [{ id: 'p', at: 0, dur: 100 }]),
      record(2, [{ id: 'c', parent: 'p', at: 10, dur: 20 }]),
    ]);
    expect(layout.rows[1]!.skewMs).toBe(0);
    expect(layout.skewedCount).toBe(0);
  });

  it('never shifts a child of the same application, even outside its parent', () => {
    const layout = layoutTrace([record(1, [{ id: 'p', at: 100, dur: 10 }, { id: 'c', parent: 'p', at: 50, dur: 100 }])]);
    const c = layout.rows.find((r) => r.spanId === 'c')!;
    expect(c.skewMs).toBe(0);
    expect(c.startMs).toBe(T0 + 50);
    expect(layout.startMs).toBe(T0 + 50);
  });

  it('orders siblings by their adjusted start', () => {
    const layout = layoutTrace([
      record(1, [{ id: 'p', at: 0, dur: 100 }, { id: 'local', parent: 'p', at: 10, dur: 10 }]),
      record(2, [{ id: 'remote', parent: 'p', at: -500, dur: 90 }]), // moved to 5
    ]);
    expect(ids(layout.rows)).toEqual(['p', 'remote', 'local']);
  });

  it('leaves a child of another application that overhangs its parent by at most the tolerance where its clock puts it', () => {
    const layout = layoutTrace([
      record(1, [{ id: 'p', at: 0, dur: 100 }]),
      record(2, [{ id: 'early', parent: 'p', at: -2, dur: 20 }, { id: 'late', parent: 'p', at: 90, dur: 10 + SKEW_TOLERANCE_MS }]),
      record(3, [{ id: 'past', parent: 'p', at: 90, dur: 11 + SKEW_TOLERANCE_MS }]),
    ]);
    const skew = Object.fromEntries(layout.rows.map((r) => [r.spanId, r.skewMs]));
    // `past` (90 + 16 = 6 ms past the end) is centred: (100 - 16) / 2 = 42.
    expect(skew).toEqual({ p: 0, early: 0, late: 0, past: 42 - 90 });
    expect(layout.skewedCount).toBe(1);
  });

  it('skewAdjustment is 0 inside and within the tolerance, centres when it fits, else aligns starts', () => {
    expect(skewAdjustment(0, 100, 10, 10)).toBe(0);
    expect(skewAdjustment(0, 100, 95, 10)).toBe(0); // 5 ms past the end: the tolerance
    expect(skewAdjustment(0, 100, -SKEW_TOLERANCE_MS, 10)).toBe(0);
    expect(skewAdjustment(0, 100, 96, 10)).toBe(45 - 96);
    expect(skewAdjustment(0, 100, -6, 10)).toBe(51);
    expect(skewAdjustment(0, 100, -6, 200)).toBe(6);
  });
});

describe('visibleRows', () => {
  const layout = layoutTrace([record(1, [
    { id: 'r', at: 0, dur: 100 },
    { id: 'a', parent: 'r', at: 1, dur: 10 },
    { id: 'a1', parent: 'a', at: 2, dur: 1 },
    { id: 'b', parent: 'r', at: 20, dur: 10 },
    { id: 'b1', parent: 'b', at: 21, dur: 1 },
  ])]);

  it('hides the subtree of a collapsed span and keeps the rest', () => {
    expect(ids(visibleRows(layout, new Set()))).toEqual(['r', 'a', 'a1', 'b', 'b1']);
    expect(ids(visibleRows(layout, new Set(['a'])))).toEqual(['r', 'a', 'b', 'b1']);
    expect(ids(visibleRows(layout, new Set(['r', 'a'])))).toEqual(['r']);
    expect(ids(visibleRows(layout, new Set(['a1'])))).toEqual(['r', 'a', 'a1', 'b', 'b1']);
    expect(ids(visibleRows(layout, allCollapsible(layout)))).toEqual(['r']);
  });
});

describe('layoutTrace: 10,000 spans', () => {
  it('lays out a wide, deep trace across applications: every span once, each under its parent', () => {
    const spans: S[] = [{ id: 's0', at: 0, dur: 100_000, method: 'controller:GET /big' }];
    for (let i = 1; i < 10_000; i += 1) {
      // a mix of a long chain (every 3rd span continues the previous one) and fan-out under earlier spans
      const parent = i % 3 === 0 ? `s${i - 1}` : `s${Math.floor(i / 7)}`;
      spans.push({ id: `s${i}`, parent, at: i, dur: 5 });
    }
    // shuffle deterministically across three applications' records
    const recs = [0, 1, 2].map((app) => record(app + 1, spans.filter((_, i) => (i * 7919) % 3 === app)));
    const layout = layoutTrace(recs);
    expect(layout.spanCount).toBe(10_000);
    expect(new Set(ids(layout.rows)).size).toBe(10_000);
    const pos = new Map(layout.rows.map((r, i) => [r.spanId, i]));
    const wrong: string[] = [];
    for (const r of layout.rows) {
      if (!r.parentSpanId) { if (r.spanId !== 's0') wrong.push(`${r.spanId} at top level`); continue; }
      const p = layout.rows[pos.get(r.parentSpanId)!]!;
      if (!(p.index < r.index && r.index < p.subtreeEnd)) wrong.push(`${r.spanId} outside its parent's subtree`);
      if (r.depth !== p.depth + 1) wrong.push(`${r.spanId} at depth ${r.depth} under depth ${p.depth}`);
      // children of another application were moved into their parent, or lie outside it by at most the tolerance
      if (r.applicationId !== p.applicationId && (r.startMs < p.startMs - SKEW_TOLERANCE_MS
        || r.startMs + r.durationMs > p.startMs + p.durationMs + SKEW_TOLERANCE_MS)) wrong.push(`${r.spanId} outside its parent in time`);
    }
    expect(wrong).toEqual([]);
    expect(visibleRows(layout, new Set(['s0']))).toHaveLength(1);
  });

  it('lays out a chain 10,000 deep without running out of stack', () => {
    const spans: S[] = [];
    for (let i = 0; i < 10_000; i += 1) spans.push({ id: `s${i}`, parent: i ? `s${i - 1}` : null, at: i, dur: 10_000 - i });
    const layout = layoutTrace([record(1, spans)]);
    expect(layout.rows[9_999]!.depth).toBe(9_999);
    expect(layout.rows[0]!.subtreeEnd).toBe(10_000);
  });
});
