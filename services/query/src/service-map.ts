import { toIso } from '@lantern/domain';
import type { MetricsCell } from '@lantern/store';
import { Totals } from './metrics.js';
import type { MetricsWindow } from './window.js';

/**
 * The GET /metrics/services report: the window's applications with their entry spans (GET /metrics' totals) and
 * the calls between them (the store's call cells: an entry span under a span of another application), each edge
 * with its calls, errors and the called entry spans' p50/p95/p99. Nodes by application id; edges by caller, then
 * callee. An application that only calls (no entry spans, say a job runner) is a node with 0 requests.
 */
export function serviceMapReport(entries: MetricsCell[], calls: MetricsCell[], window: MetricsWindow) {
  const nodes = new Map<number, Totals>();
  const node = (id: number): Totals => {
    let t = nodes.get(id);
    if (!t) nodes.set(id, (t = new Totals()));
    return t;
  };
  for (const c of entries) node(c.applicationId).add(c);
  const edges = new Map<string, { caller: number; callee: number; totals: Totals }>();
  for (const c of calls) {
    const caller = c.callerApplicationId!;
    node(caller);
    node(c.applicationId);
    const key = `${caller}:${c.applicationId}`;
    let e = edges.get(key);
    if (!e) edges.set(key, (e = { caller, callee: c.applicationId, totals: new Totals() }));
    e.totals.add(c);
  }
  return {
    from: toIso(window.from),
    to: toIso(window.to),
    nodes: [...nodes.entries()].sort(([a], [b]) => a - b).map(([applicationId, t]) => ({ applicationId, requests: t.requests, ...t.figures() })),
    edges: [...edges.values()].sort((a, b) => a.caller - b.caller || a.callee - b.callee)
      .map((e) => ({ callerApplicationId: e.caller, calleeApplicationId: e.callee, calls: e.totals.requests, ...e.totals.figures() })),
  };
}
