import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { bearer, createTenancy, span, startLantern, type Lantern, type Tenancy } from './harness.js';
import { addApplication, getAs, iso, MINUTE, sendAllTraces, T0, traces, walkPages, type TraceRecord } from './telemetry-helpers.js';

const isNewestFirst = (records: Array<{ timestamp: string }>) =>
  records.every((r, i) => i === 0 || Date.parse(records[i - 1]!.timestamp) >= Date.parse(r.timestamp));

/** Pages of GET /logs/project for the tenancy's project, following Link rel="next". */
const walkPagesOf = (l: Lantern, t: Tenancy, query: string) => walkPages<TraceRecord>(l, t.token, `/logs/project?id=${t.projectId}&${query}`);

describe('GET /logs/project: parameters and visibility', () => {
  let l: Lantern;
  let a: Tenancy;
  let b: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    a = await createTenancy(l, 'reads-a');
    b = await createTenancy(l, 'reads-b');
    await sendAllTraces(l, b.apiKey, [span()]);
  });
  afterAll(() => l.stop());

  const read = (query: string, token = a.token) => l.http.get(`/logs/project${query}`).set(bearer(token));

  it.each([['no id', ''], ['an empty id', '?id=']])('answers 400 missing_parameter for %s', async (_label, query) => {
    const res = await read(query);
    expectError(res, 400, 'missing_parameter');
    expect(JSON.stringify(res.body.error)).toContain('id');
  });

  it.each([
    ['id=abc'], ['id=0'], ['id=-1'], ['id=1.5'], ['id=1e2'], ['id=0x10'], ['id=99999999999999999999'], ['id=1&id=2'],
  ])('answers 400 validation_failed for ?%s', async (query) => {
    expectError(await read(`?${query}`), 400, 'validation_failed');
  });

  it.each([['id[$gt]=1'], ['id[$ne]=0'], ['id[]=1']])('answers 400 for the bracket syntax ?%s (an operator or array never reaches the store)', async (query) => {
    const res = await read(`?${query}`);
    expect(res.status).toBe(400);
    expect(['missing_parameter', 'validation_failed']).toContain(res.body.error.code);
  });

  it('answers 404 for a project that does not exist and, identically, for a project of another organization', async () => {
    const missing = await read('?id=999999');
    expectError(missing, 404, 'not_found');
    const foreign = await read(`?id=${b.projectId}`);
    expectError(foreign, 404, 'not_found');
    expect(foreign.body).toEqual(missing.body);
  });

  it('answers 401 without a token and with an API key instead of a token', async () => {
    expectError(await l.http.get(`/logs/project?id=${a.projectId}`), 401, 'unauthorized');
    expectError(await l.http.get(`/logs/project?id=${a.projectId}`).set('x-api-key', a.apiKey), 401, 'unauthorized');
  });

  it.each([
    ['from=yesterday'], ['to=2026-11-22T10:00:00'], [`from=${iso(T0)}&to=${iso(T0)}`], [`from=${iso(T0 + 1)}&to=${iso(T0)}`],
    ['traceId=abc'], ['applicationId=0'], ['applicationId=x'], ['limit=0'], ['limit=1001'], ['limit=ten'], ['limit=-5'],
    ['minDurationMs=-1'], ['minDurationMs=1.5'], ['status=600'], ['status=6xx'], ['status=abc'], ['status=20'],
    ['cursor=not-a-cursor!'], [`cursor=${Buffer.from('{"a":1}').toString('base64url')}`], [`cursor=${Buffer.from('[1]').toString('base64url')}`],
    [`cursor=${'A'.repeat(300)}`], ['limit=1&limit=2'], ['url='], [`url=${'a'.repeat(201)}`], [`url=${'%F0%9F%94%8D'.repeat(201)}`], ['url=a&url=b'],
    ['maxDurationMs=-1'], ['maxDurationMs=1.5'], ['minDurationMs=10&maxDurationMs=5'], ['service='], [`service=${'s'.repeat(201)}`],
    ['operation='], [`operation=${'o'.repeat(201)}`], ['operation=a&operation=b'],
    ['attr='], ['attr==value'], ['attr[]=a'], ['attr[0]=a'], [`attr=${'k'.repeat(401)}`], [Array.from({ length: 9 }, (_, i) => `attr=k${i}`).join('&')],
  ])('answers 400 validation_failed for the filter %s', async (filter) => {
    expectError(await read(`?id=${a.projectId}&${filter}`), 400, 'validation_failed');
  });

  it('answers 200 [] for a visible project without traces', async () => {
    await read(`?id=${a.projectId}`).expect(200, []);
  });

  it('takes a url of 1 to 200 characters, counted by code point (200 emoji are 400 UTF-16 units)', async () => {
    for (const url of ['a', 'a'.repeat(200), '\u{1F50D}'.repeat(200)]) {
      await read(`?id=${a.projectId}&url=${encodeURIComponent(url)}`).expect(200, []);
    }
  });
});

