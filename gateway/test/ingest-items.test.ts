import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ISO_MS } from './accounts-helpers.js';
import { createTenancy, log, span, startLantern, type Lantern, type Tenancy } from './harness.js';
import { logs, sendLogs, sendTraces, spanIdsOf, traceIdsOf, traces } from './telemetry-helpers.js';

/** One item of a mixed batch: valid, or invalid with a fragment its error must contain. */
type Case = [label: string, item: Record<string, unknown>, expectError: string | null];

const PROTO = '__PROTO_PLACEHOLDER__';
const CONSTRUCTOR = '__CONSTRUCTOR_PLACEHOLDER__';

/** The batch as JSON text: placeholders become `__proto__` / `constructor` keys a JS object literal could not carry. */
function rawBatch(key: 'traces' | 'logs', items: unknown[], timestamp = new Date().toISOString()): string {
  return JSON.stringify({ timestamp, [key]: items }).replaceAll(`"${PROTO}"`, '"__proto__"').replaceAll(`"${CONSTRUCTOR}"`, '"constructor"');
}

/** Sends the cases as one batch; expects 200 with the invalid ones rejected at their indexes, errors naming the problem. */
async function expectPartial(send: (raw: string) => Promise<{ status: number; body: { accepted: number; rejected: Array<{ index: number; errors: string[] }> } }>, key: 'traces' | 'logs', cases: Case[]) {
  const res = await send(rawBatch(key, cases.map(([, item]) => item)));
  expect(res.status).toBe(200);
  const invalid = cases.map(([label, , error], index) => ({ label, index, error })).filter((c) => c.error !== null);
  expect(res.body.accepted).toBe(cases.length - invalid.length);
  expect(res.body.rejected.map((r) => r.index)).toEqual(invalid.map((c) => c.index));
  for (const [i, r] of res.body.rejected.entries()) {
    expect(r.errors.length).toBeGreaterThan(0);
    expect({ case: invalid[i]!.label, errors: r.errors.join(' | ') }).toEqual({ case: invalid[i]!.label, errors: expect.stringContaining(invalid[i]!.error!) });
  }
}

