import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import { HOUR, T0, collect, logBatch, logEntry, makeWorld, rootSpan, spanBatch } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';

/**
 * Idempotency keys are judged by the batches' `receivedAt` (when ingest accepted them), so that a message
 * the writer processes late, or twice, is judged by when the client sent it.
 */
export function idempotencyContract(ctx: StoreContext): void {
  const traceIds = async (world: World) =>
    (await collect(ctx.store.streamTraces({ userId: world.user.id, projectId: world.project.id }))).map((r) => r.traceId).sort();
  const logIds = async (world: World) =>
    (await collect(ctx.store.streamLogs({ userId: world.user.id, projectId: world.project.id }))).map((l) => l.id).sort();

  describe('idempotency keys', () => {
    it('skips a span batch whose key the application used less than 24 h before', async () => {
      const w = await makeWorld(ctx.store);
      const [a, b, c] = [newId(), newId(), newId()];
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(a, T0)], { idempotencyKey: 'k-1', receivedAt: T0 }));
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(b, T0)], { idempotencyKey: 'k-1', receivedAt: T0 + 23 * HOUR }));
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(c, T0)], { idempotencyKey: 'k-2', receivedAt: T0 + HOUR }));
      expect(await traceIds(w)).toEqual([a, c].sort());
    });

    it('accepts the key again once 24 h have passed', async () => {
      const w = await makeWorld(ctx.store);
      const [a, b, c] = [newId(), newId(), newId()];
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(a, T0)], { idempotencyKey: 'k', receivedAt: T0 }));
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(b, T0)], { idempotencyKey: 'k', receivedAt: T0 + 25 * HOUR }));
      // The key now counts from its second use.
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(c, T0)], { idempotencyKey: 'k', receivedAt: T0 + 26 * HOUR }));
      expect(await traceIds(w)).toEqual([a, b].sort());
    });

    it('keeps keys apart per application', async () => {
      const w = await makeWorld(ctx.store);
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: w.project.id });
      const [a, b] = [newId(), newId()];
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(a, T0)], { idempotencyKey: 'same' }));
      await ctx.store.writeSpans(spanBatch(app2, [rootSpan(b, T0)], { idempotencyKey: 'same' }));
      expect(await traceIds(w)).toEqual([a, b].sort());
    });

    it('skips a log batch whose key the application used less than 24 h before', async () => {
      const w = await makeWorld(ctx.store);
      const first = logEntry(w.app, T0);
      const retry = logEntry(w.app, T0); // a client retry gets new ids at ingest: only the key can tell
      const later = logEntry(w.app, T0);
      await ctx.store.writeLogs(logBatch(w.app, [first], { idempotencyKey: 'k', receivedAt: T0 }));
      await ctx.store.writeLogs(logBatch(w.app, [retry], { idempotencyKey: 'k', receivedAt: T0 + 10_000 }));
      await ctx.store.writeLogs(logBatch(w.app, [later], { idempotencyKey: 'k', receivedAt: T0 + 24 * HOUR + 1 }));
      expect(await logIds(w)).toEqual([first.id, later.id].sort());
    });

    it('keeps span keys and log keys apart', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const log = logEntry(w.app, T0);
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(t, T0)], { idempotencyKey: 'shared' }));
      await ctx.store.writeLogs(logBatch(w.app, [log], { idempotencyKey: 'shared' }));
      expect(await traceIds(w)).toEqual([t]);
      expect(await logIds(w)).toEqual([log.id]);
    });

    it('a batch skipped for its key leaves existing records untouched', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const root = rootSpan(t, T0 + 500);
      await ctx.store.writeSpans(spanBatch(w.app, [root], { idempotencyKey: 'k' }));
      const before = await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id }));
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(t, T0, { parentSpanId: root.spanId })], { idempotencyKey: 'k' }));
      expect(await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id }))).toEqual(before);
    });
  });
}
