import { describe, expect, it } from '@jest/globals';
import type { Span, TraceRecord } from '../src/api/types';
import { addTraceRecords, EMPTY_TRACE_LIST, isFiltered, parseTraceParams, rootSpan, toTraceFilter, traceParamsToHash } from '../src/lib/traceList';
import { logTicks, scaleLog, timeTicks } from '../src/lib/scale';

const T = '2026-11-22T10:00:00.000Z';
const sp = (spanId: string, over: Partial<Span> = {}): Span =>
  ({ traceId: 't', spanId, timestamp: T, requestMethod: 'service:x', durationMs: 1, responseStatus: 200, ...over });
const rec = (id: string, traceId: string, applicationId: number, spans: Span[], timestamp = T): TraceRecord =>
  ({ id, projectId: 1, applicationId, traceId, timestamp, telemetry: spans });

describe('rootSpan', () => {
  it('is the span without parent, else the first controller span, else the first span', () => {
    expect(rootSpan(rec('1', 't', 1, [sp('a', { parentSpanId: 'z' }), sp('b', { parentSpanId: null })]))!.spanId).toBe('b');
    expect(rootSpan(rec('1', 't', 1, [sp('a', { parentSpanId: 'z' }), sp('b', { parentSpanId: 'z', requestMethod: 'controller:GET' })]))!.spanId).toBe('b');
    expect(rootSpan(rec('1', 't', 1, [sp('a', { parentSpanId: 'z' })]))!.spanId).toBe('a');
    expect(rootSpan(rec('1', 't', 1, []))).toBeUndefined();
  });
});

describe('addTraceRecords', () => {
  it('joins the records of one trace into one row, keeps the order, and takes the entry record as the root', () => {
    let list = addTraceRecords(EMPTY_TRACE_LIST, [
      rec('r1', 'T1', 1, [sp('a', { durationMs: 50, responseStatus: 500 })]),
      rec('r2', 't2', 1, [sp('b')]),
    ]);
    // the next page brings another application's record of t1, whose span has a parent in app 1
    list = addTraceRecords(list, [rec('r3', 't1', 2, [sp('c', { parentSpanId: 'a', requestMethod: 'controller:POST' }), sp('d', { parentSpanId: 'c' })], '2026-11-22T09:59:59.000Z')]);
    expect(list.rows.map((r) => r.traceId)).toEqual(['t1', 't2']);
    const t1 = list.rows[0]!;
    expect(t1.applicationId).toBe(1);
    expect(t1.applicationIds).toEqual([1, 2]);
    expect(t1.spanCount).toBe(3);
    expect(t1.durationMs).toBe(50);
    expect(t1.status).toBe(500);
    expect(t1.startMs).toBe(Date.parse('2026-11-22T09:59:59.000Z'));
    // the same record again changes nothing
    expect(addTraceRecords(list, [rec('r3', 't1', 2, [])]).rows[0]!.spanCount).toBe(3);
  });
});

describe('trace list params', () => {
  it('reads the hash, with the workspace application as default and `all` to clear it', () => {
    const p = parseTraceParams(new URLSearchParams('range=1h&status=5xx&minDurationMs=200&url=%20/cart%20'), 7);
    expect(p).toEqual({ range: { name: '1h' }, applicationId: 7, status: '5xx', minDurationMs: 200, url: '/cart' });
    expect(parseTraceParams(new URLSearchParams('applicationId=all'), 7).applicationId).toBeUndefined();
    expect(parseTraceParams(new URLSearchParams('applicationId=3'), 7).applicationId).toBe(3);
    const junk = parseTraceParams(new URLSearchParams('range=3y&status=9xx&minDurationMs=-4&applicationId=x'));
    expect(junk).toEqual({ range: { name: 'all' }, applicationId: undefined, status: '', minDurationMs: undefined, url: '' });
    expect(isFiltered(junk)).toBe(false);
    expect(isFiltered(p)).toBe(true);
  });

  it('round-trips through the hash and becomes the API filter', () => {
    const p = parseTraceParams(new URLSearchParams('range=15m&applicationId=2&status=404&url=x'));
    const again = parseTraceParams(new URLSearchParams(Object.entries(traceParamsToHash(p)).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)])));
    expect(again).toEqual(p);
    const now = Date.parse(T);
    expect(toTraceFilter(p, now)).toEqual({ from: '2026-11-22T09:45:00.000Z', to: T, applicationId: 2, status: '404', url: 'x' });
    expect(toTraceFilter(parseTraceParams(new URLSearchParams('')), now)).toEqual({});
  });
});

describe('latency chart scales', () => {
  it('log scale and decade ticks', () => {
    const y = scaleLog(1, 1000, 100, 0);
    expect(y(1)).toBe(100);
    expect(y(1000)).toBe(0);
    expect(y(0)).toBeGreaterThan(100); // below the floor of 0.1 ms, drawn at it
    expect(logTicks(3, 450)).toEqual([1, 10, 100, 1000]);
    expect(logTicks(5, 5)).toEqual([1, 10]);
  });

  it('time ticks fall on round instants within the window', () => {
    const from = Date.parse('2026-11-22T10:00:07.000Z');
    const ticks = timeTicks(from, from + 3_600_000, 6);
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    expect(ticks.every((t) => t % 600_000 === 0 || t % 900_000 === 0)).toBe(true);
    expect(ticks[0]!).toBeGreaterThanOrEqual(from);
  });
});
