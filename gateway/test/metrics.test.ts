import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { createTenancy, span, startLantern, type Lantern, type Tenancy } from './harness.js';
import { addApplication, addProject, exactQuantile, expectWithin1Percent, getAs, iso, MINUTE, sendAllTraces, T0 } from './telemetry-helpers.js';

const DAY = 86_400_000;

interface Bucket {
  timestamp: string;
  requests: number;
  errors: number;
  errorRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}
interface AppMetrics {
  applicationId: number;
  projectId: number;
  requests: number;
  errors: number;
  errorRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  series: Bucket[];
}
interface Metrics {
  from: string;
  to: string;
  bucketMs: number;
  applications: AppMetrics[];
}

const metrics = async (l: Lantern, t: Pick<Tenancy, 'token'>, query: Record<string, string | number> = {}): Promise<Metrics> =>
  (await getAs(l, t.token, '/metrics', query).expect(200)).body as Metrics;

describe('GET /metrics: aggregates of root controller spans', () => {
  let l: Lantern;
  let t: Tenancy;
  let appB: { applicationId: number; apiKey: string };
  // Window of 12 minutes: 12 one-minute buckets; A's requests fall in the first 10 (k % 10 is the minute).
  const from = T0;
  const to = T0 + 12 * MINUTE;
  const window = { from: iso(from), to: iso(to) };
  const ks = Array.from({ length: 200 }, (_, i) => i + 1);
  const minuteOf = (k: number) => k % 10;
  const statusOf = (k: number) => (k % 10 === 0 ? 500 : k % 7 === 0 ? 404 : 200);
  const rootA = (k: number) => span({ durationMs: k, responseStatus: statusOf(k), timestamp: iso(from + minuteOf(k) * MINUTE + k * 100) });

  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'metrics');
    appB = await addApplication(l, t);
    const { parentSpanId: _omit, ...rootWithoutParentField } = span({ durationMs: 200, responseStatus: 200, timestamp: iso(from + 11 * MINUTE) });
    const serviceRoot = span({ requestMethod: 'service:loadCart', durationMs: 90_000, responseStatus: 500, timestamp: iso(from + MINUTE) }); // root, not a controller
    const notCounted = [
      // A controller span under a span of its own application (a controller() helper inside a job): not an entry.
      span({ traceId: serviceRoot['traceId'], parentSpanId: serviceRoot['spanId'], durationMs: 90_000, responseStatus: 500, timestamp: iso(from + MINUTE) }),
      serviceRoot,
      span({ requestMethod: 'external:payments', durationMs: 90_000, responseStatus: 503, timestamp: iso(from + MINUTE) }),
      span({ durationMs: 90_000, responseStatus: 500, timestamp: iso(from - 1) }), // before the window
      span({ durationMs: 90_000, responseStatus: 500, timestamp: iso(to) }), // `to` is exclusive
    ];
    await sendAllTraces(l, t.apiKey, [...ks.map(rootA), ...notCounted]);
    // The root without a parentSpanId field is a root too: B's 11th request.
    await sendAllTraces(l, appB.apiKey, [...Array.from({ length: 10 }, (_, i) => span({ durationMs: 1000 + i, responseStatus: 503, timestamp: iso(from + i * MINUTE) })), rootWithoutParentField]);
  });
  afterAll(() => l.stop());

  it('answers the window, the bucket width and one entry per application, by applicationId', async () => {
    const m = await metrics(l, t, window);
    expect(m.from).toBe(iso(from));
    expect(m.to).toBe(iso(to));
    expect(m.bucketMs).toBe(MINUTE);
    expect(m.applications.map((a) => [a.applicationId, a.projectId])).toEqual([[t.applicationId, t.projectId], [appB.applicationId, t.projectId]]);
  });

  it('counts requests and errors (status >= 500) of root controller spans only, with the error rate', async () => {
    const [a, b] = (await metrics(l, t, window)).applications;
    expect(a).toMatchObject({ requests: 200, errors: 20, errorRate: 0.1 });
    expect(b).toMatchObject({ requests: 11, errors: 10 });
    expect(b!.errorRate).toBeCloseTo(10 / 11, 2);
  });

  it('reports p50, p95 and p99 within 1% of the exact values', async () => {
    const [a, b] = (await metrics(l, t, window)).applications;
    expectWithin1Percent(a!.p50Ms, exactQuantile(ks, 0.5));
    expectWithin1Percent(a!.p95Ms, exactQuantile(ks, 0.95));
    expectWithin1Percent(a!.p99Ms, exactQuantile(ks, 0.99));
    const bDurations = [...Array.from({ length: 10 }, (_, i) => 1000 + i), 200];
    expectWithin1Percent(b!.p50Ms, exactQuantile(bDurations, 0.5));
    expectWithin1Percent(b!.p99Ms, exactQuantile(bDurations, 0.99));
  });

  it('has one series bucket per minute, empty ones included with null rate and percentiles, counts matching the spans', async () => {
    const [a] = (await metrics(l, t, window)).applications;
    expect(a!.series).toHaveLength(12);
    expect(a!.series.map((s) => s.timestamp)).toEqual(Array.from({ length: 12 }, (_, i) => iso(from + i * MINUTE)));
    for (let m = 0; m < 10; m++) {
      const inMinute = ks.filter((k) => minuteOf(k) === m);
      expect(a!.series[m]).toMatchObject({ requests: inMinute.length, errors: inMinute.filter((k) => statusOf(k) >= 500).length });
      expectWithin1Percent(a!.series[m]!.p50Ms, exactQuantile(inMinute, 0.5));
      expectWithin1Percent(a!.series[m]!.p95Ms, exactQuantile(inMinute, 0.95));
      expectWithin1Percent(a!.series[m]!.p99Ms, exactQuantile(inMinute, 0.99));
    }
    // Minute 0 holds the multiples of 10: every one of them is a 500.
    expect(a!.series.slice(0, 10).map((s) => s.errorRate)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(a!.series.slice(10)).toEqual([10, 11].map((m) => ({
      timestamp: iso(from + m * MINUTE), requests: 0, errors: 0, errorRate: null, p50Ms: null, p95Ms: null, p99Ms: null,
    })));
    expect(a!.series.reduce((n, s) => n + s.requests, 0)).toBe(a!.requests);
  });

  it('picks the narrowest bucket width of the ladder giving at most 200 buckets: an hour in minutes, a day in 10 minutes, a week in hours', async () => {
    const cases = [[90 * 1000, MINUTE, 2], [3 * 60 * MINUTE, MINUTE, 180], [6 * 60 * MINUTE, 2 * MINUTE, 180], [DAY, 10 * MINUTE, 144],
      [2 * DAY, 15 * MINUTE, 192], [7 * DAY, 60 * MINUTE, 168], [31 * DAY, 360 * MINUTE, 125], [90 * DAY, 720 * MINUTE, 181]] as const;
    // `from` (10:00) is not on a 6- or 12-hour boundary: 31 days from it start at 06:00, 90 days at 00:00, one bucket more.
    for (const [span, bucketMs, buckets] of cases) {
      const m = await metrics(l, t, { from: iso(from), to: iso(from + span) });
      expect(m.bucketMs).toBe(bucketMs);
      for (const a of m.applications) expect(a.series).toHaveLength(buckets);
    }
    // A day from `from` also takes in A's root span at the 12-minute `to` of the short window.
    const day = await metrics(l, t, { from: iso(from), to: iso(from + DAY) });
    expect(day.applications[0]).toMatchObject({ requests: 201, errors: 21 });
    expect(day.applications[0]!.series.slice(0, 2).map((b) => b.requests)).toEqual([200, 1]);
  });

  it('widens a window that does not fall on bucket boundaries to whole buckets', async () => {
    const m = await metrics(l, t, { from: iso(from + 30_000), to: iso(from + 90_000) });
    expect([m.from, m.to, m.bucketMs]).toEqual([iso(from), iso(from + 2 * MINUTE), MINUTE]);
    expect(m.applications[0]!.series.map((b) => b.requests)).toEqual([20, 20]);
  });

  it('narrows by applicationId and projectId', async () => {
    const onlyB = await metrics(l, t, { ...window, applicationId: appB.applicationId });
    expect(onlyB.applications.map((a) => a.applicationId)).toEqual([appB.applicationId]);
    const other = await addProject(l, t);
    await sendAllTraces(l, other.apiKey, [span({ timestamp: iso(from + MINUTE) })]);
    const all = await metrics(l, t, window);
    expect(all.applications.map((a) => a.applicationId)).toContain(other.applicationId);
    const onlyOther = await metrics(l, t, { ...window, projectId: other.projectId });
    expect(onlyOther.applications).toEqual([expect.objectContaining({ applicationId: other.applicationId, projectId: other.projectId, requests: 1 })]);
  });

  it('shows nothing of another organization: its projectId is 404 like a missing one, and its data is not counted', async () => {
    const stranger = await createTenancy(l, 'metrics-stranger');
    const foreign = await getAs(l, stranger.token, '/metrics', { ...window, projectId: t.projectId });
    const missing = await getAs(l, stranger.token, '/metrics', { ...window, projectId: 999_999 });
    expectError(foreign, 404, 'not_found');
    expect(foreign.body).toEqual(missing.body);
    expect((await metrics(l, stranger, window)).applications).toEqual([]);
    expect((await metrics(l, stranger, { ...window, applicationId: t.applicationId })).applications).toEqual([]);
  });

  it.each([
    ['from after to', () => ({ from: iso(T0 + MINUTE), to: iso(T0) })],
    ['from equal to to', () => ({ from: iso(T0), to: iso(T0) })],
    ['a window over 90 days', () => ({ from: iso(T0), to: iso(T0 + 90 * DAY + 1) })],
    ['only a from more than 90 days ago', () => ({ from: iso(Date.now() - 91 * DAY) })],
    ['a from that is not a timestamp', () => ({ from: 'an hour ago' })],
    ['a to without an offset', () => ({ to: '2026-03-01T10:00:00' })],
    ['projectId=0', () => ({ projectId: 0 })],
    ['applicationId=abc', () => ({ applicationId: 'abc' })],
  ])('answers 400 validation_failed for %s', async (_label, query) => {
    expectError(await getAs(l, t.token, '/metrics', query()), 400, 'validation_failed');
  });

  it('answers 401 without a token', async () => {
    expectError(await l.http.get('/metrics'), 401, 'unauthorized');
  });
});

