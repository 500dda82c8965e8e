import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import type { TraceRecord } from '@lantern/domain';
import type { TraceQuery } from '../port.js';
import { T0, collect, cursorOf, makeWorld, newestFirst, readInPages, rootSpan, span, spanBatch } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';

export function traceQueriesContract(ctx: StoreContext): void {
  const traces = (world: World, query: Partial<TraceQuery> = {}): Promise<TraceRecord[]> =>
    collect(ctx.store.streamTraces({ userId: world.user.id, projectId: world.project.id, ...query }));

  /** `count` one-span traces, three per timestamp (so ties on the timestamp are everywhere), one second apart. */
  async function writeTraces(world: World, count: number): Promise<void> {
    const spans = Array.from({ length: count }, (_, i) => rootSpan(newId(), T0 + Math.floor(i / 3) * 1000));
    await ctx.store.writeSpans(spanBatch(world.app, spans));
  }

  describe('trace queries', () => {
    it('returns records newest first, equal timestamps by id descending', async () => {
      const w = await makeWorld(ctx.store);
      await writeTraces(w, 9);
      const records = await traces(w);
      expect(records).toHaveLength(9);
      expect(records.map((r) => r.id)).toEqual(newestFirst(records).map((r) => r.id));
      expect(new Set(records.map((r) => r.timestamp)).size).toBe(3);
    });

    it('pages with limit and cursor: the pages put together are the full list, without duplicates', async () => {
      const w = await makeWorld(ctx.store);
      await writeTraces(w, 13);
      const full = await traces(w);
      const pages = await readInPages((cursor) => ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id, limit: 4, cursor }), 4);
      expect(pages.map((p) => p.length)).toEqual([4, 4, 4, 1]);
      expect(pages.flat()).toEqual(full);
    });

    it('a cursor returns exactly the records after that position', async () => {
      const w = await makeWorld(ctx.store);
      await writeTraces(w, 10);
      const full = await traces(w);
      for (const at of [0, 4, 5, 9]) {
        expect(await traces(w, { cursor: cursorOf(full[at]!) })).toEqual(full.slice(at + 1));
      }
    });

    it('streams hundreds of records once each, in order', async () => {
      const w = await makeWorld(ctx.store);
      await writeTraces(w, 650);
      const records = await traces(w);
      expect(records).toHaveLength(650);
      expect(new Set(records.map((r) => r.id)).size).toBe(650);
      expect(records.map((r) => r.id)).toEqual(newestFirst(records).map((r) => r.id));
    });

    it('stops after limit records; a limit of 0 yields none', async () => {
      const w = await makeWorld(ctx.store);
      await writeTraces(w, 7);
      const full = await traces(w);
      expect(await traces(w, { limit: 3 })).toEqual(full.slice(0, 3));
      expect(await traces(w, { limit: 0 })).toEqual([]);
      expect(await traces(w, { limit: 50 })).toEqual(full);
    });

    it('filters on the time window: from inclusive, to exclusive', async () => {
      const w = await makeWorld(ctx.store);
      const [a, b, c] = [newId(), newId(), newId()];
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(a, T0), rootSpan(b, T0 + 1000), rootSpan(c, T0 + 2000)]));
      expect((await traces(w, { from: T0 + 1000, to: T0 + 2000 })).map((r) => r.traceId)).toEqual([b]);
      expect((await traces(w, { from: T0 + 1 })).map((r) => r.traceId)).toEqual([c, b]);
      expect((await traces(w, { to: T0 + 1000 })).map((r) => r.traceId)).toEqual([a]);
    });

    it('filters on the trace timestamp, i.e. its earliest span', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const root = rootSpan(t, T0);
      await ctx.store.writeSpans(spanBatch(w.app, [root, span(t, T0 + 5000, { parentSpanId: root.spanId })]));
      expect(await traces(w, { from: T0 + 1000 })).toEqual([]);
      expect((await traces(w, { from: T0, to: T0 + 1 })).map((r) => r.telemetry.length)).toEqual([2]);
    });

    it('filters on application and on trace id', async () => {
      const w = await makeWorld(ctx.store);
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: w.project.id });
      const [a, b, shared] = [newId(), newId(), newId()];
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(a, T0), rootSpan(shared, T0 + 1)]));
      await ctx.store.writeSpans(spanBatch(app2, [rootSpan(b, T0 + 2), rootSpan(shared, T0 + 3)]));
      expect((await traces(w, { applicationId: app2.id })).map((r) => r.traceId)).toEqual([shared, b]);
      expect((await traces(w, { traceId: a })).map((r) => r.applicationId)).toEqual([w.app.id]);
      expect((await traces(w, { traceId: shared })).map((r) => r.applicationId)).toEqual([app2.id, w.app.id]);
      expect((await traces(w, { traceId: shared, applicationId: w.app.id })).map((r) => r.timestamp)).toHaveLength(1);
      expect(await traces(w, { traceId: newId() })).toEqual([]);
    });

    it('filters on the root span duration (at least) and status (exact code or class)', async () => {
      const w = await makeWorld(ctx.store);
      const ids = { fast: newId(), ok: newId(), missing: newId(), boom: newId(), down: newId(), orphan: newId() };
      await ctx.store.writeSpans(spanBatch(w.app, [
        rootSpan(ids.fast, T0, { durationMs: 50, responseStatus: 200 }),
        rootSpan(ids.ok, T0 + 1, { durationMs: 150, responseStatus: 201 }),
        rootSpan(ids.missing, T0 + 2, { durationMs: 300, responseStatus: 404 }),
        rootSpan(ids.boom, T0 + 3, { durationMs: 149, responseStatus: 500 }),
        rootSpan(ids.down, T0 + 4, { durationMs: 2000, responseStatus: 503 }),
        span(ids.orphan, T0 + 5, { parentSpanId: newId(), durationMs: 5000, responseStatus: 500 }),
      ]));
      const traceIds = async (query: Partial<TraceQuery>) => (await traces(w, query)).map((r) => r.traceId);
      expect(await traceIds({ minDurationMs: 150 })).toEqual([ids.down, ids.missing, ids.ok]);
      expect(await traceIds({ status: { min: 404, max: 404 } })).toEqual([ids.missing]);
      expect(await traceIds({ status: { min: 500, max: 599 } })).toEqual([ids.down, ids.boom]);
      expect(await traceIds({ status: { min: 200, max: 299 }, minDurationMs: 100 })).toEqual([ids.ok]);
      expect(await traceIds({ status: { min: 500, max: 599 }, from: T0 + 4, limit: 1 })).toEqual([ids.down]);
    });
  });
}