describe('GET /logs/project: order and filters', () => {
  let l: Lantern;
  let t: Tenancy;
  let appB: { applicationId: number; apiKey: string };
  // Ten traces, one a minute: even ones from application A, odd from B.
  const duration = (i: number) => i * 10 + 5;
  const status = (i: number) => (i === 0 || i === 5 ? 500 : i === 7 ? 503 : i === 3 ? 404 : 200);
  const url = (i: number) => (i % 3 === 0 ? `/shop/Checkout?step=${i}` : `/shop/browse/${i}`);
  const traceIds: string[] = Array.from({ length: 10 }, () => randomUUID());
  const childOnly = randomUUID();

  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'reads-filter');
    appB = await addApplication(l, t);
    const spans = (app: 0 | 1) => traceIds.flatMap((traceId, i) => {
      if (i % 2 !== app) return [];
      // OpenTelemetry's fields too: a service per application, an operation for the first five and the last five.
      const root = span({ traceId, timestamp: iso(T0 + i * MINUTE), durationMs: duration(i), responseStatus: status(i), requestURL: url(i),
        serviceName: app ? 'shop-b' : 'shop-a', name: i < 5 ? 'GET /early' : 'GET /late', kind: 'server' });
      // A slow failing child never counts for the root filters, nor its URL.
      return [root, span({ traceId, parentSpanId: root['spanId'], requestMethod: 'external:db', timestamp: iso(T0 + i * MINUTE + 1), durationMs: 9999, responseStatus: 500, requestURL: '/db/query' })];
    });
    // A trace holding only a span whose parent never arrived (not a controller span): it has no root.
    const orphan = span({ traceId: childOnly, parentSpanId: randomUUID(), requestMethod: 'service:retry', timestamp: iso(T0 + 30 * MINUTE), durationMs: 9999, responseStatus: 500 });
    await sendAllTraces(l, t.apiKey, [...spans(0), orphan]);
    await sendAllTraces(l, appB.apiKey, spans(1));
  });
  afterAll(() => l.stop());

  /** The indexes (into traceIds) of the records read with `query`, in the order returned. */
  const indexesOf = (records: TraceRecord[]) => records.map((r) => (r.traceId === childOnly ? 'child-only' : traceIds.indexOf(r.traceId)));

  it('returns the whole set newest first without parameters', async () => {
    const all = await traces(l, t);
    expect(indexesOf(all)).toEqual(['child-only', 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(isNewestFirst(all)).toBe(true);
  });

  it.each<[string, (ids: string[]) => Record<string, string | number>, Array<number | string>]>([
    ['from (inclusive) and to (exclusive)', () => ({ from: iso(T0 + 2 * MINUTE), to: iso(T0 + 5 * MINUTE) }), [4, 3, 2]],
    ['from with an offset', () => ({ from: '2026-03-01T11:08:00+01:00' }), ['child-only', 9, 8]],
    ['applicationId', () => ({ applicationId: -1 }), [9, 7, 5, 3, 1]],
    ['traceId', (ids) => ({ traceId: ids[4]! }), [4]],
    ['traceId in upper case', (ids) => ({ traceId: ids[6]!.toUpperCase() }), [6]],
    ['minDurationMs (of the root span)', () => ({ minDurationMs: 55 }), [9, 8, 7, 6, 5]],
    ['status=5xx (of the root span)', () => ({ status: '5xx' }), [7, 5, 0]],
    ['status=404', () => ({ status: 404 }), [3]],
    ['status=2xx with applicationId', () => ({ status: '2xx', applicationId: -1 }), [9, 1]],
    ['a window without traces', () => ({ from: iso(T0 - 60 * MINUTE), to: iso(T0) }), []],
    ['url (of the root span, ASCII letters in any case)', () => ({ url: 'CHECKOUT?' }), [9, 6, 3, 0]],
    ['url, not a child span\'s', () => ({ url: '/db/' }), []],
    ['url with status', () => ({ url: 'checkout', status: '5xx' }), [0]],
    ['url with applicationId', () => ({ url: '/shop/', applicationId: -1 }), [9, 7, 5, 3, 1]],
    ['url with _ and % taken literally', () => ({ url: '/shop/_%' }), []],
    ['url with regular-expression characters taken literally', () => ({ url: '.*' }), []],
    ['maxDurationMs (of the root span)', () => ({ maxDurationMs: 25 }), [2, 1, 0]],
    ['minDurationMs and maxDurationMs', () => ({ minDurationMs: 25, maxDurationMs: 45 }), [4, 3, 2]],
    ['service (of the root span, exactly)', () => ({ service: 'shop-a' }), [8, 6, 4, 2, 0]],
    ['service in another case', () => ({ service: 'Shop-A' }), []],
    ['operation (of the root span, exactly)', () => ({ operation: 'GET /late' }), [9, 8, 7, 6, 5]],
    ['operation with status and maxDurationMs', () => ({ operation: 'GET /late', status: '5xx', maxDurationMs: 60 }), [5]],
    ['operation with service and applicationId', () => ({ operation: 'GET /early', service: 'shop-b', applicationId: -1 }), [3, 1]],
    // An attribute is any span's, not only the root's: every child span has this URL and status.
    ['attr=key=value of a child span', () => ({ attr: 'requestURL=/db/query' }), [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]],
    ['attr=key=value of a number, as text', () => ({ attr: 'responseStatus=404' }), [3]],
    ['attr=key=value of the resource', () => ({ attr: 'service.name=shop-b' }), [9, 7, 5, 3, 1]],
    ['attr=parentSpanId: the ids are not attributes', () => ({ attr: 'parentSpanId' }), []],
    ['attr=key alone of a field some spans have', () => ({ attr: 'kind' }), [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]],
    ['attr with status and applicationId', () => ({ attr: 'name=GET /late', status: '5xx', applicationId: -1 }), [7, 5]],
    ['attr whose value has an = sign', () => ({ attr: 'requestURL=/shop/Checkout?step=9' }), [9]],
  ])('narrows by %s', async (_label, query, expected) => {
    const q = query(traceIds);
    if (q['applicationId'] === -1) q['applicationId'] = appB.applicationId;
    expect(indexesOf(await traces(l, t, q))).toEqual(expected);
  });

  it('takes attr repeated, all of them holding, and keeps them on the next link', async () => {
    const query = `attr=${encodeURIComponent('name=GET /late')}&attr=${encodeURIComponent('service.name=shop-b')}`;
    const pages = await walkPagesOf(l, t, `limit=2&${query}`);
    expect(pages.map((p) => indexesOf(p))).toEqual([[9, 7], [5]]);
    expect(indexesOf((await l.http.get(`/logs/project?id=${t.projectId}&${query}&attr=kind`).set(bearer(t.token)).expect(200)).body)).toEqual([9, 7, 5]);
    expect((await l.http.get(`/logs/project?id=${t.projectId}&${query}&attr=orderId`).set(bearer(t.token)).expect(200)).body).toEqual([]);
  });

  it('pages through the records matching url, keeping it on the next link', async () => {
    const pages = await walkPagesOf(l, t, 'limit=3&url=checkout');
    expect(pages.map((p) => indexesOf(p))).toEqual([[9, 6, 3], [0]]);
  });

  it('returns complete records (all spans of the trace) when filtering on the root', async () => {
    const [record] = await traces(l, t, { status: 404 });
    expect(record!.telemetry.map((s) => s.requestMethod)).toEqual(['controller:GET', 'external:db']);
  });

  it('answers [] for an application of another project rather than leaking it', async () => {
    const other = await createTenancy(l, 'reads-other');
    await sendAllTraces(l, other.apiKey, [span()]);
    expect(await traces(l, t, { applicationId: other.applicationId })).toEqual([]);
  });
});

