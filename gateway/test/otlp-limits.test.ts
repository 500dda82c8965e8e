import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import protobuf from 'protobufjs';
import { createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';
import { expectJsonStatus, hex, logsRequest, otlpLog, otlpSpan, sendOtlp, str, tracesRequest } from './otlp-helpers.js';
import { binary, bodyBytes, decodeStatus, decodeTracesResponse, encodeTraces } from './otlp-protobuf.js';

const MiB = 1024 * 1024;

/** A length-delimited protobuf field: its tag, the length, the bytes. */
const field = (n: number, bytes: Uint8Array): Buffer => Buffer.concat([protobuf.Writer.create().uint32((n << 3) | 2).uint32(bytes.length).finish(), bytes]);
/** An ExportTraceServiceRequest of one resource and one scope whose `spans` bytes are given as they are. */
const tracesOfSpanBytes = (spans: Buffer): Buffer => field(1, field(2, spans));
const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => str(`${prefix}.${i}`, 'v'));

/** A JSON array text of `item` repeated until the text is about `bytes` long. */
function repeated(item: string, bytes: number): string {
  return `[${Array(Math.floor(bytes / (item.length + 1))).fill(item).join(',')}]`;
}

describe('OTLP bounds: hostile bodies are answered quickly', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'otlp-limits');
  });
  afterAll(() => l.stop());

  it('a 5 MiB OTLP/JSON body of ~500k invalid attributes is a 400 within 5 s (validation stops at the first error)', async () => {
    const body = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","attributes":${repeated('{"key":1}', 5 * MiB - 200)}}]}]}]}`;
    expect(body.length).toBeLessThanOrEqual(5 * MiB);
    const started = Date.now();
    const res = await sendOtlp(l, '/v1/traces', t.apiKey, body);
    expectJsonStatus(res, 400, 3);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a JSON body of more than 10,000 spans is a 400 counted before the schema runs (the items need not be valid)', async () => {
    const body = `{"resourceSpans":[{"scopeSpans":[{"spans":${repeated('{"name":1}', 200_000)}}]}]}`;
    const res = await sendOtlp(l, '/v1/traces', t.apiKey, body);
    expectJsonStatus(res, 400, 3);
    expect(res.body.message).toMatch(/holds 18181 spans; at most 10000/);
  });

  it('2.6M empty protobuf spans (12 00) are a 400 as soon as the 10,001st is read, within 5 s', async () => {
    const spans = Buffer.alloc(5 * MiB - 16);
    for (let i = 0; i + 1 < spans.length; i += 2) spans[i] = 0x12;
    const started = Date.now();
    const res = await binary(sendOtlp(l, '/v1/traces', t.apiKey, tracesOfSpanBytes(spans)));
    expect(res.status).toBe(400);
    expect(decodeStatus(bodyBytes(res))).toMatchObject({ code: 3, message: expect.stringMatching(/more than 10000 spans; at most 10000/) });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a protobuf span with ~2.6M empty attributes (4a 00) is rejected (counted, with the reason), not the request', async () => {
    const valid = encodeTraces(tracesRequest([otlpSpan()]));
    const ids = Buffer.concat([field(1, Buffer.from(hex(16), 'hex')), field(2, Buffer.from(hex(8), 'hex'))]);
    const start = Buffer.concat([Buffer.from([0x39]), Buffer.from(new BigUint64Array([1_772_359_200_000_000_000n]).buffer)]);
    const attrs = Buffer.alloc(5 * MiB - 300);
    for (let i = 0; i + 1 < attrs.length; i += 2) attrs[i] = 0x4a;
    const hostile = tracesOfSpanBytes(field(2, Buffer.concat([ids, start, attrs])));
    const started = Date.now();
    const res = await binary(sendOtlp(l, '/v1/traces', t.apiKey, Buffer.concat([valid, hostile])));
    expect(res.status).toBe(200);
    expect(decodeTracesResponse(bodyBytes(res))).toEqual({ partialSuccess: { rejectedSpans: '1', errorMessage: expect.stringContaining('the span has more than 1000 attributes') } });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it.each([
    ['a span with 1,001 attributes', [otlpSpan({ attributes: many(1001, 'a') })], 'the span has more than 1000 attributes'],
    ['a span with 1,001 events', [otlpSpan({ events: Array.from({ length: 1001 }, () => ({ name: 'e' })) })], 'the span has more than 1000 events'],
    ['a span with 1,001 links', [otlpSpan({ links: Array.from({ length: 1001 }, () => ({ traceId: hex(16), spanId: hex(8) })) })], 'the span has more than 1000 links'],
    ['an event with 1,001 attributes', [otlpSpan({ events: [{ name: 'e', attributes: many(1001, 'e') }] })], 'an event has more than 1000 attributes'],
    ['a link with 1,001 attributes', [otlpSpan({ links: [{ traceId: hex(16), spanId: hex(8), attributes: many(1001, 'l') }] })], 'a link has more than 1000 attributes'],
    ['a span over 1 MiB of text', [otlpSpan({ attributes: Array.from({ length: 20 }, (_, i) => str(`big.${i}`, 'x'.repeat(60_000))) })], 'more than 1 MiB of text'],
  ])('%s is rejected with the reason; its sibling is stored', async (_label, spans, reason) => {
    const res = await sendOtlp(l, '/v1/traces', t.apiKey, tracesRequest([otlpSpan(), ...spans])).expect(200);
    expect(res.body).toEqual({ partialSuccess: { rejectedSpans: '1', errorMessage: expect.stringContaining(reason) } });
  });

  it.each([
    ['1,001 resource attributes', { attributes: many(1001, 'r') }, undefined, 'the resource has more than 1000 attributes'],
    ['1,001 scope attributes', undefined, { name: 's', attributes: many(1001, 's') }, 'the scope has more than 1000 attributes'],
    ['a resource over 64 KiB of text', { attributes: [str('a', 'x'.repeat(40_000)), str('b', 'y'.repeat(40_000))] }, undefined, 'its resource and scope hold more than 64 KiB of text'],
  ])('%s rejects every span under it, counted, with the reason', async (_label, resource, scope, reason) => {
    const body = { resourceSpans: [{ ...(resource ? { resource } : {}), scopeSpans: [{ ...(scope ? { scope } : {}), spans: [otlpSpan(), otlpSpan(), otlpSpan()] }] }] };
    const res = await sendOtlp(l, '/v1/traces', t.apiKey, body).expect(200);
    expect(res.body).toEqual({ partialSuccess: { rejectedSpans: '3', errorMessage: expect.stringContaining(reason) } });
  });

  it('a log record with 1,001 attributes is rejected with the reason; its sibling is stored', async () => {
    const res = await sendOtlp(l, '/v1/logs', t.apiKey, logsRequest([otlpLog(), otlpLog({ attributes: many(1001, 'a') })])).expect(200);
    expect(res.body).toEqual({ partialSuccess: { rejectedLogRecords: '1', errorMessage: expect.stringContaining('the log record has more than 1000 attributes') } });
  });
});
