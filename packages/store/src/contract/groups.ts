import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import { T0, collect, logBatch, logEntry, makeWorld, rootSpan, span, spanBatch } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';
import { expectRollupsTrue } from './metrics-recompute.js';

const MINUTE = 60_000;

/**
 * `writeSpanBatches` / `writeLogBatches`: the batches the bus delivered together, written as `writeSpans` /
 * `writeLogs` one after the other would (an adapter may commit them as one group, or several calls as one).
 */
export function groupsContract(ctx: StoreContext): void {
  /** The requests GET /metrics counts for the world's project (checked against the raw entry spans). */
  const requests = async (w: World): Promise<number> =>
    (await expectRollupsTrue(ctx.store, { userId: w.user.id, from: T0 - 10 * MINUTE, to: T0 + 10 * MINUTE, bucketMs: MINUTE }))
      .reduce((n, c) => n + c.requests, 0);

  describe('batches written together', () => {
    it('joins the spans of one trace from several batches of a group, and stores a repeated span once', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const root = rootSpan(t, T0);
      const child = span(t, T0 + 5, { parentSpanId: root.spanId });
      await ctx.store.writeSpanBatches([spanBatch(w.app, [root]), spanBatch(w.app, [child, root]), spanBatch(w.app, [child])]);
      const records = await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id }));
      expect(records).toHaveLength(1);
      expect(records[0]!.telemetry.map((s) => s.spanId)).toEqual([root.spanId, child.spanId]);
    });

    it('skips a batch of the group whose idempotency key an earlier batch of the same group claimed', async () => {
      const w = await makeWorld(ctx.store);
      const [a, b] = [newId(), newId()];
      await ctx.store.writeSpanBatches([
        spanBatch(w.app, [rootSpan(a, T0)], { idempotencyKey: 'g' }),
        spanBatch(w.app, [rootSpan(b, T0)], { idempotencyKey: 'g' }),
      ]);
      const ids = (await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id }))).map((r) => r.traceId);
      expect(ids).toEqual([a]);
    });

    it('stores every log of every batch of a group', async () => {
      const w = await makeWorld(ctx.store);
      const logs = [logEntry(w.app, T0), logEntry(w.app, T0 + 1), logEntry(w.app, T0 + 2)];
      await ctx.store.writeLogBatches([logBatch(w.app, logs.slice(0, 2)), logBatch(w.app, logs.slice(2))]);
      const stored = await collect(ctx.store.streamLogs({ userId: w.user.id, projectId: w.project.id }));
      expect(stored.map((l) => l.id).sort()).toEqual(logs.map((l) => l.id).sort());
    });

    it('stores every batch of many concurrent calls, each resolved once it is stored', async () => {
      const w = await makeWorld(ctx.store);
      const traces = Array.from({ length: 40 }, () => newId());
      await Promise.all(traces.map((t, i) => ctx.store.writeSpanBatches([spanBatch(w.app, [rootSpan(t, T0 + i)])])));
      const ids = (await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id }))).map((r) => r.traceId);
      expect(ids.sort()).toEqual([...traces].sort());
    });

    it('counts a span repeated by two batches of a group once, in the traces and in the metrics', async () => {
      const w = await makeWorld(ctx.store);
      const roots = Array.from({ length: 6 }, (_, i) => rootSpan(newId(), T0 + i * 1000, { durationMs: 10 + i, responseStatus: i % 3 ? 200 : 500 }));
      const again = { ...roots[2]!, durationMs: 999, responseStatus: 200 };
      await ctx.store.writeSpanBatches([spanBatch(w.app, roots.slice(0, 3)), spanBatch(w.app, [again, ...roots.slice(3)])]);
      const records = await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id }));
      expect(records.map((r) => r.telemetry.length)).toEqual(Array(6).fill(1));
      // The first version stays: its duration and status, counted once.
      expect(records.find((r) => r.traceId === roots[2]!.traceId)?.telemetry[0]).toEqual(roots[2]);
      expect(await requests(w)).toBe(6);
    });

    it('does not count a controller span whose parent came in another batch of the group, before or after it', async () => {
      const w = await makeWorld(ctx.store);
      const batches = [0, 1].flatMap((order) => {
        const t = newId();
        const root = rootSpan(t, T0 + order * 1000, { durationMs: 40 });
        const nested = rootSpan(t, T0 + order * 1000 + 1, { parentSpanId: root.spanId, durationMs: 5 });
        const pair = [spanBatch(w.app, [root]), spanBatch(w.app, [nested, span(t, T0 + order * 1000 + 2, { parentSpanId: nested.spanId })])];
        return order === 0 ? pair : pair.reverse();
      });
      await ctx.store.writeSpanBatches(batches);
      expect(await requests(w)).toBe(2);
      const records = await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id }));
      expect(records.map((r) => r.telemetry.length)).toEqual([3, 3]);
    });

    it('converges when a group is delivered again after part of it was stored (a failure half-way)', async () => {
      const w = await makeWorld(ctx.store);
      const group = Array.from({ length: 5 }, (_, i) => {
        const t = newId();
        const root = rootSpan(t, T0 + i * 7000, { durationMs: 20 + i, responseStatus: i === 2 ? 503 : 200 });
        return spanBatch(w.app, [root, span(t, T0 + i * 7000 + 1, { parentSpanId: root.spanId })], i % 2 ? { idempotencyKey: `half-${i}` } : {});
      });
      await ctx.store.writeSpanBatches(group.slice(0, 3));
      await ctx.store.writeSpanBatches(group);
      await ctx.store.writeSpanBatches(group);
      const records = await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id }));
      expect(records.map((r) => r.telemetry.length)).toEqual(Array(5).fill(2));
      expect(await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id, status: { min: 500, max: 599 } }))).toHaveLength(1);
      expect(await requests(w)).toBe(5);
      // The keys of the group are claimed: a new batch under one of them is skipped.
      await ctx.store.writeSpanBatches([spanBatch(w.app, [rootSpan(newId(), T0)], { idempotencyKey: 'half-3' })]);
      expect(await requests(w)).toBe(5);
    });

    it('accepts an empty group', async () => {
      await expect(ctx.store.writeSpanBatches([])).resolves.toBeUndefined();
      await expect(ctx.store.writeLogBatches([])).resolves.toBeUndefined();
    });
  });
}
