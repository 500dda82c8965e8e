import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import type { Span } from '@lantern/domain';
import type { MetricsQuery } from '../port.js';
import { T0, makeWorld, rootSpan, span, spanBatch } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';
import { expectRollupsTrue } from './metrics-recompute.js';

const MINUTE = 60_000;

/** Deterministic pseudo-random numbers, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
}

export function metricsContract(ctx: StoreContext): void {
  const query = (w: World, extra: Partial<MetricsQuery> = {}): MetricsQuery =>
    ({ userId: w.user.id, from: T0 - 10 * MINUTE, to: T0 + 20 * MINUTE, bucketMs: MINUTE, ...extra });

  describe('metrics rollups', () => {
    it('equal a recomputation from the raw entry spans: counts and errors exactly, p50/p95/p99 within 1%', async () => {
      const w = await makeWorld(ctx.store);
      const called = await ctx.store.createApplication({ name: 'called', projectId: w.project.id });
      const next = random(7);
      for (let batch = 0; batch < 6; batch++) {
        const mine: Span[] = [];
        const theirs: Span[] = [];
        for (let i = 0; i < 60; i++) {
          const t = newId();
          const at = T0 - 5 * MINUTE + Math.floor(next() * 20 * MINUTE);
          const durationMs = i % 17 === 0 ? 0 : i % 19 === 0 ? undefined : 1 + Math.floor(next() * next() * 3000);
          const status = next() < 0.1 ? 500 + Math.floor(next() * 4) : next() < 0.2 ? 404 : 200;
          const root = rootSpan(t, at, { durationMs, responseStatus: status });
          const call = span(t, at + 1, { parentSpanId: root.spanId, requestMethod: 'external:called' });
          // The called application's entry span (its parent is in the other application) and a nested controller span.
          const entry = span(t, at + 2, { parentSpanId: call.spanId, requestMethod: 'controller:POST', durationMs: 1 + Math.floor(next() * 500), responseStatus: next() < 0.3 ? 503 : 201 });
          const nested = span(t, at + 3, { parentSpanId: entry.spanId, requestMethod: 'controller:inner', durationMs: 1, responseStatus: 500 });
          mine.push(root, call, span(t, at + 4, { parentSpanId: root.spanId, requestMethod: 'service:db' }));
          theirs.push(nested, entry);
          if (i % 10 === 0) mine.push(span(newId(), at, { requestMethod: 'service:job', durationMs: 90_000, responseStatus: 500 }));
        }
        await ctx.store.writeSpans(spanBatch(w.app, mine));
        await ctx.store.writeSpans(spanBatch(called, theirs));
      }
      const cells = await expectRollupsTrue(ctx.store, query(w));
      expect(cells.reduce((n, c) => n + c.requests, 0)).toBe(720);
      expect(new Set(cells.map((c) => c.applicationId))).toEqual(new Set([w.app.id, called.id]));
      await expectRollupsTrue(ctx.store, query(w, { bucketMs: 5 * MINUTE }));
      await expectRollupsTrue(ctx.store, query(w, { from: T0, to: T0 + 3 * MINUTE, applicationId: called.id }));
    });

    it('count whole minutes: from inclusive, to exclusive', async () => {
      const w = await makeWorld(ctx.store);
      await ctx.store.writeSpans(spanBatch(w.app, [T0 - 1, T0, T0 + MINUTE - 1, T0 + MINUTE, T0 + 2 * MINUTE].map((at) => rootSpan(newId(), at))));
      const cells = await expectRollupsTrue(ctx.store, query(w, { from: T0, to: T0 + 2 * MINUTE }));
      expect(cells.map((c) => [c.bucket, c.requests])).toEqual([[T0, 2], [T0 + MINUTE, 1]]);
      const wide = await expectRollupsTrue(ctx.store, query(w, { from: T0 - 2 * MINUTE, to: T0 + 4 * MINUTE, bucketMs: 2 * MINUTE }));
      expect(wide.map((c) => [c.bucket, c.requests])).toEqual([[T0 - 2 * MINUTE, 1], [T0, 3], [T0 + 2 * MINUTE, 1]]);
    });

    it('count a repeated span once, with its first version, whether repeated in a batch, a batch or a redelivery', async () => {
      const w = await makeWorld(ctx.store);
      const first = rootSpan(newId(), T0, { durationMs: 100, responseStatus: 500 });
      const batch = [first, rootSpan(newId(), T0 + 1, { durationMs: 200 }), { ...first, durationMs: 900 }];
      await ctx.store.writeSpans(spanBatch(w.app, batch));
      await ctx.store.writeSpans(spanBatch(w.app, batch));
      await ctx.store.writeSpans(spanBatch(w.app, [{ ...first, responseStatus: 200, durationMs: 5 }]));
      const [cell, ...none] = await expectRollupsTrue(ctx.store, query(w));
      expect(none).toEqual([]);
      expect(cell).toMatchObject({ requests: 2, errors: 1 });
      expect(Math.abs(cell!.sketch.quantile(0.5)! - 100)).toBeLessThanOrEqual(1);
    });

    it('take a controller span out once its late parent of the same application arrives', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const parent = span(t, T0, { requestMethod: 'service:job' });
      const child = rootSpan(t, T0 + MINUTE, { parentSpanId: parent.spanId, responseStatus: 503 });
      const entry = rootSpan(t, T0 + 2 * MINUTE, { parentSpanId: newId(), durationMs: 70 });
      await ctx.store.writeSpans(spanBatch(w.app, [child, entry]));
      expect((await expectRollupsTrue(ctx.store, query(w))).map((c) => [c.bucket, c.requests, c.errors])).toEqual([[T0 + MINUTE, 1, 1], [T0 + 2 * MINUTE, 1, 0]]);
      await ctx.store.writeSpans(spanBatch(w.app, [parent]));
      expect((await expectRollupsTrue(ctx.store, query(w))).map((c) => [c.bucket, c.requests])).toEqual([[T0 + 2 * MINUTE, 1]]);
      // The parent again changes nothing; nor does the child again.
      await ctx.store.writeSpans(spanBatch(w.app, [parent, child]));
      expect((await expectRollupsTrue(ctx.store, query(w))).map((c) => c.requests)).toEqual([1]);
    });

    it('never count a controller span whose parent of the same application came first, or in the same batch', async () => {
      const w = await makeWorld(ctx.store);
      const [a, b] = [newId(), newId()];
      const rootA = rootSpan(a, T0, { durationMs: 40 });
      await ctx.store.writeSpans(spanBatch(w.app, [rootA]));
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(a, T0 + 1, { parentSpanId: rootA.spanId, durationMs: 9000 })]));
      const rootB = rootSpan(b, T0 + 2, { durationMs: 50 });
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(b, T0 + 3, { parentSpanId: rootB.spanId, durationMs: 9000 }), rootB]));
      const [cell] = await expectRollupsTrue(ctx.store, query(w));
      expect(cell).toMatchObject({ requests: 2 });
      expect(cell!.sketch.quantile(1)!).toBeLessThan(60);
    });

    it('keep counting an entry span whose parent arrives in another application, in either order', async () => {
      const w = await makeWorld(ctx.store);
      const other = await ctx.store.createApplication({ name: 'caller', projectId: w.project.id });
      const [a, b] = [newId(), newId()];
      const callerA = span(a, T0, { requestMethod: 'external:call' });
      const callerB = span(b, T0, { requestMethod: 'external:call' });
      await ctx.store.writeSpans(spanBatch(other, [callerA]));
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(a, T0 + 1, { parentSpanId: callerA.spanId }), rootSpan(b, T0 + 1, { parentSpanId: callerB.spanId })]));
      await ctx.store.writeSpans(spanBatch(other, [callerB]));
      const cells = await expectRollupsTrue(ctx.store, query(w, { applicationId: w.app.id }));
      expect(cells.map((c) => c.requests)).toEqual([2]);
    });

    it('follow retention: minutes before the cut-off go, and so do the later entry spans of purged traces', async () => {
      const w = await makeWorld(ctx.store);
      const [old, straddling, kept] = [newId(), newId(), newId()];
      const oldRoot = rootSpan(old, T0 - 3 * MINUTE);
      const start = span(straddling, T0 - MINUTE, { requestMethod: 'service:consumer' });
      await ctx.store.writeSpans(spanBatch(w.app, [
        oldRoot, rootSpan(old, T0 - 3 * MINUTE + 5, { parentSpanId: oldRoot.spanId }),
        start, rootSpan(straddling, T0 + 2 * MINUTE, { parentSpanId: newId() }), // an entry after the cut-off in a trace before it
        rootSpan(kept, T0 + 30_000), rootSpan(newId(), T0 + 45_000, { parentSpanId: newId() }),
      ]));
      expect((await expectRollupsTrue(ctx.store, query(w))).map((c) => [c.bucket, c.requests])).toEqual([[T0 - 3 * MINUTE, 1], [T0, 2], [T0 + 2 * MINUTE, 1]]);
      await ctx.store.purgeTelemetryBefore(T0 + 10_000);
      const after = await expectRollupsTrue(ctx.store, query(w));
      expect(after.map((c) => [c.bucket, c.requests])).toEqual([[T0, 2]]);
      // Late spans before the cut-off count again, as their spans are stored again.
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(newId(), T0 - 2 * MINUTE)]));
      expect((await expectRollupsTrue(ctx.store, query(w))).map((c) => [c.bucket, c.requests])).toEqual([[T0 - 2 * MINUTE, 1], [T0, 2]]);
    });

    it('show only the projects the user is a member of, narrowed by project and application', async () => {
      const a = await makeWorld(ctx.store, 'a');
      const b = await makeWorld(ctx.store, 'b');
      const a2 = await ctx.store.createProject({ name: 'second', organizationId: a.org.id });
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: a2.id });
      for (const app of [a.app, b.app, app2]) await ctx.store.writeSpans(spanBatch(app, [rootSpan(newId(), T0)]));
      const apps = async (user: World, extra: Partial<MetricsQuery> = {}) =>
        (await ctx.store.readMetrics(query(user, extra))).map((c) => c.applicationId);
      expect(await apps(a)).toEqual([a.app.id, app2.id]);
      expect(await apps(a, { projectId: b.project.id })).toEqual([]);
      expect(await apps(a, { applicationId: b.app.id })).toEqual([]);
      expect(await apps(a, { projectId: a2.id })).toEqual([app2.id]);
      expect(await apps(a, { applicationId: a.app.id })).toEqual([a.app.id]);
      expect(await apps(b)).toEqual([b.app.id]);
      await ctx.store.addMember(b.org.id, a.user.id, 'member');
      expect(await apps(a)).toEqual([a.app.id, b.app.id, app2.id].sort((x, y) => x - y));
    });
  });
}
