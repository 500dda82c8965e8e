import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import type { Application, Span } from '@lantern/domain';
import type { MetricsCell, MetricsQuery } from '../port.js';
import { HOUR, T0, makeWorld, rootSpan, span, spanBatch } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';
import { exactQuantile } from './metrics-recompute.js';

const MINUTE = 60_000;

/** The calls of the window as [caller, callee, calls, errors], by callee then caller. */
const edges = (cells: MetricsCell[]): Array<[number, number, number, number]> =>
  cells.map((c) => [c.callerApplicationId!, c.applicationId, c.requests, c.errors]);

/**
 * The service map's calls (GET /metrics/services): an entry span whose parent is a span of another application of
 * the project counts as a call from that application, once, whichever of the two is stored first.
 */
export function serviceMapContract(ctx: StoreContext): void {
  const query = (w: World, extra: Partial<MetricsQuery> = {}): MetricsQuery =>
    ({ userId: w.user.id, from: T0 - HOUR, to: T0 + HOUR, bucketMs: 2 * HOUR, byCaller: true, ...extra });
  const calls = async (w: World, extra: Partial<MetricsQuery> = {}) => edges(await ctx.store.readMetrics(query(w, extra)));

  /** A request of `caller` (its root and its client span) calling `callee`'s entry span. */
  const call = (at: number, fields: Partial<Span> = {}) => {
    const t = newId();
    const root = rootSpan(t, at, { requestMethod: 'controller:GET /shop' });
    const client = span(t, at + 1, { parentSpanId: root.spanId, requestMethod: 'external:payments' });
    const entry = span(t, at + 2, { parentSpanId: client.spanId, requestMethod: 'controller:POST /pay', durationMs: 40, responseStatus: 201, ...fields });
    return { caller: [root, client], entry };
  };

  describe('service map calls', () => {
    it('count an entry span under a span of another application as a call from it, whichever is stored first', async () => {
      const w = await makeWorld(ctx.store);
      const payments = await ctx.store.createApplication({ name: 'payments', projectId: w.project.id });
      const ledger = await ctx.store.createApplication({ name: 'ledger', projectId: w.project.id });
      const first = call(T0, { durationMs: 30 });
      const late = call(T0 + MINUTE, { durationMs: 50, responseStatus: 503 });
      // The caller first, then the callee; and the callee first, its caller after.
      await ctx.store.writeSpans(spanBatch(w.app, [...first.caller, ...late.caller.slice(0, 1)]));
      await ctx.store.writeSpans(spanBatch(payments, [first.entry, late.entry]));
      await ctx.store.writeSpans(spanBatch(w.app, late.caller.slice(1)));
      // payments calls ledger; a nested controller span of payments and an entry whose parent is stored nowhere are no calls.
      const db = span(first.entry.traceId, T0 + 3, { parentSpanId: first.entry.spanId, requestMethod: 'external:ledger' });
      await ctx.store.writeSpans(spanBatch(payments, [db, span(first.entry.traceId, T0 + 4, { parentSpanId: first.entry.spanId, requestMethod: 'controller:inner' })]));
      await ctx.store.writeSpans(spanBatch(ledger, [span(first.entry.traceId, T0 + 5, { parentSpanId: db.spanId, requestMethod: 'controller:PUT /entries', durationMs: 7 }),
        span(newId(), T0 + 6, { parentSpanId: newId(), requestMethod: 'controller:PUT /entries' })]));
      expect(await calls(w)).toEqual([[w.app.id, payments.id, 2, 1], [payments.id, ledger.id, 1, 0]]);
      // Latency is the called entry span's.
      const [toPayments] = await ctx.store.readMetrics(query(w, { applicationId: payments.id }));
      for (const q of [0.5, 0.99]) expect(toPayments!.sketch.quantile(q)!).toBeCloseTo(exactQuantile([30, 50], q), -0.5);
      // By minute, and narrowed to the called application.
      expect((await ctx.store.readMetrics(query(w, { bucketMs: MINUTE, from: T0, to: T0 + 2 * MINUTE, applicationId: payments.id }))).map((c) => [c.bucket, c.requests]))
        .toEqual([[T0, 1], [T0 + MINUTE, 1]]);
    });

    it('count a call once: spans sent again, in either order, add nothing; a parent of its own application is no call', async () => {
      const w = await makeWorld(ctx.store);
      const payments = await ctx.store.createApplication({ name: 'payments', projectId: w.project.id });
      const c = call(T0);
      await ctx.store.writeSpans(spanBatch(payments, [c.entry]));
      await ctx.store.writeSpans(spanBatch(w.app, c.caller));
      await ctx.store.writeSpans(spanBatch(payments, [c.entry]));
      await ctx.store.writeSpans(spanBatch(w.app, c.caller));
      expect(await calls(w)).toEqual([[w.app.id, payments.id, 1, 0]]);
      // A controller span waiting for its parent, which arrives in its own application: not a call, and no later
      // span of another application with that id makes it one.
      const t = newId();
      const child = span(t, T0 + 10, { parentSpanId: newId(), requestMethod: 'controller:job' });
      await ctx.store.writeSpans(spanBatch(payments, [child]));
      await ctx.store.writeSpans(spanBatch(payments, [span(t, T0 + 9, { spanId: child.parentSpanId!, requestMethod: 'service:cron' })]));
      await ctx.store.writeSpans(spanBatch(w.app, [span(t, T0 + 9, { spanId: child.parentSpanId!, requestMethod: 'service:cron' })]));
      expect(await calls(w)).toEqual([[w.app.id, payments.id, 1, 0]]);
      // A call counted, then a span of the callee's own application with the parent's id: the span is no entry and
      // no call any more, as if that parent had come first.
      const u = newId();
      const shared = span(u, T0 + 20, { requestMethod: 'external:payments' });
      const entry = span(u, T0 + 21, { parentSpanId: shared.spanId, requestMethod: 'controller:POST /pay' });
      await ctx.store.writeSpans(spanBatch(w.app, [shared]));
      await ctx.store.writeSpans(spanBatch(payments, [entry]));
      expect(await calls(w)).toEqual([[w.app.id, payments.id, 2, 0]]);
      await ctx.store.writeSpans(spanBatch(payments, [span(u, T0 + 20, { spanId: shared.spanId, requestMethod: 'service:inner' })]));
      expect(await calls(w)).toEqual([[w.app.id, payments.id, 1, 0]]);
    });

    it('follow retention: the calls of minutes before the cut-off go, and so do the later calls of purged traces', async () => {
      const w = await makeWorld(ctx.store);
      const payments = await ctx.store.createApplication({ name: 'payments', projectId: w.project.id });
      const old = call(T0 - 3 * MINUTE);
      const kept = call(T0 + MINUTE);
      // A trace of payments that starts before the cut-off and is called after it.
      const straddling = call(T0 + 2 * MINUTE);
      const early = span(straddling.entry.traceId, T0 - MINUTE, { requestMethod: 'service:consumer' });
      await ctx.store.writeSpans(spanBatch(w.app, [...old.caller, ...kept.caller, ...straddling.caller]));
      await ctx.store.writeSpans(spanBatch(payments, [old.entry, kept.entry, straddling.entry, early]));
      expect(await calls(w)).toEqual([[w.app.id, payments.id, 3, 0]]);
      await ctx.store.purgeTelemetryBefore(T0 + 10_000);
      expect(await calls(w)).toEqual([[w.app.id, payments.id, 1, 0]]);
      expect((await ctx.store.readMetrics(query(w, { bucketMs: MINUTE, from: T0 - 5 * MINUTE, to: T0 + 5 * MINUTE }))).map((c) => c.bucket)).toEqual([T0 + MINUTE]);
    });

    it('show only the calls of the projects the user is a member of', async () => {
      const a = await makeWorld(ctx.store, 'a');
      const b = await makeWorld(ctx.store, 'b');
      const called: Application = await ctx.store.createApplication({ name: 'called', projectId: b.project.id });
      const c = call(T0);
      await ctx.store.writeSpans(spanBatch(b.app, c.caller));
      await ctx.store.writeSpans(spanBatch(called, [c.entry]));
      expect(await calls(a)).toEqual([]);
      expect(await calls(a, { projectId: b.project.id })).toEqual([]);
      expect(await calls(b)).toEqual([[b.app.id, called.id, 1, 0]]);
    });
  });
}
