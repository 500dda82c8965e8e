import { describe, expect, it } from '@jest/globals';
import type { Span, TraceRecord } from '../src/api/types';
import { changed, compareTraces } from '../src/lib/compare';
import { layoutTrace } from '../src/lib/waterfall';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
interface S { id: string; parent?: string; at: number; dur: number; name: string; service?: string; status?: number }
const record = (trace: string, spans: S[]): TraceRecord => ({
  id: trace, projectId: 1, applicationId: 1, traceId: trace, timestamp: new Date(T0).toISOString(),
  telemetry: spans.map((s): Span => ({
    traceId: trace, spanId: s.id, parentSpanId: s.parent ?? null, timestamp: new Date(T0 + s.at).toISOString(), durationMs: s.dur,
    requestMethod: 'service:x', name: s.name, responseStatus: s.status ?? 200, ...(s.service ? { serviceName: s.service } : {}),
  })),
});
const layout = (trace: string, spans: S[]) => layoutTrace([record(trace, spans)]);

describe('compareTraces', () => {
  const a = layout('a', [
    { id: 'r', at: 0, dur: 100, name: 'POST /pay', service: 'checkout' },
    { id: 'q1', parent: 'r', at: 5, dur: 10, name: 'SELECT', service: 'checkout' },
    { id: 'q2', parent: 'r', at: 20, dur: 10, name: 'SELECT', service: 'checkout' },
    { id: 'c', parent: 'r', at: 40, dur: 50, name: 'charge', service: 'payments' },
    { id: 'gone', parent: 'c', at: 45, dur: 5, name: 'cache get', service: 'payments' },
  ]);
  const b = layout('b', [
    { id: 'rb', at: 0, dur: 400, name: 'POST /pay', service: 'checkout' },
    { id: 'q1b', parent: 'rb', at: 5, dur: 11, name: 'SELECT', service: 'checkout' },
    { id: 'q2b', parent: 'rb', at: 20, dur: 300, name: 'SELECT', service: 'checkout', status: 500 },
    { id: 'cb', parent: 'rb', at: 330, dur: 60, name: 'charge', service: 'payments' },
    { id: 'new', parent: 'cb', at: 335, dur: 40, name: 'fraud check', service: 'risk' },
  ]);
  const result = compareTraces(a, b);

  it('pairs spans by their place (service, operation, rank among same-named siblings) and gives each pair its change', () => {
    expect(result.rows.map((r) => [r.label, r.depth, r.a?.spanId, r.b?.spanId, r.deltaMs])).toEqual([
      ['POST /pay', 0, 'r', 'rb', 300],
      ['SELECT', 1, 'q1', 'q1b', 1],
      ['SELECT', 1, 'q2', 'q2b', 290],
      ['charge', 1, 'c', 'cb', 10],
      ['cache get', 2, 'gone', undefined, undefined],
      ['fraud check', 2, undefined, 'new', undefined],
    ]);
    expect(result.rows[2]!.b!.error).toBe(true);
    expect(result).toMatchObject({ totalA: 100, totalB: 400, matched: 4, onlyA: 1, onlyB: 1 });
  });

  it('points out what changed: more than 1 ms and 10 %, or a span only one side has', () => {
    expect(result.rows.map((r) => changed(r))).toEqual([true, false, true, true, true, true]);
  });

  it('compares a trace with itself as all matched, nothing changed', () => {
    const self = compareTraces(a, a);
    expect(self).toMatchObject({ matched: 5, onlyA: 0, onlyB: 0 });
    expect(self.rows.every((r) => r.deltaMs === 0 && !changed(r))).toBe(true);
  });

  it('names a span of no service by its application', () => {
    const plain = layout('p', [{ id: 'x', at: 0, dur: 5, name: 'GET /' }]);
    expect(compareTraces(plain, plain, (id) => `app ${id}`).rows[0]!.service).toBe('app 1');
  });
});

describe('compareTraces with awkward names and deep chains', () => {
  it('places a span whose name holds ">" under its parent, and keeps keys short down a deep chain', () => {
    const spans: S[] = [{ id: 'r', at: 0, dur: 50, name: 'SELECT * WHERE a > 1', service: 'db>proxy' }];
    for (let i = 1; i < 3000; i++) spans.push({ id: `s${i}`, parent: i === 1 ? 'r' : `s${i - 1}`, at: i, dur: 1, name: `step > ${i % 3}` });
    const deep = layout('deep', spans);
    const result = compareTraces(deep, deep);
    expect(result.rows[0]).toMatchObject({ label: 'SELECT * WHERE a > 1', depth: 0 });
    expect(result.rows[1]).toMatchObject({ depth: 1 });
    expect(result.rows[2999]).toMatchObject({ depth: 2999 });
    expect(result).toMatchObject({ matched: 3000, onlyA: 0, onlyB: 0 });
    expect(Math.max(...result.rows.map((r) => r.key.length))).toBeLessThan(80);
  });
});
