import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import type { TraceQuery } from '../port.js';
import { MAX_RECORD_PAIRS } from '../attribute-pairs.js';
import { T0, attr, collect, cursorOf, makeWorld, newestFirst, readInPages, rootSpan, span, spanBatch } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';

/** Trace search by attribute (TraceQuery.attributes, ../attribute-pairs.ts), the same on every adapter. */
export function traceAttributesContract(ctx: StoreContext): void {
  const ids = async (world: World, query: Partial<TraceQuery>): Promise<string[]> =>
    (await collect(ctx.store.streamTraces({ userId: world.user.id, projectId: world.project.id, ...query }))).map((r) => r.traceId);

  describe('trace search by attribute', () => {
    it('finds a record by any span\'s attribute, its resource\'s, its scope\'s or a top-level field, by value or by key', async () => {
      const w = await makeWorld(ctx.store);
      const t = { otel: newId(), lantern: newId(), plain: newId() };
      const resource = [{ key: 'service.name', value: 'checkout' }, { key: 'deployment.environment', value: 'prod' }];
      const scope = { name: '@opentelemetry/instrumentation-http', attributes: [{ key: 'scope.tier', value: 'gold' }] };
      const otelRoot = rootSpan(t.otel, T0, { serviceName: 'checkout', resource, scope, name: 'POST /pay', kind: 'server',
        attributes: [{ key: 'http.route', value: '/pay' }, { key: 'http.status_code', value: 502 }, { key: 'retry', value: true },
          { key: 'tags', value: ['a', 'b'] }] });
      await ctx.store.writeSpans(spanBatch(w.app, [
        otelRoot,
        // A child span's attribute finds the whole record.
        span(t.otel, T0 + 1, { parentSpanId: otelRoot.spanId, serviceName: 'checkout', resource, scope, name: 'charge', attributes: [{ key: 'charge.id', value: 'ch_42' }] }),
        // A Lantern SDK span: its own extra fields are its attributes.
        rootSpan(t.lantern, T0 + 2, { requestMethod: 'controller:POST', route: '/orders', orderId: 'o-7', responseStatus: 201 }),
        rootSpan(t.plain, T0 + 3),
      ]));
      expect(await ids(w, { attributes: [attr('charge.id', 'ch_42')] })).toEqual([t.otel]);
      expect(await ids(w, { attributes: [attr('deployment.environment', 'prod')] })).toEqual([t.otel]);
      expect(await ids(w, { attributes: [attr('service.name', 'checkout')] })).toEqual([t.otel]);
      expect(await ids(w, { attributes: [attr('scope.tier', 'gold')] })).toEqual([t.otel]);
      expect(await ids(w, { attributes: [attr('name', 'charge')] })).toEqual([t.otel]);
      expect(await ids(w, { attributes: [attr('orderId', 'o-7')] })).toEqual([t.lantern]);
      expect(await ids(w, { attributes: [attr('route', '/orders')] })).toEqual([t.lantern]);
      // Numbers and booleans compare as text; a list is found by its key only.
      expect(await ids(w, { attributes: [attr('http.status_code', '502')] })).toEqual([t.otel]);
      expect(await ids(w, { attributes: [attr('responseStatus', '201')] })).toEqual([t.lantern]);
      expect(await ids(w, { attributes: [attr('retry', 'true')] })).toEqual([t.otel]);
      expect(await ids(w, { attributes: [attr('tags')] })).toEqual([t.otel]);
      expect(await ids(w, { attributes: [attr('tags', 'a')] })).toEqual([]);
      // A key alone: present, whatever its value. Every span has a requestMethod.
      expect(await ids(w, { attributes: [attr('orderId')] })).toEqual([t.lantern]);
      expect(await ids(w, { attributes: [attr('requestMethod')] })).toEqual([t.plain, t.lantern, t.otel]);
      // Exact, case included; the ids and the time are not attributes.
      expect(await ids(w, { attributes: [attr('charge.id', 'CH_42')] })).toEqual([]);
      expect(await ids(w, { attributes: [attr('charge.id', 'ch_4')] })).toEqual([]);
      expect(await ids(w, { attributes: [attr('traceId', t.otel)] })).toEqual([]);
      expect(await ids(w, { attributes: [attr('timestamp')] })).toEqual([]);
      // Several terms: all must hold, whichever span holds each.
      expect(await ids(w, { attributes: [attr('http.route', '/pay'), attr('charge.id', 'ch_42')] })).toEqual([t.otel]);
      expect(await ids(w, { attributes: [attr('http.route', '/pay'), attr('orderId')] })).toEqual([]);
    });

    it('combines with the other filters and pages in the list\'s order', async () => {
      const w = await makeWorld(ctx.store);
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: w.project.id });
      const written = Array.from({ length: 20 }, (_, i) => ({
        traceId: newId(), app: i % 4 === 3 ? app2 : w.app, at: T0 + Math.floor(i / 2) * 1000,
        tier: i % 2 === 0 ? 'gold' : 'silver', status: i % 5 === 0 ? 503 : 200,
      }));
      for (const app of [w.app, app2]) {
        await ctx.store.writeSpans(spanBatch(app, written.filter((t) => t.app === app).map((t) =>
          rootSpan(t.traceId, t.at, { serviceName: 'shop', name: 'GET /cart', kind: 'server', responseStatus: t.status, attributes: [{ key: 'tier', value: t.tier }] }))));
      }
      const gold = await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id, attributes: [attr('tier', 'gold')] }));
      expect(gold.map((r) => r.traceId).sort()).toEqual(written.filter((t) => t.tier === 'gold').map((t) => t.traceId).sort());
      expect(gold.map((r) => r.id)).toEqual(newestFirst(gold).map((r) => r.id));
      const pages = await readInPages((cursor) => ctx.store.streamTraces({
        userId: w.user.id, projectId: w.project.id, attributes: [attr('tier', 'gold')], limit: 3, cursor,
      }), 3);
      expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 1]);
      expect(pages.flat()).toEqual(gold);
      expect(await ids(w, { attributes: [attr('tier', 'gold')], cursor: cursorOf(gold[3]!) })).toEqual(gold.slice(4).map((r) => r.traceId));
      const expected = (keep: (t: (typeof written)[number]) => boolean) => written.filter(keep).map((t) => t.traceId).sort();
      const sorted = async (query: Partial<TraceQuery>) => (await ids(w, { attributes: [attr('tier', 'gold')], ...query })).sort();
      expect(await sorted({ applicationId: app2.id })).toEqual(expected((t) => t.tier === 'gold' && t.app === app2));
      expect(await sorted({ status: { min: 500, max: 599 } })).toEqual(expected((t) => t.tier === 'gold' && t.status === 503));
      expect(await sorted({ service: 'shop', operation: 'GET /cart', from: T0 + 2000, to: T0 + 6000 }))
        .toEqual(expected((t) => t.tier === 'gold' && t.at >= T0 + 2000 && t.at < T0 + 6000));
      expect(await sorted({ service: 'other' })).toEqual([]);
      // Several pairs: whichever comes first, the same records (the rarest leads the read: rarestFirst).
      const both = [attr('tier', 'gold'), attr('service.name', 'shop')];
      expect(await ids(w, { attributes: both })).toEqual(gold.map((r) => r.traceId));
      expect(await ids(w, { attributes: [...both].reverse() })).toEqual(gold.map((r) => r.traceId));
      expect(await ids(w, { attributes: [attr('service.name', 'shop'), attr('tier', 'gold')], limit: 3, cursor: cursorOf(gold[2]!) }))
        .toEqual(gold.slice(3, 6).map((r) => r.traceId));
      const one = written.find((t) => t.tier === 'silver')!;
      expect(await ids(w, { traceId: one.traceId, attributes: [attr('tier', 'silver')] })).toEqual([one.traceId]);
      expect(await ids(w, { traceId: one.traceId, attributes: [attr('tier', 'gold')] })).toEqual([]);
    });

    it('follows a record whose later batches bring earlier spans and new attributes', async () => {
      const w = await makeWorld(ctx.store);
      const [moved, still] = [newId(), newId()];
      await ctx.store.writeSpans(spanBatch(w.app, [span(moved, T0 + 10_000, { parentSpanId: newId(), attributes: [{ key: 'step', value: 'late' }] })]));
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(still, T0 + 5000, { attributes: [{ key: 'step', value: 'late' }] })]));
      expect(await ids(w, { attributes: [attr('step', 'late')] })).toEqual([moved, still]);
      // The root arrives: the record now starts earlier than `still`, and it has the root's attributes too.
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(moved, T0, { attributes: [{ key: 'step', value: 'first' }] })]));
      expect(await ids(w, { attributes: [attr('step', 'late')] })).toEqual([still, moved]);
      expect(await ids(w, { attributes: [attr('step', 'first')] })).toEqual([moved]);
      expect(await ids(w, { attributes: [attr('step', 'late')], from: T0 + 1000 })).toEqual([still]);
      expect(await ids(w, { attributes: [attr('step', 'first'), attr('step', 'late')], to: T0 + 1 })).toEqual([moved]);
    });

    it('keeps a record\'s first distinct keys and pairs, up to the bound, and no other project\'s', async () => {
      const w = await makeWorld(ctx.store);
      const other = await makeWorld(ctx.store, 'b');
      const wide = newId();
      const attributes = Array.from({ length: MAX_RECORD_PAIRS }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(wide, T0, { attributes })]));
      await ctx.store.writeSpans(spanBatch(other.app, [rootSpan(newId(), T0, { attributes: [{ key: 'k0', value: 'v0' }] })]));
      // Each attribute is two hashes (its key, its key and value), before the span's top-level fields: the first half is kept.
      expect(await ids(w, { attributes: [attr('k0', 'v0')] })).toEqual([wide]);
      expect(await ids(w, { attributes: [attr(`k${MAX_RECORD_PAIRS - 1}`)] })).toEqual([]);
      // Another project's record with the same pair is not this project's, whoever asks.
      expect(await ids(other, { attributes: [attr('k0', 'v0')] })).toHaveLength(1);
      expect(await ids(other, { projectId: w.project.id, attributes: [attr('k0', 'v0')] })).toEqual([]);
    });

    it('forgets a purged record\'s attributes', async () => {
      const w = await makeWorld(ctx.store);
      const [old, kept] = [newId(), newId()];
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(old, T0 - 60_000, { attributes: [{ key: 'batch', value: 'x' }] }),
        rootSpan(kept, T0 + 1000, { attributes: [{ key: 'batch', value: 'x' }] })]));
      expect(await ctx.store.purgeTelemetryBefore(T0)).toBe(1);
      expect(await ids(w, { attributes: [attr('batch', 'x')] })).toEqual([kept]);
    });
  });
}
