import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import type { Span } from '@lantern/domain';
import type { MetricsCell, MetricsQuery } from '../port.js';
import { MAX_OPERATIONS_PER_HOUR } from '../operation-rollups.js';
import { HOUR, T0, makeWorld, rootSpan, span, spanBatch } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';
import { expectRollupsTrue } from './metrics-recompute.js';

const MINUTE = 60_000;

/** Requests per operation over the cells (null: the other operations). */
const perOperation = (cells: MetricsCell[]): Map<string | null, number> => {
  const out = new Map<string | null, number>();
  for (const c of cells) out.set(c.operation ?? null, (out.get(c.operation ?? null) ?? 0) + c.requests);
  return out;
};

/**
 * Metrics per operation (GET /metrics/operations): the entry spans counted per operation as well. Every check of
 * expectRollupsTrue in the other metrics contracts compares them with the recomputation too (repeats, late
 * parents, hours, retention); these check the names and the bound on them.
 */
export function metricsOperationsContract(ctx: StoreContext): void {
  const query = (w: World, extra: Partial<MetricsQuery> = {}): MetricsQuery =>
    ({ userId: w.user.id, from: T0 - HOUR, to: T0 + 2 * HOUR, bucketMs: HOUR, byOperation: true, ...extra });

  describe('metrics per operation', () => {
    it('count each entry span under its operation: an OpenTelemetry name, a method with its route, a Lantern request method', async () => {
      const w = await makeWorld(ctx.store);
      const t = (fields: Partial<Span>) => rootSpan(newId(), T0 + 5 * MINUTE, fields);
      await ctx.store.writeSpans(spanBatch(w.app, [
        t({ requestMethod: 'controller:GET', kind: 'server', name: 'GET /orders/:id', responseStatus: 200 }),
        t({ requestMethod: 'controller:GET', kind: 'server', name: 'GET /orders/:id', responseStatus: 503 }),
        t({ requestMethod: 'controller:POST', route: '/checkout' }),
        t({ requestMethod: 'controller:GET /items' }),
        t({ requestMethod: 'controller:' }), // no name: the other operations
        span(newId(), T0 + 5 * MINUTE, { requestMethod: 'service:job', name: 'nightly' }), // not a controller span: not an entry
      ]));
      const cells = await expectRollupsTrue(ctx.store, query(w, { byOperation: false }));
      expect(cells.map((c) => c.requests)).toEqual([5]);
      const ops = await ctx.store.readMetrics(query(w));
      expect(ops.map((c) => [c.operation, c.requests, c.errors])).toEqual([
        ['GET /items', 1, 0], ['GET /orders/:id', 2, 1], ['POST /checkout', 1, 0], [null, 1, 0],
      ]);
    });

    it(`keep at most ${MAX_OPERATIONS_PER_HOUR} names in an application's hour, the first ones: the others count together, and leave it when taken out`, async () => {
      const w = await makeWorld(ctx.store);
      const other = await ctx.store.createApplication({ name: 'other', projectId: w.project.id });
      const names = Array.from({ length: MAX_OPERATIONS_PER_HOUR + 3 }, (_, i) => `GET /route/${String(i).padStart(3, '0')}`);
      const first = names.slice(0, MAX_OPERATIONS_PER_HOUR);
      // The first names in two batches, then the rest: kept are those that came first.
      await ctx.store.writeSpans(spanBatch(w.app, first.slice(0, 150).map((name) => rootSpan(newId(), T0 + MINUTE, { name }))));
      await ctx.store.writeSpans(spanBatch(w.app, first.slice(150).map((name) => rootSpan(newId(), T0 + 2 * MINUTE, { name }))));
      const late = names.slice(MAX_OPERATIONS_PER_HOUR).map((name) => rootSpan(newId(), T0 + 3 * MINUTE, { name, parentSpanId: newId() }));
      await ctx.store.writeSpans(spanBatch(w.app, [...late, rootSpan(newId(), T0 + 4 * MINUTE, { name: first[0] })]));
      // Another hour and another application keep their own names.
      await ctx.store.writeSpans(spanBatch(w.app, names.slice(-1).map((name) => rootSpan(newId(), T0 + HOUR, { name }))));
      await ctx.store.writeSpans(spanBatch(other, names.slice(-2).map((name) => rootSpan(newId(), T0 + 5 * MINUTE, { name }))));

      const hour = perOperation(await ctx.store.readMetrics(query(w, { applicationId: w.app.id, to: T0 + HOUR })));
      expect(hour.size).toBe(MAX_OPERATIONS_PER_HOUR + 1);
      expect(hour.get(first[0]!)).toBe(2);
      expect(hour.get(first[MAX_OPERATIONS_PER_HOUR - 1]!)).toBe(1);
      expect(hour.get(null)).toBe(3);
      expect(perOperation(await ctx.store.readMetrics(query(w, { applicationId: w.app.id, from: T0 + HOUR })))).toEqual(new Map([[names.at(-1)!, 1]]));
      expect(perOperation(await ctx.store.readMetrics(query(w, { applicationId: other.id })))).toEqual(new Map(names.slice(-2).map((n) => [n, 1])));
      // Minutes and hours agree, and with the application's own cells.
      const byMinute = perOperation(await ctx.store.readMetrics(query(w, { applicationId: w.app.id, to: T0 + HOUR, bucketMs: MINUTE })));
      expect(byMinute).toEqual(hour);
      const total = await ctx.store.readMetrics(query(w, { applicationId: w.app.id, to: T0 + HOUR, byOperation: false }));
      expect(total.reduce((n, c) => n + c.requests, 0)).toBe(MAX_OPERATIONS_PER_HOUR + 4);

      // A late parent takes its child out of the cell it was counted in: the other operations.
      await ctx.store.writeSpans(spanBatch(w.app, [span(late[0]!.traceId, T0 + 3 * MINUTE - 1, { spanId: late[0]!.parentSpanId!, requestMethod: 'service:job' })]));
      const after = perOperation(await ctx.store.readMetrics(query(w, { applicationId: w.app.id, to: T0 + HOUR })));
      expect(after.get(null)).toBe(2);
      expect(after.size).toBe(MAX_OPERATIONS_PER_HOUR + 1);
    });
  });
}
