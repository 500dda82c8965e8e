import { describe, expect, it } from '@jest/globals';
import { newId, toIso } from '@lantern/domain';
import type { Span, TraceRecord } from '@lantern/domain';
import type { TraceQuery } from '../port.js';
import { T0, UUID, collect, logBatch, logEntry, makeWorld, rootSpan, span, spanBatch } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';

export function tracesContract(ctx: StoreContext): void {
  const traces = (world: World, query: Partial<TraceQuery> = {}): Promise<TraceRecord[]> =>
    collect(ctx.store.streamTraces({ userId: world.user.id, projectId: world.project.id, ...query }));

  describe('trace records', () => {
    it('makes one record per trace, stamped with its earliest span, spans in time order, newest record first', async () => {
      const w = await makeWorld(ctx.store);
      const x = newId();
      const y = newId();
      const root = rootSpan(x, T0);
      const late = span(x, T0 + 20, { parentSpanId: root.spanId });
      const middle = span(x, T0 + 10, { parentSpanId: root.spanId });
      const other = rootSpan(y, T0 + 100);
      await ctx.store.writeSpans(spanBatch(w.app, [late, root, other, middle]));
      const records = await traces(w);
      expect(records).toEqual([
        { id: expect.stringMatching(UUID), projectId: w.project.id, applicationId: w.app.id, traceId: y, timestamp: toIso(T0 + 100), telemetry: [other] },
        { id: expect.stringMatching(UUID), projectId: w.project.id, applicationId: w.app.id, traceId: x, timestamp: toIso(T0), telemetry: [root, middle, late] },
      ]);
      expect(records[0]!.id).not.toBe(records[1]!.id);
    });

    it('orders spans of the same timestamp by span id', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const spans = [0, 1, 2, 3].map(() => span(t, T0, { parentSpanId: newId() }));
      await ctx.store.writeSpans(spanBatch(w.app, spans));
      const [record] = await traces(w);
      expect(record!.telemetry.map((s) => s.spanId)).toEqual(spans.map((s) => s.spanId).sort());
    });

    it('joins spans of one trace sent in two batches into the same record, stamped with the earliest span', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const later = span(t, T0 + 50, { parentSpanId: newId() });
      const earlier = rootSpan(t, T0 + 10);
      await ctx.store.writeSpans(spanBatch(w.app, [later]));
      const [first] = await traces(w);
      expect(first!.timestamp).toBe(toIso(T0 + 50));
      await ctx.store.writeSpans(spanBatch(w.app, [earlier]));
      expect(await traces(w)).toEqual([{ ...first!, timestamp: toIso(T0 + 10), telemetry: [earlier, later] }]);
      const latest = span(t, T0 + 90, { parentSpanId: earlier.spanId });
      await ctx.store.writeSpans(spanBatch(w.app, [latest]));
      expect(await traces(w)).toEqual([{ ...first!, timestamp: toIso(T0 + 10), telemetry: [earlier, later, latest] }]);
    });

    it('keeps a separate record per application for the same trace id', async () => {
      const w = await makeWorld(ctx.store);
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: w.project.id });
      const t = newId();
      const s1 = rootSpan(t, T0);
      const s2 = rootSpan(t, T0 + 1);
      await ctx.store.writeSpans(spanBatch(w.app, [s1]));
      await ctx.store.writeSpans(spanBatch(app2, [s2]));
      const records = await traces(w);
      expect(records.map((r) => [r.applicationId, r.traceId, r.telemetry])).toEqual([[app2.id, t, [s2]], [w.app.id, t, [s1]]]);
    });

    it('returns unknown extra span fields unchanged', async () => {
      const w = await makeWorld(ctx.store);
      const s = rootSpan(newId(), T0, {
        attributes: { 'http.route': '/items/:id', retries: 2, ratio: 0.25, nested: { deep: [1, 'two', { three: true }] } },
        tags: ['a', 'b'],
        note: 'ünïcødé ✓',
        nothing: null,
      });
      await ctx.store.writeSpans(spanBatch(w.app, [s]));
      const [record] = await traces(w);
      expect(record!.telemetry).toStrictEqual([s]);
    });

    it('gives back the serviceName, resource and scope of OpenTelemetry spans, shared or not, whatever the batch', async () => {
      const w = await makeWorld(ctx.store);
      const other = await makeWorld(ctx.store);
      const resource = [{ key: 'service.name', value: 'checkout' }, { key: 'process.pid', value: 4242 }, { key: 'host.name', value: 'a ✓' }];
      const scope = { name: '@opentelemetry/instrumentation-http', version: '0.57.0' };
      const t = newId();
      const root = rootSpan(t, T0, { name: 'GET', kind: 'server', serviceName: 'checkout', resource, scope });
      // The same context shared by reference, another scope, a service name alone, and none.
      const children = [
        span(t, T0 + 1, { parentSpanId: root.spanId, serviceName: 'checkout', resource, scope }),
        span(t, T0 + 2, { parentSpanId: root.spanId, serviceName: 'checkout', resource, scope: { name: 'pg' } }),
        span(t, T0 + 3, { parentSpanId: root.spanId, serviceName: 'billing' }),
        span(t, T0 + 4, { parentSpanId: root.spanId }),
      ];
      await ctx.store.writeSpans(spanBatch(w.app, [root, children[0]!]));
      await ctx.store.writeSpanBatches([spanBatch(w.app, children.slice(1)), spanBatch(other.app, [{ ...root, resource: [...resource] }])]);
      const [record] = await traces(w);
      expect(record!.telemetry).toStrictEqual([root, ...children]);
      const [elsewhere] = await traces(other);
      expect(elsewhere!.telemetry).toStrictEqual([{ ...root, resource }]);
    });

    it('stores a batch written twice only once', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const root = rootSpan(t, T0);
      const batch = spanBatch(w.app, [root, span(t, T0 + 5, { parentSpanId: root.spanId }), rootSpan(newId(), T0 + 9)]);
      await ctx.store.writeSpans(batch);
      const once = await traces(w);
      await ctx.store.writeSpans(batch);
      expect(await traces(w)).toEqual(once);
      expect(once.flatMap((r) => r.telemetry)).toHaveLength(3);
    });

    it('stores a batch written several times at once only once', async () => {
      const w = await makeWorld(ctx.store);
      const ids = [newId(), newId(), newId()];
      const spans = ids.flatMap((t, i) => {
        const root = rootSpan(t, T0 + i * 10, { durationMs: 100 + i });
        return [root, span(t, T0 + i * 10 + 1, { parentSpanId: root.spanId }), span(t, T0 + i * 10 + 2, { parentSpanId: root.spanId })];
      });
      const batch = spanBatch(w.app, spans);
      await Promise.all([ctx.store.writeSpans(batch), ctx.store.writeSpans(batch), ctx.store.writeSpans(batch)]);
      const records = await traces(w);
      expect(records.map((r) => [r.traceId, r.telemetry.length])).toEqual([[ids[2], 3], [ids[1], 3], [ids[0], 3]]);
      expect((await traces(w, { minDurationMs: 101 })).map((r) => r.traceId)).toEqual([ids[2], ids[1]]);
    });

    it('keeps apart traces and spans whose ids would run together in a composite key', async () => {
      const w = await makeWorld(ctx.store);
      const base = newId();
      const first = rootSpan(`${base}:1`, T0, { spanId: 'x' });
      const second = rootSpan(base, T0 + 1, { spanId: '1:x' });
      const third = rootSpan(`${base}","1`, T0 + 2, { spanId: 'x' });
      await ctx.store.writeSpans(spanBatch(w.app, [first, second, third]));
      const records = await traces(w);
      expect(records.map((r) => [r.traceId, r.telemetry])).toEqual([[third.traceId, [third]], [base, [second]], [first.traceId, [first]]]);
    });

    it('keeps the first version of a span sent again with the same trace and span id', async () => {
      const w = await makeWorld(ctx.store);
      const first = rootSpan(newId(), T0, { durationMs: 10, responseStatus: 200, marker: 'first' });
      const again = { ...first, timestamp: toIso(T0 - 500), durationMs: 99, responseStatus: 500, marker: 'second' };
      await ctx.store.writeSpans(spanBatch(w.app, [first]));
      await ctx.store.writeSpans(spanBatch(w.app, [again]));
      const records = await traces(w);
      expect(records.map((r) => [r.timestamp, r.telemetry])).toEqual([[toIso(T0), [first]]]);
      expect(await traces(w, { minDurationMs: 50 })).toEqual([]);
      expect(await traces(w, { status: { min: 500, max: 599 } })).toEqual([]);
    });

    it('stores the same span for two applications separately', async () => {
      const w = await makeWorld(ctx.store);
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: w.project.id });
      const s = rootSpan(newId(), T0);
      await ctx.store.writeSpans(spanBatch(w.app, [s]));
      await ctx.store.writeSpans(spanBatch(app2, [s]));
      expect((await traces(w, { applicationId: w.app.id })).map((r) => r.telemetry)).toEqual([[s]]);
      expect((await traces(w, { applicationId: app2.id })).map((r) => r.telemetry)).toEqual([[s]]);
    });

    it('takes the root columns from the root span even when it arrives after its children', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const rootId = newId();
      await ctx.store.writeSpans(spanBatch(w.app, [span(t, T0 + 5, { parentSpanId: rootId, durationMs: 1 })]));
      expect(await traces(w, { status: { min: 500, max: 599 } })).toEqual([]);
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(t, T0, { spanId: rootId, durationMs: 900, responseStatus: 503 })]));
      expect((await traces(w, { status: { min: 500, max: 599 } })).map((r) => r.traceId)).toEqual([t]);
      expect((await traces(w, { minDurationMs: 900 })).map((r) => r.traceId)).toEqual([t]);
    });

    it('takes the entry controller span of a continued trace as its root; a span without parent outranks it', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const remoteParent = newId();
      const entry = span(t, T0, { parentSpanId: remoteParent, requestMethod: 'controller:POST', durationMs: 800, responseStatus: 502 });
      const child = span(t, T0 + 1, { parentSpanId: entry.spanId, requestMethod: 'controller:charge', durationMs: 5, responseStatus: 200 });
      await ctx.store.writeSpans(spanBatch(w.app, [child, entry]));
      expect((await traces(w, { status: { min: 500, max: 599 }, minDurationMs: 800 })).map((r) => r.traceId)).toEqual([t]);
      const u = newId();
      await ctx.store.writeSpans(spanBatch(w.app, [span(u, T0 + 2, { parentSpanId: newId(), requestMethod: 'controller:GET', durationMs: 900, responseStatus: 503 })]));
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(u, T0 + 1, { durationMs: 10, responseStatus: 200 })]));
      expect((await traces(w, { status: { min: 200, max: 299 } })).map((r) => r.traceId)).toEqual([u]);
    });

    it('an entry span arriving after a controller span nested in it still becomes the root (the earlier one wins)', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const entry = span(t, T0, { parentSpanId: newId(), requestMethod: 'controller:POST', durationMs: 2000, responseStatus: 504 });
      const nested = span(t, T0 + 5, { parentSpanId: newId(), requestMethod: 'controller:charge', durationMs: 10, responseStatus: 200 });
      await ctx.store.writeSpans(spanBatch(w.app, [nested]));
      await ctx.store.writeSpans(spanBatch(w.app, [entry]));
      expect((await traces(w, { minDurationMs: 1000 })).map((r) => r.traceId)).toEqual([t]);
      expect((await traces(w, { status: { min: 500, max: 599 } })).map((r) => r.traceId)).toEqual([t]);
      expect(await traces(w, { status: { min: 200, max: 299 } })).toEqual([]);
    });

    it('between entry spans of the same instant the longer becomes the root, a missing duration counting as 0', async () => {
      const w = await makeWorld(ctx.store);
      const entry = (t: string, fields: Partial<Span>) => span(t, T0, { parentSpanId: newId(), requestMethod: 'controller:POST', ...fields });
      const [t, u] = [newId(), newId()];
      await ctx.store.writeSpans(spanBatch(w.app, [entry(t, { durationMs: 10, responseStatus: 200 })]));
      await ctx.store.writeSpans(spanBatch(w.app, [entry(t, { durationMs: 500, responseStatus: 503 })]));
      await ctx.store.writeSpans(spanBatch(w.app, [entry(t, { durationMs: 100, responseStatus: 201 })]));
      await ctx.store.writeSpans(spanBatch(w.app, [entry(u, { durationMs: undefined, responseStatus: 201 })]));
      await ctx.store.writeSpans(spanBatch(w.app, [entry(u, { durationMs: 0, responseStatus: 404 })]));
      const ids = async (query: Partial<TraceQuery>) => (await traces(w, query)).map((r) => r.traceId);
      expect(await ids({ status: { min: 500, max: 599 }, minDurationMs: 500 })).toEqual([t]);
      expect(await ids({ status: { min: 200, max: 299 } })).toEqual([u]);
      await ctx.store.writeSpans(spanBatch(w.app, [entry(u, { durationMs: 7, responseStatus: 502 })]));
      expect((await ids({ status: { min: 500, max: 599 } })).sort()).toEqual([t, u].sort());
      expect(await ids({ status: { min: 200, max: 299 } })).toEqual([]);
    });

    it('keeps the root columns when later batches bring only child spans', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const root = rootSpan(t, T0, { durationMs: 700, responseStatus: 404 });
      await ctx.store.writeSpans(spanBatch(w.app, [root]));
      for (const at of [T0 + 1, T0 + 2]) {
        await ctx.store.writeSpans(spanBatch(w.app, [span(t, at, { parentSpanId: root.spanId, durationMs: 1, responseStatus: 200 })]));
      }
      expect((await traces(w, { status: { min: 404, max: 404 }, minDurationMs: 700 })).map((r) => r.telemetry.length)).toEqual([3]);
    });

    it('lets writes proceed while a stream is being read', async () => {
      const w = await makeWorld(ctx.store);
      await ctx.store.writeSpans(spanBatch(w.app, Array.from({ length: 450 }, (_, i) => rootSpan(newId(), T0 + i))));
      let seen = 0;
      for await (const record of ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id })) {
        if (seen % 100 === 0) {
          await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(newId(), T0 - 1000 - seen)]));
          await ctx.store.writeLogs(logBatch(w.app, [logEntry(w.app, T0 + seen)]));
        }
        expect(record.projectId).toBe(w.project.id);
        seen += 1;
      }
      expect(seen).toBeGreaterThanOrEqual(450);
      expect(await traces(w)).toHaveLength(455);
      expect(await collect(ctx.store.streamLogs({ userId: w.user.id }))).toHaveLength(5);
    });
  });
}
