import { describe, expect, it } from '@jest/globals';
import { spanJson, type SpanRecord } from '../src/spans.js';

const record = (requestMethod: string, requestURL: string, extra: Partial<SpanRecord> = {}): SpanRecord => ({
  timestamp: '2026-11-26T22:00:00.123Z',
  requestMethod,
  requestURL,
  responseStatus: 200,
  traceId: '0b9f4a8e-9c1d-4e2f-8a3b-5c6d7e8f9a0b',
  spanId: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  parentSpanId: null,
  durationMs: 3,
  ...extra,
});

describe('spanJson', () => {
  it('is what JSON.stringify writes, whatever names and URLs come in whatever order (its caches never answer for another string)', () => {
    const methods = ['controller:GET', 'service:greeting', 'external:"quoted"', 'service:caf\u00e9 \u2028 \ud83d\ude00', 'controller:GET '];
    const urls = ['/hello', '/hello?', '/a"b\\c', '/line\nbreak', '/caf\u00e9', '', '/hello'];
    for (let i = 0; i < 6000; i++) {
      const r = record(methods[(i * 7) % methods.length]!, i % 11 === 0 ? `/items/${i}` : urls[(i * 3) % urls.length]!, i % 5 === 0 ? { parentSpanId: '2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a', error: 'boom "x"', aborted: true, route: '/items/:id' } : {});
      expect(spanJson(r)).toBe(JSON.stringify(r));
    }
  });

  it('many different names (more than its cache holds) still come out right', () => {
    for (let i = 0; i < 10_000; i++) {
      const r = record(`service:name-${i}`, `/p/${i % 3}`);
      expect(JSON.parse(spanJson(r))).toEqual(r);
    }
  });
});
