import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import type { Span } from '@lantern/domain';
import type { MetricsQuery } from '../port.js';
import { HOUR, T0, makeWorld, rootSpan, span, spanBatch } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';
import { expectRollupsTrue } from './metrics-recompute.js';

const MINUTE = 60_000;
const DAY = 24 * HOUR;

/** Deterministic pseudo-random numbers, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
}

/**
 * Long windows: stores keep hour rollups beside the minute ones and read whole hours from them. Every check is
 * against the recomputation from the raw entry spans, with buckets of an hour and more (hour rows used), buckets
 * whose edges cut hours (the partial hours by the minute) and buckets under an hour (minutes only).
 */
export function metricsHoursContract(ctx: StoreContext): void {
  const query = (w: World, extra: Partial<MetricsQuery>): MetricsQuery =>
    ({ userId: w.user.id, from: T0 - 3 * DAY, to: T0 + 2 * HOUR, bucketMs: HOUR, ...extra });

  /** The windows every check reads: whole hours, cut hours, days, and minutes only. */
  const windows = (w: World, appId: number): Partial<MetricsQuery>[] => [
    {},
    { bucketMs: 6 * HOUR },
    { from: T0 - 3 * DAY + 17 * MINUTE, to: T0 + 2 * HOUR - 7 * MINUTE, bucketMs: 3 * HOUR },
    { from: T0 - 3 * DAY + 17 * MINUTE, to: T0 + HOUR + 3 * MINUTE, bucketMs: HOUR },
    { from: T0 - 3 * DAY, to: T0 + DAY, bucketMs: DAY },
    { from: T0 - 2 * DAY - 30 * MINUTE, to: T0 - 2 * DAY + 90 * MINUTE, bucketMs: 10 * MINUTE },
    { from: T0 - 2 * DAY - 2 * HOUR, to: T0 - DAY, bucketMs: 2 * HOUR, applicationId: appId },
    { projectId: w.project.id, bucketMs: 12 * HOUR },
  ];

  describe('metrics rollups over hours and days', () => {
    it('equal a recomputation from the raw entry spans over days, with late spans, repeats and late parents in old hours', async () => {
      const w = await makeWorld(ctx.store);
      const called = await ctx.store.createApplication({ name: 'called', projectId: w.project.id });
      const next = random(11);
      const waiting: Span[] = [];
      for (let batch = 0; batch < 5; batch++) {
        const mine: Span[] = [];
        const theirs: Span[] = [];
        for (let i = 0; i < 80; i++) {
          const t = newId();
          const at = T0 - 3 * DAY + Math.floor(next() * (3 * DAY + 2 * HOUR));
          const status = next() < 0.1 ? 503 : 200;
          const root = rootSpan(t, at, { durationMs: 1 + Math.floor(next() * next() * 4000), responseStatus: status });
          const call = span(t, at + 1, { parentSpanId: root.spanId, requestMethod: 'external:called' });
          mine.push(root, call);
          theirs.push(span(t, at + 2, { parentSpanId: call.spanId, requestMethod: 'controller:POST', durationMs: 1 + Math.floor(next() * 300), responseStatus: next() < 0.2 ? 500 : 201 }));
          // A controller span whose parent (of the same application) comes later: counted until then.
          if (i % 8 === 0) {
            const child = rootSpan(newId(), at + 5, { parentSpanId: newId(), durationMs: 7000, responseStatus: 502 });
            mine.push(child);
            waiting.push(child);
          }
        }
        await ctx.store.writeSpans(spanBatch(w.app, mine));
        await ctx.store.writeSpans(spanBatch(called, theirs));
        if (batch === 2) await ctx.store.writeSpans(spanBatch(w.app, mine)); // a batch again: counted once
      }
      for (const extra of windows(w, called.id)) await expectRollupsTrue(ctx.store, query(w, extra));
      const before = (await ctx.store.readMetrics(query(w, { bucketMs: DAY }))).reduce((n, c) => n + c.requests, 0);
      expect(before).toBe(800 + waiting.length);

      // Late: new entry spans in an old hour, the parents of half the waiting spans (taking them out), a repeat.
      const old = T0 - 2 * DAY + 20 * MINUTE;
      const late = [0, 1, 2].map((i) => rootSpan(newId(), old + i * 1000, { durationMs: 50 + i, responseStatus: i === 0 ? 500 : 200 }));
      const parents = waiting.filter((_, i) => i % 2 === 0).map((c) => span(c.traceId, Date.parse(c.timestamp) - 1, { spanId: c.parentSpanId!, requestMethod: 'service:job' }));
      await ctx.store.writeSpans(spanBatch(w.app, [...late, ...parents]));
      await ctx.store.writeSpans(spanBatch(w.app, [late[0]!, parents[0]!]));
      for (const extra of windows(w, called.id)) await expectRollupsTrue(ctx.store, query(w, extra));
      const after = (await ctx.store.readMetrics(query(w, { bucketMs: DAY }))).reduce((n, c) => n + c.requests, 0);
      expect(after).toBe(before + 3 - parents.length);
    });

    it('follow retention inside an hour: the hours before go, and the hour of the cut-off counts what is left', async () => {
      const w = await makeWorld(ctx.store);
      const cutoff = T0 - 90 * MINUTE + 10_000; // half-way through the hour T0 - 2 h
      const straddling = newId();
      const spans: Span[] = [];
      for (let m = -4 * 60; m < 60; m += 7) spans.push(rootSpan(newId(), T0 + m * MINUTE + 5_000, { durationMs: 10 + (m & 63), responseStatus: m % 5 === 0 ? 500 : 200 }));
      // A trace that starts before the cut-off with an entry span in a later hour: it goes with its trace.
      spans.push(span(straddling, cutoff - 60_000, { requestMethod: 'service:consumer' }), rootSpan(straddling, T0 + 10 * MINUTE, { parentSpanId: newId() }));
      await ctx.store.writeSpans(spanBatch(w.app, spans));
      const windowOf = (extra: Partial<MetricsQuery>) => query(w, { from: T0 - 5 * HOUR, to: T0 + 2 * HOUR, ...extra });
      const checks = [{}, { bucketMs: 2 * HOUR }, { bucketMs: 7 * HOUR }, { bucketMs: 5 * MINUTE }, { from: T0 - 5 * HOUR + 13 * MINUTE, bucketMs: 3 * HOUR }];
      for (const extra of checks) await expectRollupsTrue(ctx.store, windowOf(extra));

      await ctx.store.purgeTelemetryBefore(cutoff);
      const hourly = await expectRollupsTrue(ctx.store, windowOf({}));
      expect(hourly[0]!.bucket).toBe(T0 - 2 * HOUR);
      for (const extra of checks) await expectRollupsTrue(ctx.store, windowOf(extra));
      // Late spans before the cut-off count again, in the cut-off's hour and in an hour wholly before it.
      await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(newId(), cutoff - 20 * MINUTE), rootSpan(newId(), T0 - 3 * HOUR - MINUTE)]));
      for (const extra of checks) await expectRollupsTrue(ctx.store, windowOf(extra));
      expect((await ctx.store.readMetrics(windowOf({}))).map((c) => c.bucket).slice(0, 2)).toEqual([T0 - 4 * HOUR, T0 - 2 * HOUR]);
    });
  });
}
