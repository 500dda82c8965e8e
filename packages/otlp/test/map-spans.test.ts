import { describe, expect, it } from '@jest/globals';
import { mapTraces, type OtlpKeyValue, type OtlpSpan, type OtlpTracesRequest } from '../src/index.js';

const TRACE = '5b8efff798038103d269b633813fc60c';
const SPAN = 'eee19b7ec3c1b174';
const PARENT = 'eee19b7ec3c1b173';
const START = '1700000000123456789';
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
const int = (key: string, v: number | string) => ({ key, value: { intValue: v } });

function request(spans: OtlpSpan[], resource: OtlpKeyValue[] = [str('service.name', 'checkout')], scope: Record<string, unknown> = { name: 'my.lib', version: '1.2.0' }): OtlpTracesRequest {
  return { resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope, spans }] }] };
}
const base = (over: Partial<OtlpSpan> = {}): OtlpSpan => ({ traceId: TRACE, spanId: SPAN, name: 'GET /cart', kind: 2, startTimeUnixNano: START, endTimeUnixNano: '1700000000173456789', ...over });
const one = (over: Partial<OtlpSpan> = {}) => {
  const m = mapTraces(request([base(over)]));
  expect(m.rejected).toEqual([]);
  return m.items[0]!;
};
const reason = (over: Partial<OtlpSpan>) => {
  const m = mapTraces(request([base(over)]));
  expect(m.items).toEqual([]);
  return m.rejected[0];
};

describe('mapTraces: ids', () => {
  it('trace id -> uuid, span id -> 16 hex + 16 zeros, lower-cased; no parent -> null', () => {
    const s = one({ traceId: TRACE.toUpperCase() });
    expect(s['traceId']).toBe('5b8efff7-9803-8103-d269-b633813fc60c');
    expect(s['spanId']).toBe('eee19b7e-c3c1-b174-0000-000000000000');
    expect(s['parentSpanId']).toBeNull();
  });
  it('an empty or all-zero parent is a root; another parent by the span id rule', () => {
    expect(one({ parentSpanId: '' })['parentSpanId']).toBeNull();
    expect(one({ parentSpanId: '0000000000000000' })['parentSpanId']).toBeNull();
    expect(one({ parentSpanId: PARENT })['parentSpanId']).toBe('eee19b7e-c3c1-b173-0000-000000000000');
  });
  it('the lantern tracestate member whose first 16 digits are the parent gives the whole Lantern span id', () => {
    const lantern = `${PARENT}0123456789abcdef`;
    expect(one({ parentSpanId: PARENT, traceState: `other=1,lantern=${lantern}` })['parentSpanId']).toBe('eee19b7e-c3c1-b173-0123-456789abcdef');
    // A member for another parent is not used.
    expect(one({ parentSpanId: PARENT, traceState: `lantern=${'1'.repeat(32)}` })['parentSpanId']).toBe('eee19b7e-c3c1-b173-0000-000000000000');
  });
  it.each([
    ['a short trace id', { traceId: 'abc' }, 'traceId must be 32 hex digits'],
    ['an all-zero trace id', { traceId: '0'.repeat(32) }, 'traceId must not be all zeros'],
    ['a non-hex trace id', { traceId: 'z'.repeat(32) }, 'traceId must be 32 hex digits'],
    ['a missing span id', { spanId: undefined }, 'spanId must be 16 hex digits'],
    ['a 32-digit span id', { spanId: TRACE }, 'spanId must be 16 hex digits'],
    ['an all-zero span id', { spanId: '0'.repeat(16) }, 'spanId must not be all zeros'],
    ['a malformed parent', { parentSpanId: 'xyz' }, 'parentSpanId must be 16 hex digits'],
    ['no start time', { startTimeUnixNano: undefined }, 'startTimeUnixNano is required'],
    ['a zero start time', { startTimeUnixNano: '0' }, 'startTimeUnixNano is required'],
  ])('rejects %s', (_label, over, why) => {
    expect(reason(over as Partial<OtlpSpan>)).toContain(why);
  });
  it('keeps the valid spans of a request beside the rejected ones', () => {
    const m = mapTraces(request([base(), base({ spanId: '0'.repeat(16) }), base({ spanId: 'aaaaaaaaaaaaaaaa' })]));
    expect(m.items.map((s) => s['spanId'])).toEqual(['eee19b7e-c3c1-b174-0000-000000000000', 'aaaaaaaa-aaaa-aaaa-0000-000000000000']);
    expect(m.rejected).toHaveLength(1);
  });
});