describe('GET /metrics: each series bucket has its own error rate and p50, p95 and p99', () => {
  let l: Lantern;
  let t: Tenancy;
  const from = T0;
  const to = T0 + 4 * MINUTE;
  // Minute 0: 100 requests of 1..100 ms, every third a 5xx. Minute 1: none. Minute 2: 7 requests of 5..35 ms, two of
  // them 5xx. Minute 3: one 404 (not an error) of 250 ms.
  const minute0 = Array.from({ length: 100 }, (_, i) => i + 1);
  const minute2 = [5, 10, 15, 20, 25, 30, 35];
  const bucketSpans = [
    ...minute0.map((d) => span({ durationMs: d, responseStatus: d % 3 === 0 ? 500 : 200, timestamp: iso(from + d * 100) })),
    ...minute2.map((d, i) => span({ durationMs: d, responseStatus: i < 2 ? 502 : 201, timestamp: iso(from + 2 * MINUTE + d * 1000) })),
    span({ durationMs: 250, responseStatus: 404, timestamp: iso(from + 3 * MINUTE + 59_999) }),
  ];

  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'metrics-buckets');
    await sendAllTraces(l, t.apiKey, bucketSpans);
  });
  afterAll(() => l.stop());

  it('rounds each bucket\'s errorRate like the total\'s, and makes it null for an empty bucket', async () => {
    const [a] = (await metrics(l, t, { from: iso(from), to: iso(to) })).applications;
    expect(a).toMatchObject({ requests: 108, errors: 35, errorRate: 0.32 });
    expect(a!.series.map((s) => [s.requests, s.errors, s.errorRate])).toEqual([[100, 33, 0.33], [0, 0, null], [7, 2, 0.29], [1, 0, 0]]);
    for (const s of a!.series) if (s.requests > 0) expect(s.errorRate).toBe(Math.round((s.errors / s.requests) * 100) / 100);
  });

  it('gives each bucket p50, p95 and p99 within 1% of the exact values of its own requests, null when empty', async () => {
    const [a] = (await metrics(l, t, { from: iso(from), to: iso(to) })).applications;
    const [m0, m1, m2, m3] = a!.series;
    for (const [bucket, durations] of [[m0, minute0], [m2, minute2], [m3, [250]]] as const) {
      expectWithin1Percent(bucket!.p50Ms, exactQuantile([...durations], 0.5));
      expectWithin1Percent(bucket!.p95Ms, exactQuantile([...durations], 0.95));
      expectWithin1Percent(bucket!.p99Ms, exactQuantile([...durations], 0.99));
      expect(bucket!.p50Ms!).toBeLessThanOrEqual(bucket!.p95Ms!);
      expect(bucket!.p95Ms!).toBeLessThanOrEqual(bucket!.p99Ms!);
    }
    expect(m1).toEqual({ timestamp: iso(from + MINUTE), requests: 0, errors: 0, errorRate: null, p50Ms: null, p95Ms: null, p99Ms: null });
    // A bucket's percentiles are its own, not the window's: minute 2 (5..35 ms) is well under the total's p95.
    expect(m2!.p99Ms!).toBeLessThan(a!.p95Ms!);
  });

  it('keeps the bucket fields in the longer windows\' wider buckets', async () => {
    const m = await metrics(l, t, { from: iso(from), to: iso(from + 12 * 60 * MINUTE) });
    const [first, ...rest] = m.applications[0]!.series;
    expect(m.bucketMs).toBe(5 * MINUTE);
    expect(first).toMatchObject({ requests: 108, errors: 35, errorRate: 0.32 });
    expectWithin1Percent(first!.p50Ms, exactQuantile([...minute0, ...minute2, 250], 0.5));
    expectWithin1Percent(first!.p99Ms, exactQuantile([...minute0, ...minute2, 250], 0.99));
    expect(rest.every((s) => s.requests === 0 && s.errorRate === null && s.p50Ms === null && s.p99Ms === null)).toBe(true);
  });
});