describe('ingest: partial acceptance of a mixed batch', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ing-items');
  });
  afterAll(() => l.stop());

  it('stores the valid spans and lists each invalid one with its index and errors', async () => {
    const { spanId: _omit, ...withoutSpanId } = span();
    const cases: Case[] = [
      ['a valid span', span(), null],
      ['a span without spanId', withoutSpanId, '/spanId'],
      ['a traceId that is not a UUID', span({ traceId: 'not-a-uuid' }), '/traceId'],
      ['a traceId with a urn:uuid: prefix', span({ traceId: `urn:uuid:${randomUUID()}` }), '/traceId'],
      ['a spanId without dashes', span({ spanId: randomUUID().replaceAll('-', '') }), '/spanId'],
      ['a parentSpanId in braces', span({ parentSpanId: `{${randomUUID()}}` }), '/parentSpanId'],
      ['a requestURL of exactly 65,536 characters', span({ requestURL: `/${'u'.repeat(65_535)}` }), null],
      ['responseStatus 600', span({ responseStatus: 600 }), '/responseStatus'],
      ['responseStatus 99', span({ responseStatus: 99 }), '/responseStatus'],
      ['responseStatus as text', span({ responseStatus: '200' }), '/responseStatus'],
      ['durationMs -1', span({ durationMs: -1 }), '/durationMs'],
      ['durationMs 1e12', span({ durationMs: 1e12 }), '/durationMs'],
      ['durationMs 1.5', span({ durationMs: 1.5 }), '/durationMs'],
      ['requestMethod without a colon', span({ requestMethod: 'GET' }), '/requestMethod'],
      ['requestMethod with an upper-case type', span({ requestMethod: 'Controller:GET' }), '/requestMethod'],
      ['a string over 65,536 characters', span({ requestURL: `/${'u'.repeat(65_536)}` }), '/requestURL'],
      ['an operator object as traceId', span({ traceId: { $gt: '' } }), '$gt'],
      ['a __proto__ key', span({ [PROTO]: { polluted: true } }), '__proto__'],
      ['a constructor key', span({ [CONSTRUCTOR]: { prototype: { polluted: true } } }), 'constructor'],
      ['a $where key in unknown nested fields', span({ meta: { filter: { $where: 'sleep(5000)' } } }), '$where'],
      ['a dotted key in unknown fields', span({ meta: { 'a.b': 1 } }), 'a.b'],
      ['a timestamp without an offset', span({ timestamp: '2026-11-22T10:43:34.123' }), '/timestamp'],
      ['a parentSpanId that is not a UUID', span({ parentSpanId: 'parent' }), '/parentSpanId'],
      ['unknown extra fields nested 3 deep', span({ custom: { region: 'eu', tags: ['a', 'b'], deep: { x: 1 } } }), null],
      ['a valid child span', span({ parentSpanId: randomUUID(), requestMethod: 'service:loadCart' }), null],
    ];
    await expectPartial((raw) => sendTraces(l, t.apiKey, raw), 'traces', cases);

    const valid = cases.filter(([, , e]) => e === null).map(([, item]) => item);
    const stored = await traces(l, t);
    expect(traceIdsOf(stored)).toEqual(valid.map((s) => s['traceId'] as string).sort());
    expect(spanIdsOf(stored)).toEqual(valid.map((s) => s['spanId'] as string).sort());
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('stores the valid logs and lists each invalid one', async () => {
    const { message: _omit, ...withoutMessage } = log();
    const { level: _omitLevel, ...withoutLevel } = log();
    const cases: Case[] = [
      ['a valid log', log({ message: 'valid 0' }), null],
      ['level "critical"', log({ level: 'critical' }), '/level'],
      ['level in upper case', log({ level: 'ERROR' }), '/level'],
      ['no message', withoutMessage, '/message'],
      ['no level', withoutLevel, '/level'],
      ['a traceId that is not a UUID', log({ traceId: 'abc' }), '/traceId'],
      ['a traceId with a urn:uuid: prefix', log({ traceId: `urn:uuid:${randomUUID()}` }), '/traceId'],
      ['a valid log with a traceId', log({ message: 'valid 6', traceId: randomUUID() }), null],
      ['a type that is not a lower-case word', log({ type: 'App Log' }), '/type'],
      ['a clientTimestamp without an offset', log({ clientTimestamp: '2026-11-22T10:00:00' }), '/clientTimestamp'],
      ['a message that is not text', log({ message: 42 }), '/message'],
      ['a message over 65,536 characters', log({ message: 'm'.repeat(65_537) }), '/message'],
      ['a $ne key', log({ context: { user: { $ne: null } } }), '$ne'],
      ['a __proto__ key', log({ [PROTO]: { polluted: true } }), '__proto__'],
      ['a valid trace-level log', log({ message: 'valid 14', level: 'trace' }), null],
    ];
    await expectPartial((raw) => sendLogs(l, t.apiKey, raw), 'logs', cases);
    const stored = await logs(l, t);
    expect(stored.map((x) => x.message).sort()).toEqual(['valid 0', 'valid 14', 'valid 6']);
  });

  it('answers 200 with accepted 0 when every item is invalid, and stores nothing', async () => {
    const before = (await traces(l, t)).length;
    const res = await sendTraces(l, t.apiKey, rawBatch('traces', [{}, span({ spanId: 'x' })])).expect(200);
    expect(res.body.accepted).toBe(0);
    expect(res.body.rejected.map((r: { index: number }) => r.index)).toEqual([0, 1]);
    expect((await traces(l, t)).length).toBe(before);
  });

  it('an empty batch is valid: 200 {accepted: 0, rejected: []}', async () => {
    await sendTraces(l, t.apiKey, rawBatch('traces', [])).expect(200, { accepted: 0, rejected: [] });
    await sendLogs(l, t.apiKey, rawBatch('logs', [])).expect(200, { accepted: 0, rejected: [] });
  });
});

