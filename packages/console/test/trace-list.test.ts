import { describe, expect, it } from '@jest/globals';
import type { Span, TraceRecord } from '../src/api/types';
import {
  addRecordSummaries, addTraceRecords, clearedFilters, EMPTY_TRACE_LIST, isFiltered, onlyTyped, rootNames, parseTraceParams, rootSpan, summariseRecord, toTraceFilter, traceParamsToHash,
} from '../src/lib/trace-list';

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
    expect(t1.records.map((r) => r.id)).toEqual(['r1', 'r3']);
  });

  it('leaves out a record it already holds (by record id), whichever page brings it again', () => {
    const r3 = () => rec('r3', 't1', 2, [sp('c', { parentSpanId: 'a' }), sp('d', { parentSpanId: 'c' })]);
    const list = addTraceRecords(EMPTY_TRACE_LIST, [rec('r1', 't1', 1, [sp('a')]), r3()]);
    expect(list.rows[0]!.spanCount).toBe(3);
    // the same record again, spans and all (a page boundary moved while the list scrolled)
    const again = addTraceRecords(list, [r3(), rec('r1', 'T1', 1, [sp('a')])]);
    expect(again.rows).toHaveLength(1);
    expect(again.rows[0]!.spanCount).toBe(3);
    expect(again.rows[0]!.records.map((r) => r.id)).toEqual(['r1', 'r3']);
    expect(again.rows[0]!.applicationIds).toEqual([1, 2]);
    expect(again.rows[0]).toBe(list.rows[0]); // nothing new: the row is not summarised again
    // twice within one page, the first time the trace is seen
    const once = addTraceRecords(EMPTY_TRACE_LIST, [r3(), r3()]);
    expect(once.rows[0]!.spanCount).toBe(2);
    expect(once.rows[0]!.records).toHaveLength(1);
    // another record of the trace still joins
    const joined = addTraceRecords(again, [rec('r4', 't1', 3, [sp('e', { parentSpanId: 'd' })])]);
    expect(joined.rows[0]!.spanCount).toBe(4);
    expect(joined.rows[0]!.applicationIds).toEqual([1, 2, 3]);
  });

  it('keeps the root span\'s service.name (an OpenTelemetry span), and none for a Lantern SDK span', () => {
    const otel = summariseRecord(rec('r1', 't1', 4, [sp('child', { parentSpanId: 'root', serviceName: 'db-proxy' }), sp('root', { parentSpanId: null, serviceName: 'checkout' })]));
    expect(otel.root!.serviceName).toBe('checkout');
    expect(summariseRecord(rec('r2', 't2', 4, [sp('root', { parentSpanId: null })])).root!.serviceName).toBeUndefined();
    expect(summariseRecord(rec('r3', 't3', 4, [sp('root', { parentSpanId: null, serviceName: 7 })])).root!.serviceName).toBeUndefined();
    expect(addTraceRecords(EMPTY_TRACE_LIST, [rec('r1', 't1', 4, [sp('root', { serviceName: 'checkout' })])]).rows[0]!.root!.serviceName).toBe('checkout');
  });

  it('keeps no telemetry: each record is summarised to what the table and the chart show', () => {
    const big = 'x'.repeat(10_000);
    const r = rec('r1', 'T1', 4, [
      sp('root', { parentSpanId: null, requestMethod: 'controller:GET', requestURL: '/cart', durationMs: 42, responseStatus: 503, body: big }),
      ...Array.from({ length: 50 }, (_, i) => sp(`s${i}`, { parentSpanId: 'root', payload: big })),
    ]);
    expect(summariseRecord(r)).toEqual({
      id: 'r1', traceId: 't1', applicationId: 4, timestampMs: Date.parse(T), spanCount: 51,
      root: { spanId: 'root', parentSpanId: undefined, requestMethod: 'controller:GET', requestURL: '/cart', durationMs: 42, responseStatus: 503, serviceName: undefined, operation: 'GET' },
    });
    const list = addTraceRecords(EMPTY_TRACE_LIST, [r]);
    const row = list.rows[0]!;
    expect(row).toMatchObject({ traceId: 't1', spanCount: 51, durationMs: 42, status: 503, applicationId: 4, applicationIds: [4] });
    expect(row.root).toEqual(summariseRecord(r).root);
    const kept = JSON.stringify(list.rows);
    expect(kept).not.toContain(big);
    expect(kept).not.toContain('telemetry');
    expect(kept.length).toBeLessThan(1000);
  });

  it('summarises a record without spans, or with fields of the wrong type, without failing', () => {
    const s = summariseRecord({ id: 'r', projectId: 1, applicationId: 1, traceId: 'T', timestamp: 'not a time', telemetry: undefined as unknown as Span[] });
    expect(s).toMatchObject({ traceId: 't', spanCount: 0, root: undefined });
    const odd = summariseRecord(rec('r', 't', 1, [sp('a', { durationMs: '12' as unknown as number, responseStatus: null as unknown as number, requestURL: 7 as unknown as string })]));
    expect(odd.root).toMatchObject({ durationMs: undefined, responseStatus: undefined, requestURL: undefined });
    const list = addRecordSummaries(EMPTY_TRACE_LIST, [s]);
    expect(list.rows[0]).toMatchObject({ startMs: 0, spanCount: 0, root: undefined, durationMs: undefined, status: undefined });
  });
});

