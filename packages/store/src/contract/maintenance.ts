import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import type { RootSpanRow } from '../port.js';
import { T0, collect, logBatch, logEntry, makeWorld, rootSpan, span, spanBatch } from './fixtures.js';
import type { StoreContext } from './fixtures.js';

const byTs = (rows: RootSpanRow[]) => [...rows].sort((a, b) => a.ts - b.ts || a.applicationId - b.applicationId);

export function maintenanceContract(ctx: StoreContext): void {
  describe('root spans', () => {
    it('streams the root controller spans of the window with their duration and status', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const first = rootSpan(t, T0, { durationMs: 10, responseStatus: 200 });
      await ctx.store.writeSpans(spanBatch(w.app, [
        first,
        rootSpan(newId(), T0 + 500, { durationMs: 70, responseStatus: undefined }),
        rootSpan(newId(), T0 + 999, { durationMs: 30, responseStatus: 500 }),
        span(newId(), T0 + 100, { requestMethod: 'service:billing' }),
        // A controller span under a span of its own application is not an entry.
        rootSpan(t, T0 + 200, { parentSpanId: first.spanId }),
        rootSpan(newId(), T0 - 1),
        rootSpan(newId(), T0 + 1000),
      ]));
      const rows = await collect(ctx.store.streamRootSpans({ userId: w.user.id, from: T0, to: T0 + 1000 }));
      const base = { projectId: w.project.id, applicationId: w.app.id };
      expect(byTs(rows)).toEqual([
        { ...base, ts: T0, durationMs: 10, responseStatus: 200, operation: 'GET /items' },
        { ...base, ts: T0 + 500, durationMs: 70, responseStatus: null, operation: 'GET /items' },
        { ...base, ts: T0 + 999, durationMs: 30, responseStatus: 500, operation: 'GET /items' },
      ]);
    });

    it('narrows to a project or an application, over every visible project otherwise', async () => {
      const w = await makeWorld(ctx.store);
      const app2 = await ctx.store.createApplication({ name: 'second', projectId: w.project.id });
      const p2 = await ctx.store.createProject({ name: 'p2', organizationId: w.org.id });
      const app3 = await ctx.store.createApplication({ name: 'third', projectId: p2.id });
      for (const [app, at] of [[w.app, T0], [app2, T0 + 1], [app3, T0 + 2]] as const) {
        await ctx.store.writeSpans(spanBatch(app, [rootSpan(newId(), at)]));
      }
      const window = { userId: w.user.id, from: T0, to: T0 + 10 };
      const apps = async (query: object) => byTs(await collect(ctx.store.streamRootSpans({ ...window, ...query }))).map((r) => r.applicationId);
      expect(await apps({})).toEqual([w.app.id, app2.id, app3.id]);
      expect(await apps({ projectId: w.project.id })).toEqual([w.app.id, app2.id]);
      expect(await apps({ projectId: w.project.id, applicationId: app2.id })).toEqual([app2.id]);
      expect(await apps({ applicationId: app3.id })).toEqual([app3.id]);
    });

    it('counts a controller span whose parent is in another application as an entry of its own application', async () => {
      const w = await makeWorld(ctx.store);
      const payments = await ctx.store.createApplication({ name: 'payments', projectId: w.project.id });
      const t = newId();
      const shopRoot = rootSpan(t, T0, { durationMs: 90 });
      const call = span(t, T0 + 1, { parentSpanId: shopRoot.spanId, requestMethod: 'external:payments' });
      const entry = span(t, T0 + 2, { parentSpanId: call.spanId, requestMethod: 'controller:POST', durationMs: 40, responseStatus: 402 });
      const inner = span(t, T0 + 3, { parentSpanId: entry.spanId, requestMethod: 'controller:charge' });
      const late = span(t, T0 + 5, { parentSpanId: newId(), requestMethod: 'controller:refund' });
      const lateParent = span(t, T0 + 4, { spanId: late.parentSpanId!, parentSpanId: entry.spanId });
      await ctx.store.writeSpans(spanBatch(w.app, [shopRoot, call]));
      await ctx.store.writeSpans(spanBatch(payments, [inner, entry]));
      // A child arriving before its parent: the parent, stored later, is of the same application.
      await ctx.store.writeSpans(spanBatch(payments, [late]));
      await ctx.store.writeSpans(spanBatch(payments, [lateParent]));
      const rows = await collect(ctx.store.streamRootSpans({ userId: w.user.id, from: T0, to: T0 + 10 }));
      expect(byTs(rows)).toEqual([
        { projectId: w.project.id, applicationId: w.app.id, ts: T0, durationMs: 90, responseStatus: 200, operation: 'GET /items' },
        { projectId: w.project.id, applicationId: payments.id, ts: T0 + 2, durationMs: 40, responseStatus: 402, operation: 'POST' },
      ]);
    });

    it('streams hundreds of root spans, each once', async () => {
      const w = await makeWorld(ctx.store);
      await ctx.store.writeSpans(spanBatch(w.app, Array.from({ length: 520 }, (_, i) => rootSpan(newId(), T0 + Math.floor(i / 2), { durationMs: i }))));
      const rows = await collect(ctx.store.streamRootSpans({ userId: w.user.id, from: T0, to: T0 + 10_000 }));
      expect(rows.map((r) => r.durationMs).sort((a, b) => a - b)).toEqual(Array.from({ length: 520 }, (_, i) => i));
    });
  });

  describe('purge', () => {
    it('deletes trace records and logs before the cut-off and returns how many went', async () => {
      const w = await makeWorld(ctx.store);
      const [old, kept] = [newId(), newId()];
      const oldRoot = rootSpan(old, T0 - 2000);
      await ctx.store.writeSpans(spanBatch(w.app, [oldRoot, span(old, T0 - 1500, { parentSpanId: oldRoot.spanId }), rootSpan(kept, T0 + 1000)]));
      const [oldLog, edgeLog, newLog] = [logEntry(w.app, T0 - 1), logEntry(w.app, T0), logEntry(w.app, T0 + 5)];
      await ctx.store.writeLogs(logBatch(w.app, [oldLog, edgeLog, newLog]));
      expect(await ctx.store.purgeTelemetryBefore(T0)).toBe(2);
      const traces = await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id }));
      expect(traces.map((t) => t.traceId)).toEqual([kept]);
      const logs = await collect(ctx.store.streamLogs({ userId: w.user.id }));
      expect(logs.map((l) => l.id)).toEqual([newLog.id, edgeLog.id]);
      expect(await ctx.store.purgeTelemetryBefore(T0)).toBe(0);
    });

    it('removes a trace whose earliest span is before the cut-off together with all its spans', async () => {
      const w = await makeWorld(ctx.store);
      const t = newId();
      const root = rootSpan(t, T0 - 10);
      await ctx.store.writeSpans(spanBatch(w.app, [root, span(t, T0 + 10, { parentSpanId: root.spanId })]));
      expect(await ctx.store.purgeTelemetryBefore(T0)).toBe(1);
      expect(await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id }))).toEqual([]);
      expect(await collect(ctx.store.streamRootSpans({ userId: w.user.id, from: 0, to: T0 + 1000 }))).toEqual([]);
      const late = span(t, T0 + 20, { parentSpanId: root.spanId });
      await ctx.store.writeSpans(spanBatch(w.app, [late]));
      const [record] = await collect(ctx.store.streamTraces({ userId: w.user.id, projectId: w.project.id }));
      expect(record!.telemetry).toEqual([late]);
    });

    it('purges every project, including those of other organizations', async () => {
      const a = await makeWorld(ctx.store, 'a');
      const b = await makeWorld(ctx.store, 'b');
      for (const w of [a, b]) {
        await ctx.store.writeSpans(spanBatch(w.app, [rootSpan(newId(), T0 - 1)]));
        await ctx.store.writeLogs(logBatch(w.app, [logEntry(w.app, T0 - 1)]));
      }
      expect(await ctx.store.purgeTelemetryBefore(T0)).toBe(4);
      expect(await collect(ctx.store.streamLogs({ userId: b.user.id }))).toEqual([]);
    });
  });
}
