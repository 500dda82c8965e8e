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

    it('filters on the root span requestURL: a substring, ASCII letters in any case, every other character literally', async () => {
      const w = await makeWorld(ctx.store);
      const urls = {
        item: '/Items/42', list: '/items?tag=100%_off', dotted: '/api/v1.2/users', symbols: '/a+b(c)*[d]{e}|f^$\\g?.',
        accents: '/café/Ünïcode', spaced: '/search?q=two words',
      };
      const ids = Object.fromEntries(Object.keys(urls).map((k) => [k, newId()])) as Record<keyof typeof urls, string>;
      const [noUrl, childOnly, orphan] = [newId(), newId(), newId()];
      const childRoot = rootSpan(childOnly, T0 + 10, { requestURL: '/parent' });
      await ctx.store.writeSpans(spanBatch(w.app, [
        ...Object.entries(urls).map(([k, url], i) => rootSpan(ids[k as keyof typeof urls], T0 + i, { requestURL: url })),
        rootSpan(noUrl, T0 + 8, { requestURL: undefined }),
        childRoot, span(childOnly, T0 + 11, { parentSpanId: childRoot.spanId, requestURL: '/items/child' }),
        span(orphan, T0 + 12, { parentSpanId: newId(), requestURL: '/items/orphan' }),
      ]));
      const traceIds = async (urlContains: string, query: Partial<TraceQuery> = {}) =>
        (await traces(w, { urlContains, ...query })).map((r) => r.traceId);
      // ASCII letters in any case; the child's and the orphan's URLs are not root URLs.
      expect(await traceIds('items')).toEqual([ids.list, ids.item]);
      expect(await traceIds('ITEMS/4')).toEqual([ids.item]);
      expect(await traceIds('/PARENT')).toEqual([childOnly]);
      expect(await traceIds('child')).toEqual([]);
      // LIKE wildcards and regular-expression characters are plain characters.
      expect(await traceIds('%')).toEqual([ids.list]);
      expect(await traceIds('_')).toEqual([ids.list]);
      expect(await traceIds('0%_O')).toEqual([ids.list]);
      expect(await traceIds('v1.2')).toEqual([ids.dotted]);
      expect(await traceIds('v1x2')).toEqual([]);
      expect(await traceIds('.*')).toEqual([]);
      expect(await traceIds('+b(C)*[D]{E}|F^$\\G?.')).toEqual([ids.symbols]);
      expect(await traceIds('\\')).toEqual([ids.symbols]);
      expect(await traceIds('two words')).toEqual([ids.spaced]);
      // Letters outside ASCII are compared exactly.
      expect(await traceIds('CAFé/Ünï')).toEqual([ids.accents]);
      expect(await traceIds('CAFÉ')).toEqual([]);
      expect(await traceIds('ünï')).toEqual([]);
      // Whatever the text, a record whose root has no URL never matches: it is not the empty string.
      expect((await traces(w, { urlContains: '/' })).map((r) => r.traceId)).not.toContain(noUrl);
    });

    it('combines the url filter with the others, and pages through the matching records only', async () => {
      const w = await makeWorld(ctx.store);
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: w.project.id });
      const written = Array.from({ length: 24 }, (_, i) => ({
        traceId: newId(), app: i % 3 === 2 ? app2 : w.app, at: T0 + Math.floor(i / 2) * 1000,
        url: i % 2 === 0 ? `/checkout/${i}` : `/browse/${i}`, status: i % 4 === 0 ? 500 : 200,
      }));
      for (const app of [w.app, app2]) {
        await ctx.store.writeSpans(spanBatch(app, written.filter((t) => t.app === app)
          .map((t) => rootSpan(t.traceId, t.at, { requestURL: t.url, responseStatus: t.status }))));
      }
      const expected = (keep: (t: (typeof written)[number]) => boolean) =>
        written.filter(keep).sort((a, b) => b.at - a.at).map((t) => t.traceId);
      const checkout = await traces(w, { urlContains: 'CHECKOUT/' });
      expect(checkout.map((r) => r.traceId).sort()).toEqual(expected((t) => t.url.startsWith('/checkout/')).sort());
      expect(checkout.map((r) => r.id)).toEqual(newestFirst(checkout).map((r) => r.id));
      const pages = await readInPages((cursor) => ctx.store.streamTraces({
        userId: w.user.id, projectId: w.project.id, urlContains: 'checkout', limit: 5, cursor,
      }), 5);
      expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
      expect(pages.flat()).toEqual(checkout);
      expect(await traces(w, { urlContains: 'checkout', limit: 3 })).toEqual(checkout.slice(0, 3));
      const ids = async (query: Partial<TraceQuery>) => (await traces(w, { urlContains: 'checkout', ...query })).map((r) => r.traceId).sort();
      expect(await ids({ status: { min: 500, max: 599 } })).toEqual(expected((t) => t.url.startsWith('/checkout/') && t.status === 500).sort());
      expect(await ids({ applicationId: app2.id })).toEqual(expected((t) => t.url.startsWith('/checkout/') && t.app === app2).sort());
      expect(await ids({ from: T0 + 4000, to: T0 + 8000 })).toEqual(expected((t) => t.url.startsWith('/checkout/') && t.at >= T0 + 4000 && t.at < T0 + 8000).sort());
      const one = written.find((t) => t.url === '/browse/7')!;
      expect(await ids({ traceId: one.traceId })).toEqual([]);
      expect((await traces(w, { urlContains: '/browse/7', traceId: one.traceId })).map((r) => r.traceId)).toEqual([one.traceId]);
      expect(await traces(w, { urlContains: 'checkout', cursor: cursorOf(checkout[4]!) })).toEqual(checkout.slice(5));
    });

    it('matches the URL of the root the record has now: the root span, whenever it arrives, and its first version', async () => {
      const w = await makeWorld(ctx.store);
      const [late, entry, resent] = [newId(), newId(), newId()];
      const lateRoot = rootSpan(late, T0, { requestURL: '/late-root' });
      await ctx.store.writeSpans(spanBatch(w.app, [span(late, T0 + 1, { parentSpanId: lateRoot.spanId, requestURL: '/early-child' })]));
      expect(await traces(w, { urlContains: 'late-root' })).toEqual([]);
      await ctx.store.writeSpans(spanBatch(w.app, [lateRoot]));
      // A continued trace: its entry span is the root until a span without parent arrives.
      await ctx.store.writeSpans(spanBatch(w.app, [span(entry, T0 + 3, { parentSpanId: newId(), requestMethod: 'controller:POST', requestURL: '/entry' })]));
      expect((await traces(w, { urlContains: '/entry' })).map((r) => r.traceId)).toEqual([entry]);
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(entry, T0 + 2, { requestURL: '/outer' })]));
      const first = rootSpan(resent, T0 + 4, { requestURL: '/first' });
      await ctx.store.writeSpans(spanBatch(w.app, [first]));
      await ctx.store.writeSpans(spanBatch(w.app, [{ ...first, requestURL: '/second' }]));
      const matching = async (text: string) => (await traces(w, { urlContains: text })).map((r) => r.traceId);
      expect(await matching('late-root')).toEqual([late]);
      expect(await matching('early-child')).toEqual([]);
      expect(await matching('/outer')).toEqual([entry]);
      expect(await matching('/entry')).toEqual([]);
      expect(await matching('/first')).toEqual([resent]);
      expect(await matching('/second')).toEqual([]);
    });

    it('filters on the root span\'s service and operation, exactly, and on a maximum duration', async () => {
      const w = await makeWorld(ctx.store);
      const ids = { lantern: newId(), pay: newId(), cart: newId(), billing: newId(), web: newId(), other: newId() };
      await ctx.store.writeSpans(spanBatch(w.app, [
        // A Lantern SDK controller span: its method and the route the Express middleware recorded.
        rootSpan(ids.lantern, T0, { requestMethod: 'controller:GET', route: '/items/:id', durationMs: 10 }),
        // OpenTelemetry server spans: their service, and their name (with http.route when named by method alone).
        rootSpan(ids.pay, T0 + 1, { serviceName: 'checkout', name: 'POST /pay', kind: 'server', durationMs: 300, responseStatus: 502 }),
        rootSpan(ids.cart, T0 + 2, { serviceName: 'checkout', name: 'GET', kind: 'server', attributes: [{ key: 'http.route', value: '/cart' }], durationMs: 20 }),
        rootSpan(ids.billing, T0 + 3, { serviceName: 'billing', name: 'POST /pay', kind: 'server', durationMs: 40 }),
        // Only the root is searched by: a child span of another service and operation does not make its trace match.
        rootSpan(ids.web, T0 + 4, { serviceName: 'web', name: 'GET /home', kind: 'server', durationMs: 50 }),
        span(ids.web, T0 + 5, { serviceName: 'checkout', name: 'POST /pay', parentSpanId: newId() }),
        rootSpan(ids.other, T0 + 6, { requestMethod: 'controller:GET /other', durationMs: 50 }),
      ]));
      const traceIds = async (query: Partial<TraceQuery>) => (await traces(w, query)).map((r) => r.traceId);
      expect(await traceIds({ service: 'checkout' })).toEqual([ids.cart, ids.pay]);
      expect(await traceIds({ operation: 'POST /pay' })).toEqual([ids.billing, ids.pay]);
      expect(await traceIds({ operation: 'GET /items/:id' })).toEqual([ids.lantern]);
      expect(await traceIds({ operation: 'GET /cart', service: 'checkout' })).toEqual([ids.cart]);
      expect(await traceIds({ operation: 'POST /pay', service: 'checkout', status: { min: 500, max: 599 } })).toEqual([ids.pay]);
      expect(await traceIds({ operation: 'POST /pay', maxDurationMs: 100 })).toEqual([ids.billing]);
      expect(await traceIds({ service: 'checkout', minDurationMs: 100, maxDurationMs: 300 })).toEqual([ids.pay]);
      expect(await traceIds({ maxDurationMs: 15 })).toEqual([ids.lantern]);
      // Exact, and case matters: a service or operation is a name, not a text search.
      expect(await traceIds({ service: 'Checkout' })).toEqual([]);
      expect(await traceIds({ operation: 'POST' })).toEqual([]);
      expect(await traceIds({ service: 'checkout', applicationId: w.app.id, limit: 1 })).toEqual([ids.cart]);
    });

    it('pages through a service or operation, and follows the root the record has now', async () => {
      const w = await makeWorld(ctx.store);
      const written = Array.from({ length: 14 }, (_, i) => ({ traceId: newId(), at: T0 + Math.floor(i / 2) * 1000, op: i % 2 ? 'GET /a' : 'GET /b' }));
      await ctx.store.writeSpans(spanBatch(w.app, written.map((t) => rootSpan(t.traceId, t.at, { serviceName: 'svc', name: t.op, kind: 'server' }))));
      const all = await traces(w, { service: 'svc' });
      expect(all).toHaveLength(14);
      const pages = await readInPages((cursor) => ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id, operation: 'GET /a', limit: 3, cursor }), 3);
      expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
      expect(pages.flat().map((r) => r.traceId)).toEqual(all.filter((r) => written.find((t) => t.traceId === r.traceId)!.op === 'GET /a').map((r) => r.traceId));
      // A continued trace is named by its entry span until the span without parent arrives.
      const entry = newId();
      await ctx.store.writeSpans(spanBatch(w.app, [span(entry, T0 + 100_000, { parentSpanId: newId(), requestMethod: 'controller:POST', route: '/inner' })]));
      expect((await traces(w, { operation: 'POST /inner' })).map((r) => r.traceId)).toEqual([entry]);
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(entry, T0 + 99_000, { serviceName: 'edge', name: 'GET /outer', kind: 'server' })]));
      expect(await traces(w, { operation: 'POST /inner' })).toEqual([]);
      expect((await traces(w, { operation: 'GET /outer', service: 'edge' })).map((r) => r.traceId)).toEqual([entry]);
    });
  });
}