describe('trace list params', () => {
  it('reads the hash, with the workspace application as default and `all` to clear it', () => {
    const p = parseTraceParams(new URLSearchParams('range=1h&status=5xx&minDurationMs=200&url=%20/cart%20'), 7);
    const none = { maxDurationMs: undefined, service: '', operation: '', attrs: [], sort: 'newest' };
    expect(p).toEqual({ range: { name: '1h' }, applicationId: 7, status: '5xx', minDurationMs: 200, url: '/cart', ...none });
    expect(parseTraceParams(new URLSearchParams('applicationId=all'), 7).applicationId).toBeUndefined();
    expect(parseTraceParams(new URLSearchParams('applicationId=3'), 7).applicationId).toBe(3);
    const junk = parseTraceParams(new URLSearchParams('range=3y&status=9xx&minDurationMs=-4&applicationId=x'));
    // One default window on every page: the last hour.
    expect(junk).toEqual({ range: { name: '1h' }, applicationId: undefined, status: '', minDurationMs: undefined, url: '', ...none });
    expect(isFiltered(junk)).toBe(false);
    expect(isFiltered(p)).toBe(true);
    expect(isFiltered({ ...junk, range: { name: '15m' } })).toBe(false);
    expect(clearedFilters(p)).toEqual({ ...junk, range: p.range });
  });

  it('tells a burst of typing from a change of the other filters', () => {
    const p = parseTraceParams(new URLSearchParams('range=1h&status=5xx&url=/ca'));
    expect(onlyTyped(p, { ...p, url: '/car' })).toBe(true);
    expect(onlyTyped(p, { ...p, minDurationMs: 20 })).toBe(true);
    expect(onlyTyped(p, { ...p, status: '4xx' })).toBe(false);
    expect(onlyTyped(p, { ...p, url: '/car', range: { name: '15m' } })).toBe(false);
    expect(onlyTyped(p, { ...p })).toBe(false);
  });

  it('round-trips through the hash and becomes the API filter', () => {
    const p = parseTraceParams(new URLSearchParams('range=15m&applicationId=2&status=404&url=x'));
    const again = parseTraceParams(new URLSearchParams(Object.entries(traceParamsToHash(p)).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)])));
    expect(again).toEqual(p);
    const now = Date.parse(T);
    expect(toTraceFilter(p, now)).toEqual({ from: '2026-11-22T09:45:00.000Z', to: T, applicationId: 2, status: '404', url: 'x' });
    expect(toTraceFilter(parseTraceParams(new URLSearchParams('range=all')), now)).toEqual({});
    expect(toTraceFilter(parseTraceParams(new URLSearchParams('')), now)).toEqual({ from: '2026-11-22T09:00:00.000Z', to: T });
  });

  it('keeps the search filters and the order in the hash: service, operation, a maximum duration (0 included), a sort', () => {
    const p = parseTraceParams(new URLSearchParams('range=all&service=%20checkout%20&operation=GET%20%2Fitems%2F%3Aid&maxDurationMs=0&sort=slowest'));
    expect(p).toMatchObject({ service: 'checkout', operation: 'GET /items/:id', maxDurationMs: 0, sort: 'slowest' });
    expect(isFiltered(p)).toBe(true);
    const again = parseTraceParams(new URLSearchParams(Object.entries(traceParamsToHash(p)).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)])));
    expect(again).toEqual(p);
    expect(toTraceFilter(p, Date.parse(T))).toEqual({ service: 'checkout', operation: 'GET /items/:id', maxDurationMs: 0 });
    expect(parseTraceParams(new URLSearchParams('sort=sideways')).sort).toBe('newest');
    expect(traceParamsToHash(parseTraceParams(new URLSearchParams(''))).sort).toBeUndefined();
    expect(clearedFilters(p)).toMatchObject({ service: '', operation: '', maxDurationMs: undefined, sort: 'slowest', range: { name: 'all' } });
    expect(onlyTyped(p, { ...p, operation: 'GET /other' })).toBe(true);
    expect(onlyTyped(p, { ...p, sort: 'fastest' })).toBe(false);
  });

  it('keeps the attribute terms in the hash, repeated, valid and distinct, and sends them as the API\'s attr', () => {
    const p = parseTraceParams(new URLSearchParams('range=all&attr=http.route%3D%2Fcart&attr=user.id&attr=&attr=%3Dnokey&attr=http.route%3D%2Fcart'));
    expect(p.attrs).toEqual(['http.route=/cart', 'user.id']);
    expect(isFiltered(p)).toBe(true);
    expect(traceParamsToHash(p).attr).toEqual(['http.route=/cart', 'user.id']);
    expect(toTraceFilter(p, Date.parse(T))).toEqual({ attr: ['http.route=/cart', 'user.id'] });
    // Not trimmed: a value's spaces are part of it.
    expect(parseTraceParams(new URLSearchParams('attr=note%3Dyes%20')).attrs).toEqual(['note=yes ']);
    expect(clearedFilters(p).attrs).toEqual([]);
    expect(onlyTyped(p, { ...p, attrs: ['user.id'] })).toBe(false);
    // The API's bound: 8 terms.
    expect(parseTraceParams(new URLSearchParams(Array.from({ length: 10 }, (_, i) => ['attr', `k${i}`]))).attrs).toHaveLength(8);
  });

  it('names the services and operations of the loaded roots, once each, sorted', () => {
    const rec = (id: string, extra: Record<string, unknown>): TraceRecord => ({ id, projectId: 1, applicationId: 1, traceId: id, timestamp: T,
      telemetry: [sp('root', { parentSpanId: null, requestMethod: 'controller:GET', ...extra })] });
    const list = addTraceRecords(EMPTY_TRACE_LIST, [
      rec('a', { serviceName: 'web', name: 'GET /b', kind: 'server' }), rec('b', { serviceName: 'api', name: 'GET /a', kind: 'server' }),
      rec('c', { serviceName: 'web', route: '/x' }), rec('d', {}),
    ]);
    expect(rootNames(list.rows)).toEqual({ services: ['api', 'web'], operations: ['GET', 'GET /a', 'GET /b', 'GET /x'] });
  });
});
