import { describe, expect, it } from '@jest/globals';
import type { Span } from '../src/api/types';
import { hasErrorStatus, isKeyValueList, otelView, scopeText, spanLabel, spanService, valueText } from '../src/lib/otel-span';
import { isErrorSpan, layoutTrace } from '../src/lib/waterfall';

const T = '2026-11-26T10:00:00.000Z';
const lantern = (over: Partial<Span> = {}): Span => ({
  traceId: 't', spanId: 's', parentSpanId: null, timestamp: T, requestMethod: 'controller:GET', requestURL: '/cart', responseStatus: 200, durationMs: 12, ...over,
});
/** A span as POST /v1/traces stores an OTLP SERVER span (docs/opentelemetry.md, the mapping table). */
const otel = (over: Partial<Span> = {}): Span => lantern({
  name: 'GET /users/:id',
  kind: 'server',
  serviceName: 'checkout',
  attributes: [{ key: 'http.request.method', value: 'GET' }, { key: 'http.response.status_code', value: 200 }, { key: 'retry', value: true }],
  resource: [{ key: 'service.name', value: 'checkout' }, { key: 'telemetry.sdk.language', value: 'python' }],
  scope: { name: 'opentelemetry.instrumentation.flask', version: '0.48b0' },
  status: { code: 'error', message: 'card declined' },
  events: [
    { name: 'cache miss', timestamp: '2026-11-26T10:00:00.004Z' },
    {
      name: 'exception', timestamp: '2026-11-26T10:00:00.010Z', attributes: [
        { key: 'exception.type', value: 'ValueError' },
        { key: 'exception.message', value: 'card declined' },
        { key: 'exception.stacktrace', value: 'Traceback (most recent call last):\n  File "app.py", line 3' },
        { key: 'exception.escaped', value: false },
      ],
    },
  ],
  links: [{ traceId: '0af76519-16cd-43dd-8448-eb211c80319c', spanId: 'b7ad6b71-6920-3317-0000-000000000000', attributes: [{ key: 'why', value: 'batch' }] }],
  ...over,
});

describe('otelView', () => {
  it('reads every OpenTelemetry field of an OTLP-mapped span, and lists them as shown', () => {
    const v = otelView(otel());
    expect(v.kind).toBe('server');
    expect(v.status).toEqual({ code: 'error', message: 'card declined' });
    expect(v.scope).toEqual({ name: 'opentelemetry.instrumentation.flask', version: '0.48b0', attributes: [] });
    expect(v.attributes!.map((a) => a.key)).toEqual(['http.request.method', 'http.response.status_code', 'retry']);
    expect(v.resource).toHaveLength(2);
    expect(v.links).toEqual([{ traceId: '0af76519-16cd-43dd-8448-eb211c80319c', spanId: 'b7ad6b71-6920-3317-0000-000000000000', attributes: [{ key: 'why', value: 'batch' }] }]);
    expect([...v.shown].sort()).toEqual(['attributes', 'events', 'kind', 'links', 'name', 'resource', 'scope', 'serviceName', 'status']);
  });

  it('times events from the span start and reads an exception event\'s type, message and stack trace', () => {
    const [miss, ex] = otelView(otel()).events!;
    expect(miss).toEqual({ name: 'cache miss', timestamp: '2026-11-26T10:00:00.004Z', offsetMs: 4, attributes: [] });
    expect(ex!.offsetMs).toBe(10);
    expect(ex!.exception).toEqual({ type: 'ValueError', message: 'card declined', stacktrace: 'Traceback (most recent call last):\n  File "app.py", line 3' });
    // the three read into `exception` are not repeated among its attributes; the others stay
    expect(ex!.attributes).toEqual([{ key: 'exception.escaped', value: false }]);
  });

  it('shows nothing for a Lantern SDK span, which has none of these fields', () => {
    const v = otelView(lantern({ userId: 42, cart: { items: 3 } }));
    expect(v.shown.size).toBe(0);
    expect(v).toEqual({ shown: new Set() });
  });

  it('leaves a field that is not of the OTLP-mapped shape among the other fields', () => {
    const v = otelView(lantern({
      status: 'shipped', kind: 'premium', attributes: { color: 'red' }, resource: ['a'], scope: { version: '1' },
      events: [{ name: 'ok' }, 'not an event'], links: [{ traceId: 'x' }],
    }));
    expect(v.shown.size).toBe(0);
    expect(v.status ?? v.kind ?? v.attributes ?? v.resource ?? v.scope ?? v.events ?? v.links).toBeUndefined();
  });

  it('takes a status without a message, and an event whose time or span start is unreadable', () => {
    const v = otelView(otel({ status: { code: 'ok' }, timestamp: 'not a time' }));
    expect(v.status).toEqual({ code: 'ok' });
    expect(v.events![0]!.offsetMs).toBeUndefined();
  });
});

