import { randomUUID } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { createTenancy, log, logBatch, span, startLantern, traceBatch, type Lantern, type Tenancy } from './harness.js';
import { logs, sendLogs, sendTraces, spanIdsOf, traces } from './telemetry-helpers.js';

/**
 * Hostile ingest bodies the other ingest suites leave out (ingest.test.ts, ingest-items.test.ts): prototype
 * and operator keys on the envelope, operators as envelope values, plain and deflate bodies over 5 MiB,
 * strings over 64 KiB and keys of every kind in unknown fields, hostile nesting depth, out-of-range numbers
 * and dates, hostile API keys. Refused envelopes store nothing; in a mixed batch only the valid items are
 * stored, the others are listed in `rejected` with their index (read back through the API).
 */

const MiB = 1024 * 1024;
const now = () => new Date().toISOString();

type Kind = 'traces' | 'logs';
const send = (l: Lantern, key: string, kind: Kind, body: object | string | Buffer, headers: Record<string, string> = {}) =>
  (kind === 'traces' ? sendTraces : sendLogs)(l, key, body, headers);
const item = (kind: Kind, overrides: Record<string, unknown> = {}) => (kind === 'traces' ? span(overrides) : log(overrides));

describe('ingest: hostile envelopes are refused whole', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'hostile-env');
  });
  afterAll(() => l.stop());

  /** Raw envelopes, each carrying one valid item `V` (spliced in as JSON text). */
  const envelopes = (kind: Kind): Array<[string, (v: string) => string]> => [
    ['a "__proto__" key', (v) => `{"__proto__":{"isAdmin":true},"timestamp":"${now()}","${kind}":[${v}]}`],
    ['a "constructor" key', (v) => `{"constructor":{"prototype":{"isAdmin":true}},"timestamp":"${now()}","${kind}":[${v}]}`],
    ['a "$where" key', (v) => `{"$where":"sleep(1000)","timestamp":"${now()}","${kind}":[${v}]}`],
    ['a "\\u0024set" key', (v) => `{"\\u0024set":{"projectId":1},"timestamp":"${now()}","${kind}":[${v}]}`],
    ['an operator as the timestamp', (v) => `{"timestamp":{"$gt":""},"${kind}":[${v}]}`],
    ['an operator as the item list', () => `{"timestamp":"${now()}","${kind}":{"$gt":""}}`],
    ['null as the item list', () => `{"timestamp":"${now()}","${kind}":null}`],
    ['null as the timestamp', (v) => `{"timestamp":null,"${kind}":[${v}]}`],
    ['a timestamp over 64 characters', (v) => `{"timestamp":"2026-03-01T10:00:00.${'0'.repeat(70)}Z","${kind}":[${v}]}`],
    ['a timestamp past year 9999 in UTC', (v) => `{"timestamp":"9999-12-31T23:00:00-05:00","${kind}":[${v}]}`],
    ['a timestamp before year 0000 in UTC', (v) => `{"timestamp":"0000-01-01T00:00:00+01:00","${kind}":[${v}]}`],
    ['an extra envelope field nested deeply', (v) => `{"meta":${'['.repeat(5000)}${']'.repeat(5000)},"timestamp":"${now()}","${kind}":[${v}]}`],
    ['a body that is a JSON number', () => '1e400'],
    ['the item list nested in itself', (v) => `{"timestamp":"${now()}","${kind}":[[${v}]]}`],
  ];

  for (const kind of ['traces', 'logs'] as const) {
    it.each(envelopes(kind))(`POST /ingest/${kind} with %s: 400 validation_failed, nothing stored`, async (_label, raw) => {
      const valid = item(kind);
      const res = await send(l, t.apiKey, kind, raw(JSON.stringify(valid)));
      expectError(res, 400, 'validation_failed');
      expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
    });
  }

  it('stored nothing of any refused envelope', async () => {
    expect(await traces(l, t)).toEqual([]);
    expect(await logs(l, t)).toEqual([]);
  });

  it.each([
    ['an operator object as text', '{"$gt":""}'],
    ['an array as text', '["lk_"]'],
    ['SQL', "lk_' OR '1'='1"],
    ['a very long key', `lk_${'A'.repeat(5000)}`],
  ])('answers 401 to %s in x-api-key and stores nothing', async (_label, key) => {
    expectError(await sendTraces(l, key, traceBatch([span()])), 401, 'unauthorized');
    expectError(await sendLogs(l, key, logBatch([log()])), 401, 'unauthorized');
    expect(await traces(l, t)).toEqual([]);
  });
});

