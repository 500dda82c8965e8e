import { describe, expect, it } from '@jest/globals';
import { gunzipSync, gzipSync, constants } from 'node:zlib';
import { newId } from '../src/ids.js';
import { batchBody } from '../src/queue.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newId', () => {
  it('makes version 4 UUIDs, all different, across many refills of its pool', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every hex digit outside the fixed bits varies (the random bytes reach the text)', () => {
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) [...newId()].forEach((ch, at) => seen[at]!.add(ch));
    seen.forEach((chars, at) => {
      if ([8, 13, 18, 23].includes(at)) expect([...chars]).toEqual(['-']);
      else if (at === 14) expect([...chars]).toEqual(['4']);
      else if (at === 19) expect([...chars].sort()).toEqual(['8', '9', 'a', 'b']);
      else expect(chars.size).toBe(16);
    });
  });
});

describe('batchBody', () => {
  const bytesOf = (items: string[]) => items.reduce((n, i) => n + Buffer.byteLength(i), 0);
  const expected = (kind: string, items: string[]) => `{"timestamp":"2026-11-26T22:00:00.000Z","${kind}":[${items.join(',')}]}`;

  it('is the envelope with the items in order, in UTF-8, whatever their characters', () => {
    const items = ['{"a":1}', '{"message":"h\u00e9llo \u20ac \ud83d\ude00 \u4e2d"}', '{"b":"\\u0000\\n"}'];
    const body = batchBody('logs', '2026-11-26T22:00:00.000Z', { key: 'k', items, bytes: bytesOf(items) });
    expect(body.toString('utf8')).toBe(expected('logs', items));
    expect(JSON.parse(body.toString('utf8'))).toEqual({ timestamp: '2026-11-26T22:00:00.000Z', logs: items.map((i) => JSON.parse(i)) });
  });

  it('one item, and none', () => {
    for (const items of [['{"x":true}'], []]) {
      const body = batchBody('traces', '2026-11-26T22:00:00.000Z', { key: 'k', items, bytes: bytesOf(items) });
      expect(body.toString('utf8')).toBe(expected('traces', items));
    }
  });

  it('a byte count that does not add up to what is written falls back to joining the items', () => {
    const items = ['{"a":"\u00e9\u00e9\u00e9"}', '{"b":2}'];
    for (const bytes of [0, bytesOf(items) - 1, bytesOf(items) + 3]) {
      const body = batchBody('traces', '2026-11-26T22:00:00.000Z', { key: 'k', items, bytes });
      expect(body.toString('utf8')).toBe(expected('traces', items));
    }
  });

  it('survives the gzip settings of the transport, read back by a default gunzip', () => {
    const items = Array.from({ length: 500 }, (_, i) => `{"traceId":"${newId()}","spanId":"${newId()}","i":${i}}`);
    const body = batchBody('traces', '2026-11-26T22:00:00.000Z', { key: 'k', items, bytes: bytesOf(items) });
    const zipped = gzipSync(body, { level: constants.Z_BEST_SPEED, windowBits: 14, memLevel: 9 });
    expect(gunzipSync(zipped).equals(body)).toBe(true);
    expect(zipped.length).toBeLessThan(body.length / 2);
  });
});
