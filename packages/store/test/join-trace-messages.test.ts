import { describe, expect, it } from '@jest/globals';
import type { Span, SpanBatchMessage } from '@lantern/domain';
import { joinTraceMessages } from '../src/one-by-one.js';

const span = (traceId: string, spanId: string): Span => ({ traceId, spanId, parentSpanId: null, timestamp: '2026-11-25T10:00:00.000Z', requestMethod: 'controller:GET' });
const message = (applicationId: number, spans: Span[], extra: Partial<SpanBatchMessage> = {}): SpanBatchMessage =>
  ({ kind: 'spans', applicationId, projectId: 1, receivedAt: '2026-11-25T10:00:01.000Z', spans, ...extra });

describe('joinTraceMessages', () => {
  it('joins neighbouring messages of one application and arrival into one batch, in order', () => {
    const joined = joinTraceMessages([message(1, [span('a', '1')]), message(1, [span('b', '2'), span('b', '3')]), message(1, [span('c', '4')])]);
    expect(joined).toHaveLength(1);
    expect(joined[0]!.spans.map((s) => s.spanId)).toEqual(['1', '2', '3', '4']);
  });

  it('keeps apart other applications, other arrivals and every message with an Idempotency-Key', () => {
    const joined = joinTraceMessages([
      message(1, [span('a', '1')]),
      message(2, [span('b', '2')]),
      message(2, [span('c', '3')], { receivedAt: '2026-11-25T10:00:02.000Z' }),
      message(2, [span('d', '4')], { idempotencyKey: 'k' }),
      message(2, [span('e', '5')], { receivedAt: '2026-11-25T10:00:02.000Z' }),
    ]);
    expect(joined.map((m) => m.spans.map((s) => s.spanId))).toEqual([['1'], ['2'], ['3'], ['4'], ['5']]);
    expect(joined[3]!.idempotencyKey).toBe('k');
  });

  it('leaves the messages it was given unchanged', () => {
    const first = message(1, [span('a', '1')]);
    joinTraceMessages([first, message(1, [span('b', '2')])]);
    expect(first.spans).toHaveLength(1);
  });
});
