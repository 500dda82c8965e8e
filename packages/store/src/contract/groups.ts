import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import { T0, collect, logBatch, logEntry, makeWorld, rootSpan, span, spanBatch } from './fixtures.js';
import type { StoreContext } from './fixtures.js';

/**
 * `writeSpanBatches` / `writeLogBatches`: the batches the bus delivered together, written as `writeSpans` /
 * `writeLogs` one after the other would (an adapter may commit them as one group, or several calls as one).
 */
export function groupsContract(ctx: StoreContext): void {
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

    it('accepts an empty group', async () => {
      await expect(ctx.store.writeSpanBatches([])).resolves.toBeUndefined();
      await expect(ctx.store.writeLogBatches([])).resolves.toBeUndefined();
    });
  });
}