describe('mapTraces: time', () => {
  it('timestamp from the start with ms, duration rounded', () => {
    const s = one();
    expect(s['timestamp']).toBe('2023-11-14T22:13:20.123Z');
    expect(s['durationMs']).toBe(50);
    expect(one({ endTimeUnixNano: '1700000000124056789' })['durationMs']).toBe(1); // 0.6 ms
    expect(one({ endTimeUnixNano: '1700000000123856789' })['durationMs']).toBe(0); // 0.4 ms
  });
  it('duration 0 when the end is absent or before the start; numbers work as int64', () => {
    expect(one({ endTimeUnixNano: undefined })['durationMs']).toBe(0);
    expect(one({ endTimeUnixNano: '1600000000000000000' })['durationMs']).toBe(0);
    expect(one({ startTimeUnixNano: 1_700_000_000_000_000_000, endTimeUnixNano: 1_700_000_001_000_000_000 })['durationMs']).toBe(1000);
  });
});

describe('mapTraces: requestMethod, requestURL, responseStatus', () => {
  it.each([
    ['SERVER with http.request.method', { kind: 2, attributes: [str('http.request.method', 'POST'), str('http.method', 'GET')] }, 'controller:POST'],
    ['SERVER with the older http.method', { kind: 'SPAN_KIND_SERVER', attributes: [str('http.method', 'GET')] }, 'controller:GET'],
    ['SERVER without a method', { kind: 2 }, 'controller:GET /cart'],
    ['CLIENT with server.address', { kind: 3, attributes: [str('server.address', 'api.example.com'), str('url.full', 'https://x.example/a')] }, 'external:api.example.com'],
    ['CLIENT with url.full', { kind: 3, attributes: [str('url.full', 'https://pay.example:8443/charge?x=1')] }, 'external:pay.example'],
    ['CLIENT with http.url', { kind: 3, attributes: [str('http.url', 'http://old.example/a')] }, 'external:old.example'],
    ['CLIENT with net.peer.name', { kind: 3, attributes: [str('url.full', 'not a url'), str('net.peer.name', 'db1')] }, 'external:db1'],
    ['CLIENT with peer.service', { kind: 3, attributes: [str('peer.service', 'billing')] }, 'external:billing'],
    ['CLIENT with nothing', { kind: 3 }, 'external:GET /cart'],
    ['INTERNAL', { kind: 1 }, 'service:GET /cart'],
    ['PRODUCER by name', { kind: 'SPAN_KIND_PRODUCER' }, 'service:GET /cart'],
    ['an unnamed internal span', { kind: 1, name: '' }, 'service:(unnamed)'],
    ['an unknown kind', { kind: 9 }, 'service:GET /cart'],
  ])('%s', (_label, over, method) => {
    expect(one(over as Partial<OtlpSpan>)['requestMethod']).toBe(method);
  });
  it('kind as a word', () => {
    expect([0, 1, 2, 3, 4, 5, 7].map((kind) => one({ kind })['kind'])).toEqual(['unspecified', 'internal', 'server', 'client', 'producer', 'consumer', 'unspecified']);
  });
  it.each([
    [[str('url.path', '/cart'), str('url.query', 'a=1'), str('http.target', '/t')], '/cart?a=1'],
    [[str('url.path', '/cart'), str('http.target', '/t')], '/cart'],
    [[str('http.target', '/t?q'), str('http.url', 'http://h/u')], '/t?q'],
    [[str('http.url', 'http://h/u'), str('url.full', 'http://h/f')], 'http://h/u'],
    [[str('url.full', 'http://h/f')], 'http://h/f'],
  ])('requestURL from %j', (attributes, url) => {
    expect(one({ attributes })['requestURL']).toBe(url);
  });
  it('no requestURL or responseStatus when no attribute gives one', () => {
    const s = one();
    expect(s).not.toHaveProperty('requestURL');
    expect(s).not.toHaveProperty('responseStatus');
  });
  it.each([
    [[int('http.response.status_code', 404)], 404],
    [[int('http.response.status_code', '503')], 503],
    [[str('http.response.status_code', '201')], 201],
    [[int('http.status_code', 200)], 200],
    [[int('http.response.status_code', 700), int('http.status_code', 302)], 302],
    [[int('http.response.status_code', 99)], undefined],
    [[str('http.response.status_code', 'ok')], undefined],
    [[{ key: 'http.response.status_code', value: { doubleValue: 200.5 } }], undefined],
  ])('responseStatus from %j', (attributes, status) => {
    expect(one({ attributes })['responseStatus']).toBe(status);
  });
});