describe('ingest: bodies over 5 MiB', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'hostile-size');
  });
  afterAll(() => l.stop());

  /** A batch whose JSON text is just over 5 MiB (60,000-character messages or span fields). */
  const oversized = (kind: Kind) => {
    const n = Math.ceil((5 * MiB) / 60_000) + 1;
    const text = JSON.stringify(kind === 'traces'
      ? traceBatch(Array.from({ length: n }, () => span({ pad: 'x'.repeat(60_000) })))
      : logBatch(Array.from({ length: n }, () => log({ message: 'm'.repeat(60_000) }))));
    expect(text.length).toBeGreaterThan(5 * MiB);
    return text;
  };

  for (const kind of ['traces', 'logs'] as const) {
    it(`POST /ingest/${kind}: a plain body over 5 MiB is 413 payload_too_large`, async () => {
      expectError(await send(l, t.apiKey, kind, oversized(kind)), 413, 'payload_too_large');
    });

    it(`POST /ingest/${kind}: a deflate body inflating beyond 5 MiB is 413 payload_too_large`, async () => {
      const packed = deflateSync(oversized(kind));
      expect(packed.length).toBeLessThan(MiB);
      expectError(await send(l, t.apiKey, kind, packed, { 'Content-Encoding': 'deflate' }), 413, 'payload_too_large');
    });

    it(`POST /ingest/${kind}: a gzip bomb of 50 MiB of zeros in one string is 413, not a crash`, async () => {
      const head = kind === 'traces' ? `{"timestamp":"${now()}","traces":[{"pad":"` : `{"timestamp":"${now()}","logs":[{"message":"`;
      const bomb = gzipSync(Buffer.concat([Buffer.from(head), Buffer.alloc(50 * MiB, 0x30), Buffer.from('"}]}')]));
      expect(bomb.length).toBeLessThan(MiB);
      expectError(await send(l, t.apiKey, kind, bomb, { 'Content-Encoding': 'gzip' }), 413, 'payload_too_large');
    });
  }

  it('stored nothing of the oversized bodies, and still ingests', async () => {
    expect(await traces(l, t)).toEqual([]);
    expect(await logs(l, t)).toEqual([]);
    await sendTraces(l, t.apiKey, gzipSync(JSON.stringify(traceBatch([span()]))), { 'Content-Encoding': 'gzip' }).expect(200, { accepted: 1, rejected: [] });
  });
});