describe('GET /metrics: the default window is the last hour', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'metrics-now');
    const now = Date.now();
    await sendAllTraces(l, t.apiKey, [
      span({ timestamp: iso(now - 10 * MINUTE), durationMs: 10 }),
      span({ timestamp: iso(now - 50 * MINUTE), durationMs: 20, responseStatus: 502 }),
      span({ timestamp: iso(now - 70 * MINUTE), durationMs: 30 }), // outside the last hour
      span({ timestamp: iso(now - 3 * DAY), durationMs: 40 }),
    ]);
  });
  afterAll(() => l.stop());

  it('without parameters covers the 60 minutes up to the end of the current one, in one-minute buckets', async () => {
    const before = Date.now();
    const m = await metrics(l, t);
    const after = Date.now();
    const to = Date.parse(m.to);
    expect(to % MINUTE).toBe(0);
    expect(to).toBeGreaterThan(before - (before % MINUTE));
    expect(to).toBeLessThanOrEqual(after - (after % MINUTE) + MINUTE);
    expect(to - Date.parse(m.from)).toBe(60 * MINUTE);
    expect(m.bucketMs).toBe(MINUTE);
    expect(m.applications).toHaveLength(1);
    expect(m.applications[0]).toMatchObject({ applicationId: t.applicationId, requests: 2, errors: 1, errorRate: 0.5 });
    expect(m.applications[0]!.series).toHaveLength(60);
  });

  it('with only `to`, covers the hour before it, in whole minutes: up to the end of the minute of `to`', async () => {
    const to = Date.now() - 30 * MINUTE;
    const m = await metrics(l, t, { to: iso(to) });
    const end = Math.ceil(to / MINUTE) * MINUTE;
    expect(m.to).toBe(iso(end));
    expect(m.from).toBe(iso(end - 60 * MINUTE));
    expect(m.applications[0]).toMatchObject({ requests: 2 });
  });

  it('with only `from`, runs up to now, widened to whole buckets', async () => {
    const from = Date.now() - 4 * DAY;
    const m = await metrics(l, t, { from: iso(from) });
    expect(m.bucketMs).toBe(30 * MINUTE);
    expect(Date.parse(m.from)).toBe(Math.floor(from / m.bucketMs) * m.bucketMs);
    expect(Date.parse(m.to) - Date.now()).toBeLessThan(m.bucketMs);
    expect(Date.parse(m.to) - Date.now()).toBeGreaterThan(-60_000);
    expect(m.applications[0]).toMatchObject({ requests: 4 });
  });
});