describe('labels and values', () => {
  it('labels a span by its OpenTelemetry name, else by the name part of requestMethod', () => {
    expect(spanLabel(otel())).toBe('GET /users/:id');
    expect(spanLabel(lantern())).toBe('GET');
    expect(spanLabel(lantern({ name: '' }))).toBe('GET');
  });

  it('labels a server span named by its method alone with its route too, from Lantern\'s route or http.route', () => {
    expect(spanLabel(lantern({ requestMethod: 'controller:POST', route: '/charge' }))).toBe('POST /charge');
    const bare = otel({ name: 'POST', attributes: [{ key: 'http.route', value: '/orders/:id' }] });
    expect(spanLabel(bare)).toBe('POST /orders/:id');
    // Already named with its route, or not a server span, or no route: as it is.
    expect(spanLabel(otel({ attributes: [{ key: 'http.route', value: '/users/:id' }] }))).toBe('GET /users/:id');
    expect(spanLabel(otel({ name: 'POST', kind: 'client', requestMethod: 'external:api', attributes: [{ key: 'http.route', value: '/x' }] }))).toBe('POST');
    expect(spanLabel(lantern({ requestMethod: 'service:loadCart', route: '/cart' }))).toBe('loadCart');
    expect(spanLabel(lantern({ requestMethod: 'controller:POST' }))).toBe('POST');
    expect(spanService(otel())).toBe('checkout');
    expect(spanService(lantern())).toBeUndefined();
  });

  it('writes values as plain JSON on one line, strings as they are', () => {
    expect(valueText('a "b"')).toBe('a "b"');
    expect(valueText(3)).toBe('3');
    expect(valueText('9007199254740993')).toBe('9007199254740993');
    expect(valueText(null)).toBe('null');
    expect(valueText([1, 'x', [true]])).toBe('[1,"x",[true]]');
    expect(valueText([{ key: 'a', value: { b: 1 } }])).toBe('[{"key":"a","value":{"b":1}}]');
  });

  it('recognises a list of {key, value} pairs (a kvlistValue) and writes a scope as name@version', () => {
    expect(isKeyValueList([{ key: 'a', value: null }, { key: 'b', value: [] }])).toBe(true);
    expect(isKeyValueList([])).toBe(true);
    expect(isKeyValueList([{ key: 'a' }])).toBe(false);
    expect(isKeyValueList([{ key: 1, value: 1 }])).toBe(false);
    expect(isKeyValueList({ key: 'a', value: 1 })).toBe(false);
    expect(scopeText({ name: 'io.opentelemetry.okhttp-3.0', version: '2.10.0-alpha', attributes: [] })).toBe('io.opentelemetry.okhttp-3.0@2.10.0-alpha');
    expect(scopeText({ name: 'manual', attributes: [] })).toBe('manual');
  });
});

describe('errors', () => {
  it('an OpenTelemetry status of ERROR makes a span an error, whatever its HTTP status', () => {
    expect(hasErrorStatus(otel())).toBe(true);
    expect(isErrorSpan(otel())).toBe(true);
    expect(isErrorSpan(otel({ status: { code: 'ok' } }))).toBe(false);
    expect(isErrorSpan(lantern({ status: 'error' }))).toBe(false);
    const layout = layoutTrace([{ id: 'r', projectId: 1, applicationId: 1, traceId: 't', timestamp: T, telemetry: [otel()] }]);
    expect(layout.rows[0]!.error).toBe(true);
  });
});
