import { describe, expect, it } from '@jest/globals';
import { builtLogNormalizer, builtSpanNormalizer, limits, normalizeLog, normalizeSpan } from '../src/index.js';

// Items as the OTLP mapping builds them: the spans of one resource share its attribute list and scope by reference.
const resource = [{ key: 'service.name', value: 'checkout' }, { key: 'host.name', value: 'web-1' }];
const scope = { name: 'io.opentelemetry.http', version: '1.0.0' };
const span = (n: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  traceId: '0af76519-16cd-43dd-8448-eb211c80319c',
  spanId: `b7ad6b71-6920-3331-${String(n).padStart(4, '0')}-000000000000`,
  parentSpanId: null,
  timestamp: '2026-11-22T10:43:34.123Z',
  durationMs: 12,
  requestMethod: 'controller:GET',
  name: 'GET /cart',
  kind: 'server',
  serviceName: 'checkout',
  resource,
  scope,
  attributes: [{ key: 'http.request.method', value: 'GET' }],
  ...extra,
});
const copy = <T>(v: T): T => structuredClone(v);
const long = 'x'.repeat(limits.maxStringLength + 1);

describe('builtSpanNormalizer gives normalizeSpan\'s verdicts for built spans', () => {
  it('accepts valid spans with the same stored value, keeping the shared resource by reference', () => {
    const normalize = builtSpanNormalizer();
    const items = [span(1), span(2), span(3, { timestamp: '2026-11-22T12:43:34.5+02:00' })];
    const expected = items.map((item) => normalizeSpan(copy(item)));
    const got = items.map((item) => normalize(item));
    expect(got).toEqual(expected);
    expect(got.map((c) => c.ok && c.value.timestamp)).toEqual(['2026-11-22T10:43:34.123Z', '2026-11-22T10:43:34.123Z', '2026-11-22T10:43:34.500Z']);
    const [a, b] = got;
    expect(a?.ok && b?.ok && (a.value as unknown as { resource: unknown }).resource === (b.value as unknown as { resource: unknown }).resource).toBe(true);
  });

  it('rejects every span of a resource holding a value over the bound, with normalizeSpan\'s reason', () => {
    const bad = [{ key: 'service.name', value: 'checkout' }, { key: 'blob', value: long }];
    const normalize = builtSpanNormalizer();
    const items = [span(1), span(2, { resource: bad }), span(3, { resource: bad }), span(4)];
    const got = items.map((item) => normalize(item));
    expect(got.map((c) => c.ok)).toEqual([true, false, false, true]);
    const reason = normalizeSpan(copy(items[1])) as { ok: false; errors: string[] };
    expect(reason.errors).toEqual([`/resource/1/value is longer than ${limits.maxStringLength} characters`]);
    expect(got[1]).toEqual(reason);
    expect(got[2]).toEqual(reason);
  });

  it('rejects a scope nested too deep, and a span\'s own unsafe or invalid fields, as normalizeSpan does', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < limits.maxDepth; i++) deep = [deep];
    const items = [
      span(1, { scope: { name: 's', attributes: [{ key: 'k', value: deep }] } }),
      span(2, { attributes: [{ key: 'k', value: long }] }),
      span(3, { 'bad.key': 1 }),
      span(4, { requestMethod: 'controller:' }),
      span(5, { timestamp: '2026-02-31T00:00:00.000Z' }),
      span(6, { durationMs: -1 }),
    ];
    const normalize = builtSpanNormalizer();
    for (const item of items) {
      const expected = normalizeSpan(copy(item));
      expect(expected.ok).toBe(false);
      expect(normalize(item)).toEqual(expected);
    }
  });
});

describe('builtLogNormalizer gives normalizeLog\'s verdicts for built logs', () => {
  const log = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    level: 'info', message: 'hello', timestamp: '2026-11-22T10:43:34.123Z', clientTimestamp: '2026-11-22T10:43:35.000Z', type: 'app',
    traceId: '0AF76519-16CD-43DD-8448-EB211C80319C', serviceName: 'checkout', resource, scope, ...extra,
  });
  it('accepts, normalises and rejects exactly as normalizeLog', () => {
    const envelope = '2026-11-22T10:43:40.000Z';
    const items = [log(), log({ clientTimestamp: undefined }), log({ resource: [{ key: 'blob', value: long }] }), log({ level: 'loud' }),
      log({ timestamp: '2026-11-22T11:43:34+01:00' })];
    const normalize = builtLogNormalizer(envelope);
    for (const item of items) {
      if (item['clientTimestamp'] === undefined) delete item['clientTimestamp'];
      expect(normalize(item)).toEqual(normalizeLog(copy(item), envelope));
    }
  });
});