describe('mapTraces: the other fields', () => {
  it('name, kind, serviceName, resource, scope, status, events, links, traceState', () => {
    const s = one({
      traceState: 'vendor=x',
      status: { code: 2, message: 'boom' },
      events: [{ name: 'exception', timeUnixNano: '1700000000150000000', attributes: [str('exception.type', 'Error')] }, { name: 'no time' }],
      links: [{ traceId: TRACE, spanId: PARENT, attributes: [int('n', 1)] }],
    });
    expect(s).toMatchObject({
      name: 'GET /cart', kind: 'server', serviceName: 'checkout', traceState: 'vendor=x',
      resource: [{ key: 'service.name', value: 'checkout' }],
      scope: { name: 'my.lib', version: '1.2.0' },
      status: { code: 'error', message: 'boom' },
      events: [{ name: 'exception', timestamp: '2023-11-14T22:13:20.150Z', attributes: [{ key: 'exception.type', value: 'Error' }] }, { name: 'no time', timestamp: '2023-11-14T22:13:20.123Z' }],
      links: [{ traceId: '5b8efff7-9803-8103-d269-b633813fc60c', spanId: 'eee19b7e-c3c1-b173-0000-000000000000', attributes: [{ key: 'n', value: 1 }] }],
    });
    expect(one({ status: { code: 'STATUS_CODE_OK' } })['status']).toEqual({ code: 'ok' });
  });
  it('omits what is empty: status UNSET, no events, no links, scope without a name, no resource attributes', () => {
    const m = mapTraces(request([base({ status: { code: 0, message: 'x' }, events: [], links: [] })], [], { version: '1' }));
    const s = m.items[0]!;
    for (const field of ['status', 'events', 'links', 'scope', 'resource', 'serviceName', 'attributes', 'traceState']) expect(s).not.toHaveProperty(field);
  });
  it('serviceName only when a string', () => {
    const m = mapTraces(request([base()], [int('service.name', 3)]));
    expect(m.items[0]).not.toHaveProperty('serviceName');
    expect(m.items[0]!['resource']).toEqual([{ key: 'service.name', value: 3 }]);
  });
});

describe('mapTraces: review fixes', () => {
  it('requestMethod labels: control characters become spaces, cut to 1,000 characters; name kept whole', () => {
    const sql = one({ kind: 1, name: 'SELECT *\nFROM t\r\n\tWHERE x' });
    expect(sql['requestMethod']).toBe('service:SELECT * FROM t   WHERE x');
    expect(sql['name']).toBe('SELECT *\nFROM t\r\n\tWHERE x');
    const long = 'x'.repeat(5000);
    expect(one({ kind: 1, name: long })['requestMethod']).toBe(`service:${'x'.repeat(1000)}`);
    expect(one({ kind: 1, name: long })['name']).toBe(long);
    expect(one({ kind: 2, attributes: [str('http.request.method', 'GE\nT' + 'y'.repeat(2000))] })['requestMethod']).toBe(`controller:GE T${'y'.repeat(996)}`);
    expect(one({ kind: 3, attributes: [str('server.address', 'a\u0000b')] })['requestMethod']).toBe('external:a b');
  });
  it('a link with an invalid (all-zero) context is kept with null ids and its raw hex; the span is not rejected', () => {
    const s = one({ links: [{ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceState: 'v=1', attributes: [str('why', 'batch')] }, { attributes: [int('n', 2)] }, { traceId: TRACE, spanId: 'zz' }] });
    expect(s['links']).toEqual([
      { traceId: null, spanId: null, rawTraceId: '0'.repeat(32), rawSpanId: '0'.repeat(16), traceState: 'v=1', attributes: [{ key: 'why', value: 'batch' }] },
      { traceId: null, spanId: null, attributes: [{ key: 'n', value: 2 }] },
      { traceId: '5b8efff7-9803-8103-d269-b633813fc60c', spanId: null, rawSpanId: 'zz' },
    ]);
  });
});
