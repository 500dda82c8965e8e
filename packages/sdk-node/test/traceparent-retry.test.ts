import { describe, expect, it } from '@jest/globals';
import { backoffMs, parseRetryAfter, retryDelayMs, isRetryableStatus } from '../src/retry.js';
import { BoundedQueue } from '../src/queue.js';
import { outgoingHeaders, parseIncoming, parseTraceparent } from '../src/traceparent.js';
import { classify } from '../src/transport.js';

/** The pure parts: W3C trace context, backoff and Retry-After, classification of answers, the bounded queue. */

const TRACE = '4bf92f35-77b3-4da6-a3ce-929d0e0e4736';
const SPAN = '00f067aa-0ba9-02b7-8c1d-5e6f7a8b9c0d';

describe('traceparent', () => {
  it('is 00-<trace id hex>-<first 16 hex of the span id>-01, with the whole span id in tracestate', () => {
    expect(outgoingHeaders(TRACE, SPAN)).toEqual({
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'lantern=00f067aa0ba902b78c1d5e6f7a8b9c0d',
    });
    expect(outgoingHeaders(TRACE, SPAN, 'congo=t61rcWkgMzE').tracestate).toBe('lantern=00f067aa0ba902b78c1d5e6f7a8b9c0d,congo=t61rcWkgMzE');
  });

  it('continues a trace: the full parent UUID from tracestate when it matches traceparent', () => {
    const { traceparent, tracestate } = outgoingHeaders(TRACE, SPAN, 'congo=t61rcWkgMzE');
    expect(parseIncoming(traceparent, tracestate)).toEqual({ traceId: TRACE, parentSpanId: SPAN, tracestate: 'congo=t61rcWkgMzE' });
  });

  it('without a matching tracestate, the parent is the 16 hex digits padded with zeros', () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(parseIncoming(tp, undefined)?.parentSpanId).toBe('00f067aa-0ba9-02b7-0000-000000000000');
    expect(parseIncoming(tp, 'lantern=ffffffffffffffff8c1d5e6f7a8b9c0d')?.parentSpanId).toBe('00f067aa-0ba9-02b7-0000-000000000000');
    expect(parseIncoming(tp, 'lantern=not-hex')?.parentSpanId).toBe('00f067aa-0ba9-02b7-0000-000000000000');
  });

  it.each([
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['short trace id', '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01'],
    ['long parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b71-01'],
    ['uppercase', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
    ['version 00 with more fields', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra'],
    ['garbage', 'hello'],
    ['two headers joined', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01, 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
  ])('is ignored when invalid: %s', (_name, value) => {
    expect(parseTraceparent(value)).toBeNull();
    expect(parseIncoming(value, undefined)).toBeNull();
  });

  it('accepts a future version with more fields, and any flags', () => {
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-what-ever')).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7' });
  });
});

describe('retry', () => {
  it('full jitter: random in [0, min(max, base x 2^(n-1)))', () => {
    expect(backoffMs(1, 100, 10_000, () => 0.999)).toBe(99);
    expect(backoffMs(4, 100, 10_000, () => 0.5)).toBe(400);
    expect(backoffMs(30, 100, 10_000, () => 0.999)).toBe(9_990);
    expect(backoffMs(3, 100, 10_000, () => 0)).toBe(0);
  });

  it('Retry-After: seconds or an HTTP-date; unreadable values are ignored', () => {
    const now = Date.parse('2026-03-01T10:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('the delay honours Retry-After up to its cap, else backs off', () => {
    const policy = { retryBaseMs: 100, retryMaxMs: 1_000, retryAfterMaxMs: 60_000 };
    expect(retryDelayMs(1, 5_000, policy)).toBe(5_000);
    expect(retryDelayMs(1, 600_000, policy)).toBe(60_000);
    expect(retryDelayMs(20, undefined, policy, () => 0.5)).toBe(500);
  });

  it('retries network errors, 408, 429 and 5xx only', () => {
    expect([408, 429, 500, 502, 503, 504, 599].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 409, 413, 415, 422].some(isRetryableStatus)).toBe(false);
    expect(classify(503, '2', Buffer.from(''))).toMatchObject({ outcome: 'retry', status: 503, retryAfterMs: 2_000 });
    expect(classify(400, undefined, Buffer.from('{"error":{"code":"validation_failed","message":"bad"}}'))).toMatchObject({ outcome: 'fail', message: 'the ingest service answered 400 (validation_failed: bad)' });
    expect(classify(302, undefined, Buffer.from(''))).toMatchObject({ outcome: 'fail' });
    expect(classify(200, undefined, Buffer.from('{"accepted":2,"rejected":[]}'))).toEqual({ outcome: 'ok', status: 200, rejected: [], recognised: true });
    expect(classify(202, undefined, Buffer.from('<html>'))).toMatchObject({ outcome: 'ok', recognised: false });
  });
});

describe('bounded queue', () => {
  it('counts the batch in flight against the bound; a failed batch goes back to the front with its key', () => {
    const q = new BoundedQueue(4);
    for (const i of ['1', '2', '3']) expect(q.push(i, 1)).toBe(true);
    const first = q.take(2, 1_000)!;
    expect(first.items).toEqual(['1', '2']);
    expect(q.push('4', 1)).toBe(true);
    expect(q.push('5', 1)).toBe(false); // 2 in flight + 2 waiting
    q.putBack(first);
    expect(q.waiting).toBe(4);
    const again = q.take(3, 1_000)!;
    expect(again).toBe(first); // same items, same key, even though 3 were asked for
    q.settle(again);
    expect(q.take(10, 1_000)!.items).toEqual(['3', '4']);
  });

  it('batches failing in another order than they were taken go back in the order taken; a fatal log first', () => {
    const q = new BoundedQueue(10);
    for (const i of ['1', '2', '3', '4', '5', '6']) q.push(i, 1);
    const [a, b, c] = [q.take(2, 1_000)!, q.take(2, 1_000)!, q.take(2, 1_000)!];
    const fatal = { key: 'fatal', items: ['f'], bytes: 1 };
    expect(q.reserve(fatal)).toBe(true);
    q.putBack(c);
    q.putBack(a);
    q.putBack(fatal);
    q.putBack(b);
    expect(q.inFlight).toBe(0);
    expect([q.take(9, 1_000), q.take(9, 1_000), q.take(9, 1_000), q.take(9, 1_000)]).toEqual([fatal, a, b, c]);
  });

  it('a batch stops at maxBytes but always holds at least one item', () => {
    const q = new BoundedQueue(10);
    q.push('a', 600);
    q.push('b', 600);
    expect(q.take(10, 1_000)!.items).toEqual(['a']);
    expect(q.take(10, 100)!.items).toEqual(['b']);
    expect(q.take(10, 100)).toBeUndefined();
  });
});