describe('ingest: normalisation', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ing-norm');
  });
  afterAll(() => l.stop());

  it('returns spans with UTC millisecond timestamps, lower-case ids and every extra field kept', async () => {
    const traceId = randomUUID().toUpperCase();
    const rootId = randomUUID().toUpperCase();
    const root = span({ traceId, spanId: rootId, timestamp: '2026-11-22T12:43:34.1+02:00', custom: { region: 'eu', tags: ['a', 'b'], n: null }, userAgent: 'curl/8' });
    const child = span({ traceId, parentSpanId: rootId, requestMethod: 'external:payments', timestamp: '2026-11-22T05:43:34.123456-0500' });
    const other = span({ traceId, parentSpanId: rootId, requestMethod: 'queue:publish', timestamp: '2026-11-22t10:43:35z' });
    await sendTraces(l, t.apiKey, rawBatch('traces', [other, root, child])).expect(200, { accepted: 3, rejected: [] });

    const [record, ...rest] = await traces(l, t);
    expect(rest).toEqual([]);
    expect(record).toMatchObject({ traceId: traceId.toLowerCase(), timestamp: '2026-11-22T10:43:34.100Z', applicationId: t.applicationId, projectId: t.projectId });
    const lower = { traceId: traceId.toLowerCase() };
    expect(record!.telemetry).toEqual([
      { ...root, ...lower, spanId: rootId.toLowerCase(), timestamp: '2026-11-22T10:43:34.100Z' },
      { ...child, ...lower, spanId: (child['spanId'] as string).toLowerCase(), parentSpanId: rootId.toLowerCase(), timestamp: '2026-11-22T10:43:34.123Z' },
      { ...other, ...lower, spanId: (other['spanId'] as string).toLowerCase(), parentSpanId: rootId.toLowerCase(), timestamp: '2026-11-22T10:43:35.000Z' },
    ]);
  });

  it('treats an absent parentSpanId as a root (returned as null)', async () => {
    const { parentSpanId: _omit, ...root } = span();
    await sendTraces(l, t.apiKey, rawBatch('traces', [root])).expect(200);
    const record = (await traces(l, t, { traceId: root['traceId'] as string }))[0]!;
    expect(record.telemetry[0]!.parentSpanId).toBeNull();
  });

  it('returns logs with the defaults (type app, clientTimestamp = envelope timestamp) and normalised times and ids', async () => {
    const traceId = randomUUID().toUpperCase();
    const { type: _omit, ...untyped } = log({ message: 'defaults', timestamp: '2026-11-22T10:00:00.5+01:00', traceId, extra: { k: 'v' } });
    const explicit = log({ message: 'explicit', type: 'audit', level: 'warn', timestamp: '2026-11-22T09:00:00Z', clientTimestamp: '2026-11-22T10:00:01.9999+01:00' });
    const res = await sendLogs(l, t.apiKey, rawBatch('logs', [untyped, explicit], '2026-11-22T12:30:00.25+02:00')).expect(200);
    expect(res.body).toEqual({ accepted: 2, rejected: [] });

    const stored = await logs(l, t);
    const byMessage = Object.fromEntries(stored.map((x) => [x.message, x]));
    const ids = { id: expect.any(String), projectId: t.projectId, applicationId: t.applicationId };
    expect(byMessage['defaults']).toEqual({
      ...ids, level: 'error', type: 'app', message: 'defaults', traceId: traceId.toLowerCase(), extra: { k: 'v' },
      timestamp: '2026-11-22T09:00:00.500Z', clientTimestamp: '2026-11-22T10:30:00.250Z',
    });
    expect(byMessage['explicit']).toEqual({
      ...ids, level: 'warn', type: 'audit', message: 'explicit', timestamp: '2026-11-22T09:00:00.000Z', clientTimestamp: '2026-11-22T09:00:01.999Z',
    });
    for (const x of stored) {
      expect(x.timestamp).toMatch(ISO_MS);
      expect(x.clientTimestamp).toMatch(ISO_MS);
    }
  });
});
