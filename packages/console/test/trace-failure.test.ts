import { describe, expect, it } from '@jest/globals';
import type { Span, TraceRecord } from '../src/api/types';
import { errorCause, failingSpan } from '../src/lib/trace-failure';
import { layoutTrace } from '../src/lib/waterfall';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const TRACE = '11111111-1111-4111-8111-111111111111';

function span(id: string, parent: string | null, at: number, extra: Record<string, unknown> = {}): Span {
  return { traceId: TRACE, spanId: id, parentSpanId: parent, timestamp: new Date(T0 + at).toISOString(), durationMs: 10, requestMethod: 'service:work', responseStatus: 200, ...extra };
}
const rows = (spans: Span[]) => layoutTrace([{ id: 'r', projectId: 1, applicationId: 1, traceId: TRACE, timestamp: new Date(T0).toISOString(), telemetry: spans } as TraceRecord]).rows;

describe('failingSpan', () => {
  it('is the deepest error of the first failing branch: where the failure began, not where it surfaced', () => {
    const r = rows([
      span('root', null, 0, { responseStatus: 500, requestMethod: 'controller:POST' }),
      span('ok', 'root', 1),
      span('call', 'root', 2, { responseStatus: 502, requestMethod: 'external:payments' }),
      span('query', 'call', 3, { error: 'connection refused' }),
      span('later', 'root', 5, { error: 'also failed' }),
    ]);
    expect(failingSpan(r)?.spanId).toBe('query');
  });

  it('is the erroring span itself when nothing below it failed, and nothing for a trace without errors', () => {
    expect(failingSpan(rows([span('root', null, 0, { responseStatus: 503 }), span('child', 'root', 1)]))?.spanId).toBe('root');
    expect(failingSpan(rows([span('root', null, 0), span('child', 'root', 1)]))).toBeUndefined();
    expect(failingSpan([])).toBeUndefined();
  });
});

describe('errorCause', () => {
  it('reads an OpenTelemetry exception event first: type, message and stack', () => {
    const s = span('a', null, 0, {
      status: { code: 'error', message: 'boom' },
      events: [{ name: 'exception', timestamp: new Date(T0).toISOString(), attributes: [
        { key: 'exception.type', value: 'TypeError' }, { key: 'exception.message', value: 'x is undefined' }, { key: 'exception.stacktrace', value: 'TypeError: x\n  at f' },
      ] }],
    });
    expect(errorCause(s)).toEqual({ title: 'TypeError', message: 'x is undefined', stack: 'TypeError: x\n  at f' });
  });

  it('reads an ERROR status with its message and error.type when there is no exception event', () => {
    const s = span('a', null, 0, { status: { code: 'error', message: 'card declined' }, attributes: [{ key: 'error.type', value: 'DeclinedError' }] });
    expect(errorCause(s)).toEqual({ title: 'DeclinedError', message: 'card declined' });
    expect(errorCause(span('b', null, 0, { status: { code: 'error' } }))).toEqual({ title: 'Error' });
  });

  it("reads the Node library's error and stack fields, and any other error value as JSON", () => {
    expect(errorCause(span('a', null, 0, { error: 'connection refused', stack: 'Error: connection refused\n  at db' })))
      .toEqual({ title: 'Error', message: 'connection refused', stack: 'Error: connection refused\n  at db' });
    expect(errorCause(span('b', null, 0, { error: { code: 'E42' } }))).toEqual({ title: 'Error', message: '{"code":"E42"}' });
  });

  it('falls back to the HTTP status, and is undefined for a span that did not fail', () => {
    expect(errorCause(span('a', null, 0, { responseStatus: 503 }))).toEqual({ title: 'HTTP 503' });
    expect(errorCause(span('b', null, 0))).toBeUndefined();
    expect(errorCause(span('c', null, 0, { error: false, status: { code: 'ok' } }))).toBeUndefined();
  });
});