describe('ingest: hostile items in a mixed batch', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'hostile-items');
  });
  afterAll(() => l.stop());

  const deep = (levels: number): unknown => {
    let v: unknown = 'bottom';
    for (let i = 0; i < levels; i++) v = { d: v };
    return v;
  };

  /** [label, overrides of a valid item, the fragment its error must name, or null when the item is valid]. */
  const cases = (kind: Kind): Array<[string, Record<string, unknown>, string | null]> => [
    ['a valid item', {}, null],
    ['a string over 64 KiB in an unknown field', { note: 'n'.repeat(65_537) }, '/note'],
    ['a string over 64 KiB deep in an unknown field', { meta: { list: [{ text: 'n'.repeat(65_537) }] } }, '/meta/list/0/text'],
    ['a string of exactly 64 KiB in an unknown field', { note: 'n'.repeat(65_536) }, null],
    ['an operator key deep in an unknown field', { meta: { where: [{ $gt: '' }] } }, '$gt'],
    ['an operator object as the timestamp', { timestamp: { $gt: '' } }, '/timestamp'],
    ['a key with a NUL', { meta: { 'a\u0000b': 1 } }, 'not an allowed field name'],
    ['a key of 300 characters', { meta: { ['k'.repeat(300)]: 1 } }, 'too long'],
    ['nesting 17 levels deep', { meta: deep(16) }, 'nested deeper'],
    ['nesting 15 levels deep', { meta: deep(14) }, null],
    ['nesting 40 levels deep (under the whole body\'s bound of 64)', { meta: deep(40) }, 'nested deeper'],
    ['a timestamp past year 9999 in UTC', { timestamp: '9999-12-31T23:30:00-01:00' }, '/timestamp'],
    ['a timestamp before year 0000 in UTC', { timestamp: '0000-01-01T00:30:00+01:00' }, '/timestamp'],
    ['the last instant of year 9999', { timestamp: '9999-12-31T23:59:59.999Z' }, null],
    ['the first instant of year 0000', { timestamp: '0000-01-01T00:00:00.000Z' }, null],
    ['the leap day of year 0000 (proleptic Gregorian)', { timestamp: '0000-02-29T12:00:00Z' }, null],
    ['the 29th of February of year 0100 (not a leap year)', { timestamp: '0100-02-29T12:00:00Z' }, '/timestamp'],
    ...(kind === 'traces'
      ? ([
          ['durationMs 2^31', { durationMs: 2_147_483_648 }, '/durationMs'],
          ['durationMs 2^31 - 1', { durationMs: 2_147_483_647 }, null],
          ['durationMs as a numeric string', { durationMs: '12' }, '/durationMs'],
          ['responseStatus -200', { responseStatus: -200 }, '/responseStatus'],
          ['an operator object as spanId', { spanId: { $ne: null } }, '$ne'],
          ['an array as requestMethod', { requestMethod: ['controller:GET'] }, '/requestMethod'],
          ['a requestMethod of an unknown upper-case type', { requestMethod: 'SQL:select' }, '/requestMethod'],
          ['a requestMethod over 1,024 characters', { requestMethod: `controller:${'G'.repeat(1100)}` }, '/requestMethod'],
        ] as Array<[string, Record<string, unknown>, string | null]>)
      : ([
          ['an unknown level', { level: 'emergency' }, '/level'],
          ['an operator object as level', { level: { $in: ['error'] } }, '$in'],
          ['a type over 32 characters', { type: 'a'.repeat(33) }, '/type'],
          ['a message as an array', { message: ['a', 'b'] }, '/message'],
          ['a null message', { message: null }, '/message'],
          ['a message of exactly 64 KiB', { message: 'm'.repeat(65_536) }, null],
        ] as Array<[string, Record<string, unknown>, string | null]>)),
  ];

  for (const kind of ['traces', 'logs'] as const) {
    it(`POST /ingest/${kind} stores the valid items only and lists the hostile ones with index and errors`, async () => {
      const table = cases(kind);
      const items = table.map(([, overrides], i) => item(kind, { ...overrides, ...(kind === 'logs' && !('message' in overrides) ? { message: `case ${i}` } : {}) }));
      const res = await send(l, t.apiKey, kind, { timestamp: now(), [kind]: items }).expect(200);
      const invalid = table.map(([label, , error], index) => ({ label, index, error })).filter((c) => c.error !== null);
      expect(res.body.accepted).toBe(table.length - invalid.length);
      expect(res.body.rejected.map((r: { index: number }) => r.index)).toEqual(invalid.map((c) => c.index));
      for (const [i, r] of (res.body.rejected as Array<{ index: number; errors: string[] }>).entries()) {
        expect(Object.keys(r).sort()).toEqual(['errors', 'index']);
        expect({ case: invalid[i]!.label, errors: r.errors.join(' | ') }).toEqual({ case: invalid[i]!.label, errors: expect.stringContaining(invalid[i]!.error!) });
      }
      // Read back: exactly the valid items are stored.
      const validIndexes = table.map(([, , error], i) => (error === null ? i : -1)).filter((i) => i >= 0);
      if (kind === 'traces') {
        const stored = await traces(l, t);
        expect(spanIdsOf(stored)).toEqual(validIndexes.map((i) => items[i]!['spanId'] as string).sort());
        for (const record of stored) for (const s of record.telemetry) expect(s.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      } else {
        const stored = await logs(l, t);
        expect(stored.map((e) => e.message).sort()).toEqual(validIndexes.map((i) => items[i]!['message'] as string).sort());
        for (const e of stored) expect(e.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      }
    });
  }

  it('refuses the whole batch (400, nothing stored) when one item nests past the body\'s bound, before parsing', async () => {
    const before = (await traces(l, t)).length;
    for (const kind of ['traces', 'logs'] as const) {
      const res = await send(l, t.apiKey, kind, { timestamp: now(), [kind]: [item(kind), item(kind, { meta: deep(3000) })] });
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.message).toContain('nested deeper than 64 levels');
    }
    expect((await traces(l, t)).length).toBe(before);
  });

  it('answers 200 for a batch of 10,000 hostile items, rejecting each, storing none', async () => {
    const before = (await traces(l, t)).length;
    const res = await sendTraces(l, t.apiKey, traceBatch(Array.from({ length: 10_000 }, () => ({ traceId: { $gt: '' } })))).expect(200);
    expect(res.body.accepted).toBe(0);
    expect(res.body.rejected).toHaveLength(10_000);
    expect(res.body.rejected[9_999].index).toBe(9_999);
    expect((await traces(l, t)).length).toBe(before);
  });

  it('keeps an item\'s own projectId/applicationId/id fields from steering where it is stored', async () => {
    const traceId = randomUUID();
    await sendTraces(l, t.apiKey, traceBatch([span({ traceId, projectId: 999_999, applicationId: 999_999, id: 'chosen' })])).expect(200, { accepted: 1, rejected: [] });
    const [record] = await traces(l, t, { traceId });
    expect(record).toMatchObject({ projectId: t.projectId, applicationId: t.applicationId });
    expect(record!.id).not.toBe('chosen');
  });
});