describe('GET /logs/project: paging', () => {
  let l: Lantern;
  let t: Tenancy;
  let all: TraceRecord[];
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'reads-pages');
    // 25 traces, two per second: pages must break ties by id.
    await sendAllTraces(l, t.apiKey, Array.from({ length: 25 }, (_, i) => span({ timestamp: iso(T0 + Math.floor(i / 2) * 1000) })));
    all = await traces(l, t);
  });
  afterAll(() => l.stop());

  const walk = (query: string) => walkPagesOf(l, t, query);

  it('walks 25 traces with limit=10 in pages of 10, 10, 5: the union is the full list in order, no duplicates', async () => {
    expect(all).toHaveLength(25);
    const pages = await walk('limit=10');
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    const ids = pages.flat().map((r) => r.id);
    expect(new Set(ids).size).toBe(25);
    expect(ids).toEqual(all.map((r) => r.id));
    expect(pages.flat()).toEqual(all);
  });

  it('ends without a cursor when the last page is exactly full', async () => {
    expect((await walk('limit=5')).map((p) => p.length)).toEqual([5, 5, 5, 5, 5]);
    expect((await walk('limit=25')).map((p) => p.length)).toEqual([25]);
    expect((await walk('limit=1000')).map((p) => p.length)).toEqual([25]);
  });

  it('keeps the other filters on the next link', async () => {
    const to = iso(T0 + 6 * 1000);
    const pages = await walk(`limit=4&to=${encodeURIComponent(to)}`);
    expect(pages.flat().map((r) => r.id)).toEqual(all.filter((r) => Date.parse(r.timestamp) < Date.parse(to)).map((r) => r.id));
    expect(pages.map((p) => p.length)).toEqual([4, 4, 4]);
  });

  it('is not shifted by records written between two pages (newer than the cursor)', async () => {
    const first = await getAs(l, t.token, '/logs/project', { id: t.projectId, limit: 10 }).expect(200);
    await sendAllTraces(l, t.apiKey, [span({ timestamp: iso(T0 + 60_000) }), span({ timestamp: iso(T0 + 11_500) })]);
    const second = await getAs(l, t.token, '/logs/project', { id: t.projectId, limit: 10, cursor: String(first.headers['x-next-cursor']) }).expect(200);
    expect(second.body.map((r: TraceRecord) => r.id)).toEqual(all.slice(10, 20).map((r) => r.id));
  });
});

describe('GET /logs/project: a large set streams', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'reads-large');
    await sendAllTraces(l, t.apiKey, Array.from({ length: 3000 }, (_, i) => span({ timestamp: iso(T0 + i * 10) })));
  });
  afterAll(() => l.stop());

  it('returns 3,000 traces as one JSON array, streamed (chunked), newest first, each once', async () => {
    const res = await getAs(l, t.token, '/logs/project', { id: t.projectId }).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const records = JSON.parse(res.text) as TraceRecord[];
    expect(records).toHaveLength(3000);
    expect(new Set(records.map((r) => r.id)).size).toBe(3000);
    expect(records[0]!.timestamp).toBe(iso(T0 + 2999 * 10));
    expect(records[2999]!.timestamp).toBe(iso(T0));
    expect(isNewestFirst(records)).toBe(true);
    expect(records.every((r) => r.telemetry.length === 1)).toBe(true);
  });
});
