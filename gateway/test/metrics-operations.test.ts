import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { createTenancy, span, startLantern, type Lantern, type Tenancy } from './harness.js';
import { addApplication, exactQuantile, expectWithin1Percent, getAs, iso, MINUTE, sendAllTraces, T0, traces } from './telemetry-helpers.js';

interface Bucket {
  timestamp: string;
  requests: number;
  errors: number;
}
interface OperationRow {
  applicationId: number;
  projectId: number;
  operation: string | null;
  requests: number;
  ratePerMinute: number;
  errors: number;
  errorRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  series: Bucket[];
}
interface OperationMetrics {
  from: string;
  to: string;
  bucketMs: number;
  total: number;
  operations: OperationRow[];
}

const operations = async (l: Lantern, t: Pick<Tenancy, 'token'>, query: Record<string, string | number> = {}): Promise<OperationMetrics> =>
  (await getAs(l, t.token, '/metrics/operations', query).expect(200)).body as OperationMetrics;

describe('GET /metrics/operations: the entry spans of each application per operation', () => {
  let l: Lantern;
  let t: Tenancy;
  let appB: { applicationId: number; apiKey: string };
  const from = T0;
  const to = T0 + 10 * MINUTE;
  const window = { from: iso(from), to: iso(to) };
  // GET /orders/:id: 60 requests of 1..60 ms, every fifth a 503; POST /checkout: 30 of 100 ms, 3 of them 500s;
  // GET /health: 10 (an OpenTelemetry server span named by its method, with http.route).
  const orders = Array.from({ length: 60 }, (_, i) => i + 1);

  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'operations');
    appB = await addApplication(l, t);
    await sendAllTraces(l, t.apiKey, [
      ...orders.map((d) => span({ requestMethod: 'controller:GET', route: '/orders/:id', requestURL: `/orders/${d}`, durationMs: d,
        responseStatus: d % 5 === 0 ? 503 : 200, timestamp: iso(from + (d % 10) * MINUTE) })),
      ...Array.from({ length: 30 }, (_, i) => span({ requestMethod: 'controller:POST /checkout', durationMs: 100, responseStatus: i < 3 ? 500 : 201,
        timestamp: iso(from + 2 * MINUTE + i) })),
      ...Array.from({ length: 10 }, (_, i) => span({ requestMethod: 'controller:GET', name: 'GET', kind: 'server',
        attributes: [{ key: 'http.route', value: '/health' }], durationMs: 2, timestamp: iso(from + 5 * MINUTE + i) })),
      // Not entries: a service span, and a controller span under a span of its own application.
      span({ requestMethod: 'service:job', name: 'nightly', timestamp: iso(from + MINUTE) }),
    ]);
    // Another application: more names than an hour keeps (200), the last 3 counted as the other operations.
    await sendAllTraces(l, appB.apiKey, Array.from({ length: 203 }, (_, i) => span({ requestMethod: `controller:GET /r/${String(i).padStart(3, '0')}`,
      timestamp: iso(from + MINUTE + i) })));
  });
  afterAll(() => l.stop());

  it('lists each (application, operation) busiest first, with requests, errors, error rate and the rate per minute', async () => {
    const m = await operations(l, t, { ...window, applicationId: t.applicationId });
    expect([m.from, m.to, m.bucketMs, m.total]).toEqual([iso(from), iso(to), MINUTE, 3]);
    expect(m.operations.map((o) => [o.operation, o.requests, o.errors, o.errorRate, o.ratePerMinute])).toEqual([
      ['GET /orders/:id', 60, 12, 0.2, 6], ['POST /checkout', 30, 3, 0.1, 3], ['GET /health', 10, 0, 0, 1],
    ]);
    expect(m.operations.every((o) => o.applicationId === t.applicationId && o.projectId === t.projectId)).toBe(true);
  });

  it('reports p50, p95 and p99 within 1% and a series per bucket that adds up to the totals', async () => {
    const [o] = (await operations(l, t, { ...window, applicationId: t.applicationId })).operations;
    for (const [q, got] of [[0.5, o!.p50Ms], [0.95, o!.p95Ms], [0.99, o!.p99Ms]] as const) expectWithin1Percent(got, exactQuantile(orders, q));
    expect(o!.series).toHaveLength(10);
    expect(o!.series.map((b) => b.requests)).toEqual(Array(10).fill(6));
    expect(o!.series.map((b) => b.errors)).toEqual([6, 0, 0, 0, 0, 6, 0, 0, 0, 0]);
  });

  it('counts the same requests as GET /metrics, and each operation finds its traces with GET /logs/project', async () => {
    const all = await operations(l, t, { ...window, limit: 500 });
    const perApp = (await getAs(l, t.token, '/metrics', window).expect(200)).body as { applications: { applicationId: number; requests: number }[] };
    for (const app of perApp.applications) {
      expect(all.operations.filter((o) => o.applicationId === app.applicationId).reduce((n, o) => n + o.requests, 0)).toBe(app.requests);
    }
    for (const o of all.operations.filter((x) => x.applicationId === t.applicationId)) {
      const found = await traces(l, t, { ...window, applicationId: o.applicationId, operation: o.operation! });
      expect(found).toHaveLength(o.requests);
    }
  });

  it('keeps the first 200 names of an application\'s hour; the later ones count together as `operation: null`', async () => {
    const b = await operations(l, t, { ...window, applicationId: appB.applicationId, limit: 500 });
    expect(b.total).toBe(201);
    expect(b.operations[0]).toMatchObject({ operation: null, requests: 3 });
    expect(b.operations.slice(1).map((o) => [o.operation, o.requests])).toEqual(
      Array.from({ length: 200 }, (_, i) => [`GET /r/${String(i).padStart(3, '0')}`, 1]));
  });

  it('takes GET /metrics\' buckets while they are of 1 or 2 minutes (6 h 40 min), and buckets of an hour or more past them', async () => {
    const widths = async (hours: number) => (await operations(l, t, { from: iso(from), to: iso(from + hours * 60 * MINUTE) })).bucketMs;
    expect([await widths(1), await widths(6), await widths(6 + 2 / 60), await widths(6.5), await widths(7), await widths(24), await widths(24 * 30)])
      .toEqual([MINUTE, 2 * MINUTE, 2 * MINUTE, 2 * MINUTE, 60 * MINUTE, 60 * MINUTE, 360 * MINUTE]);
    const day = await operations(l, t, { from: iso(from), to: iso(from + 24 * 60 * MINUTE), applicationId: t.applicationId });
    expect(day.operations.map((o) => [o.operation, o.requests, o.series.length, o.series[0]!.requests])).toEqual([
      ['GET /orders/:id', 60, 24, 60], ['POST /checkout', 30, 24, 30], ['GET /health', 10, 24, 10],
    ]);
  });

  it('lists the `limit` busiest and says how many there are', async () => {
    const m = await operations(l, t, { ...window, limit: 2 });
    expect(m.total).toBe(204);
    expect(m.operations.map((o) => o.operation)).toEqual(['GET /orders/:id', 'POST /checkout']);
  });

  it('shows nothing of another organization: its projectId is 404, its data is not counted', async () => {
    const stranger = await createTenancy(l, 'operations-stranger');
    expectError(await getAs(l, stranger.token, '/metrics/operations', { ...window, projectId: t.projectId }), 404, 'not_found');
    expect((await operations(l, stranger, window)).operations).toEqual([]);
    expect((await operations(l, stranger, { ...window, applicationId: t.applicationId })).operations).toEqual([]);
  });

  it.each([
    ['from after to', { from: iso(T0 + MINUTE), to: iso(T0) }],
    ['limit=0', { limit: 0 }],
    ['limit=501', { limit: 501 }],
    ['applicationId=abc', { applicationId: 'abc' }],
  ])('answers 400 validation_failed for %s', async (_label, query) => {
    expectError(await getAs(l, t.token, '/metrics/operations', query), 400, 'validation_failed');
  });

  it('answers 401 without a token', async () => {
    expectError(await l.http.get('/metrics/operations'), 401, 'unauthorized');
  });
});
