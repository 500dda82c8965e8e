import { describe, expect, it } from '@jest/globals';
import { MAX_RECORD_PAIRS, filterHash, isKeyHash, keyHash, logPairs, pairHash, pairsByTrace, rarestFirst } from '../src/attribute-pairs.js';

describe('attribute hashes', () => {
  it('tells a key from a pair by parity, and keeps every hash exact as a double', () => {
    for (const key of ['http.route', 'k', 'a'.repeat(300)]) {
      expect(isKeyHash(keyHash(key))).toBe(true);
      expect(isKeyHash(pairHash(key, '/cart'))).toBe(false);
      expect(Number.isSafeInteger(keyHash(key))).toBe(true);
      expect(Number.isSafeInteger(pairHash(key, 'x'.repeat(1000)))).toBe(true);
    }
    // A long key (not remembered) hashes the same each time.
    expect(keyHash('k'.repeat(5000))).toBe(keyHash('k'.repeat(5000)));
    expect(filterHash({ key: 'a' })).toBe(keyHash('a'));
    expect(filterHash({ key: 'a', value: 'b' })).toBe(pairHash('a', 'b'));
  });

  it('keeps the key and the value apart, whatever characters they hold', () => {
    expect(pairHash('a', '\u0000b')).not.toBe(pairHash('a\u0000', 'b'));
    expect(pairHash('ab', 'c')).not.toBe(pairHash('a', 'bc'));
    expect(pairHash('a', '')).not.toBe(keyHash('a'));
  });

  it('takes a span\'s attributes, resource, scope and own fields, not its ids and times; numbers and booleans as text', () => {
    const resource = [{ key: 'host.name', value: 'web-1' }];
    const spans = [
      { traceId: 't1', spanId: 's1', parentSpanId: null, timestamp: 'x', durationMs: 5, serviceName: 'api', resource, scope: { name: 'n', attributes: [{ key: 'tier', value: 'gold' }] },
        attributes: [{ key: 'code', value: 500 }, { key: 'retry', value: true }, { key: 'tags', value: ['a'] }, { key: '', value: 'no key' }], orderId: 'o-1' },
      { traceId: 't2', spanId: 's2', parentSpanId: null, timestamp: 'y', resource },
    ];
    const byTrace = pairsByTrace(spans);
    const t1 = new Set(byTrace.get('t1'));
    for (const [k, v] of [['host.name', 'web-1'], ['service.name', 'api'], ['tier', 'gold'], ['code', '500'], ['retry', 'true'], ['orderId', 'o-1']] as const) {
      expect(t1.has(pairHash(k, v))).toBe(true);
    }
    expect(t1.has(keyHash('tags'))).toBe(true);
    for (const k of ['traceId', 'spanId', 'parentSpanId', 'timestamp', 'durationMs', 'serviceName', '']) expect(t1.has(keyHash(k))).toBe(false);
    expect(new Set(byTrace.get('t2')).has(pairHash('host.name', 'web-1'))).toBe(true);
  });

  it('keeps a log\'s fields but its times, ids and message; and bounds a record\'s hashes', () => {
    const log = logPairs({ id: 'i', timestamp: 't', clientTimestamp: 'c', traceId: 'tr', spanId: 'sp', message: 'm', level: 'error', chargeId: 'ch_1' });
    expect(log.has(pairHash('level', 'error'))).toBe(true);
    expect(log.has(pairHash('chargeId', 'ch_1'))).toBe(true);
    for (const k of ['id', 'timestamp', 'clientTimestamp', 'traceId', 'spanId', 'message']) expect(log.has(keyHash(k))).toBe(false);
    const wide = { traceId: 'w', spanId: 's', attributes: Array.from({ length: MAX_RECORD_PAIRS }, (_, i) => ({ key: `k${i}`, value: i })) };
    expect(pairsByTrace([wide]).get('w')).toHaveLength(MAX_RECORD_PAIRS);
  });

  it('puts the rarest pair first, counting each pair once, and leaves fewer than two pairs alone', async () => {
    const counts = new Map([[pairHash('service.name', 'api'), 9000], [pairHash('user.id', '42'), 3], [pairHash('tier', 'gold'), 50]]);
    const asked: number[] = [];
    const count = (h: number) => (asked.push(h), counts.get(h) ?? 0);
    const terms = [{ key: 'service.name', value: 'api' }, { key: 'region' }, { key: 'user.id', value: '42' }, { key: 'tier', value: 'gold' }];
    expect(await rarestFirst(terms, count)).toEqual([terms[2], terms[0], terms[1], terms[3]]);
    expect(asked).toHaveLength(3);
    const one = [{ key: 'service.name', value: 'api' }, { key: 'region' }];
    expect(await rarestFirst(one, count)).toBe(one);
    expect(await rarestFirst(undefined, count)).toBeUndefined();
  });
});
