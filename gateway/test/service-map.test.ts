import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { expectError } from './accounts-helpers.js';
import { createTenancy, span, startLantern, type Lantern, type Tenancy } from './harness.js';
import { addApplication, addProject, getAs, iso, MINUTE, sendAllTraces, T0 } from './telemetry-helpers.js';

interface ServiceMap {
  from: string;
  to: string;
  nodes: { applicationId: number; requests: number; errors: number; p99Ms: number | null }[];
  edges: { callerApplicationId: number; calleeApplicationId: number; calls: number; errors: number; errorRate: number; p50Ms: number | null; p99Ms: number | null }[];
}

const map = async (l: Lantern, t: Pick<Tenancy, 'token'>, query: Record<string, string | number>): Promise<ServiceMap> =>
  (await getAs(l, t.token, '/metrics/services', query).expect(200)).body as ServiceMap;

describe('GET /metrics/services: the applications of a project and the calls between them', () => {
  let l: Lantern;
  let t: Tenancy;
  let payments: { applicationId: number; apiKey: string };
  let ledger: { applicationId: number; apiKey: string };
  const window = { from: iso(T0), to: iso(T0 + 10 * MINUTE) };

  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'service-map');
    payments = await addApplication(l, t, 'payments');
    ledger = await addApplication(l, t, 'ledger');
    // 20 checkouts: the shop's request calls payments (every fourth a 503), and payments calls ledger; half the
    // callee spans are sent before their callers'.
    const shop: object[] = [];
    const pay: object[] = [];
    const led: object[] = [];
    for (let i = 0; i < 20; i++) {
      const traceId = randomUUID();
      const at = T0 + i * 1000;
      const root = span({ traceId, timestamp: iso(at), requestMethod: 'controller:POST /checkout', durationMs: 200 });
      const client = span({ traceId, parentSpanId: root['spanId'], timestamp: iso(at + 1), requestMethod: 'external:payments' });
      const entry = span({ traceId, parentSpanId: client['spanId'], timestamp: iso(at + 2), requestMethod: 'controller:POST /pay', durationMs: 10 + i,
        responseStatus: i % 4 === 0 ? 503 : 201 });
      const toLedger = span({ traceId, parentSpanId: entry['spanId'], timestamp: iso(at + 3), requestMethod: 'external:ledger' });
      shop.push(root, client);
      pay.push(entry, toLedger);
      led.push(span({ traceId, parentSpanId: toLedger['spanId'], timestamp: iso(at + 4), requestMethod: 'controller:PUT /entries', durationMs: 3 }));
    }
    await sendAllTraces(l, payments.apiKey, pay.slice(0, 20));
    await sendAllTraces(l, t.apiKey, shop);
    await sendAllTraces(l, payments.apiKey, pay.slice(20));
    await sendAllTraces(l, ledger.apiKey, led);
  });
  afterAll(() => l.stop());

  it('lists the applications with their requests and each caller -> callee edge with its calls, errors and latency', async () => {
    const m = await map(l, t, { ...window, projectId: t.projectId });
    expect(m.nodes.map((n) => [n.applicationId, n.requests, n.errors])).toEqual([
      [t.applicationId, 20, 0], [payments.applicationId, 20, 5], [ledger.applicationId, 20, 0],
    ]);
    expect(m.edges.map((e) => [e.callerApplicationId, e.calleeApplicationId, e.calls, e.errors, e.errorRate])).toEqual([
      [t.applicationId, payments.applicationId, 20, 5, 0.25], [payments.applicationId, ledger.applicationId, 20, 0, 0],
    ]);
    expect(Math.abs(m.edges[0]!.p99Ms! - 29)).toBeLessThanOrEqual(0.3);
    expect([m.from, m.to]).toEqual([window.from, window.to]);
  });

  it('counts only the window: an earlier one has no calls', async () => {
    const m = await map(l, t, { from: iso(T0 - 60 * MINUTE), to: iso(T0), projectId: t.projectId });
    expect(m).toMatchObject({ nodes: [], edges: [] });
  });

  it('keeps projects apart: another project has its own map, and a stranger\'s read of this one is 404', async () => {
    const other = await addProject(l, t);
    expect(await map(l, t, { ...window, projectId: other.projectId })).toMatchObject({ nodes: [], edges: [] });
    const stranger = await createTenancy(l, 'service-map-stranger');
    expectError(await getAs(l, stranger.token, '/metrics/services', { ...window, projectId: t.projectId }), 404, 'not_found');
  });

  it('answers 400 without a projectId or with a window that ends before it starts, 401 without a token', async () => {
    expectError(await getAs(l, t.token, '/metrics/services', window), 400, 'missing_parameter');
    expectError(await getAs(l, t.token, '/metrics/services', { projectId: t.projectId, from: window.to, to: window.from }), 400, 'validation_failed');
    expectError(await l.http.get('/metrics/services'), 401, 'unauthorized');
  });
});
