import { describe, expect, it } from '@jest/globals';
import type { ServiceMapEdge, ServiceMapNode, ServiceMapReport } from '../src/api/types';
import {
  applicationTraces, buildGraph, edgeDescription, edgeKey, edgeLines, edgeName, edgesByCalls, edgeTraces, edgeWidth, fitName, keyOrder, mapDirection, mapStep,
  nodeDescription, nodeKey, nodeLine, nodeName, shareOf, shortenEnd, smoothPath, structureKey,
} from '../src/lib/service-map';

const node = (applicationId: number, requests: number, errors = 0, patch: Partial<ServiceMapNode> = {}): ServiceMapNode => ({
  applicationId, requests, errors, errorRate: requests ? Math.round((errors / requests) * 100) / 100 : 0, p50Ms: 10, p95Ms: 20, p99Ms: 30, ...patch,
});
const edge = (caller: number, callee: number, calls: number, errors = 0, patch: Partial<ServiceMapEdge> = {}): ServiceMapEdge => ({
  callerApplicationId: caller, calleeApplicationId: callee, calls, errors, errorRate: calls ? Math.round((errors / calls) * 100) / 100 : 0,
  p50Ms: 12.1, p95Ms: 40.2, p99Ms: 88, ...patch,
});
const NAMES: Record<number, string> = { 1: 'shop', 2: 'payments', 3: 'ledger', 4: 'cron', 5: 'search' };
const name = (id: number) => NAMES[id] ?? `Application #${id}`;

// shop -> payments -> ledger, cron -> ledger (a job runner: no requests of its own), search alone.
const report: Pick<ServiceMapReport, 'nodes' | 'edges'> = {
  nodes: [node(1, 1200, 3), node(2, 800, 12), node(3, 900), node(4, 0, 0, { p50Ms: null, p95Ms: null, p99Ms: null }), node(5, 40)],
  edges: [edge(2, 3, 780), edge(1, 2, 800, 12), edge(4, 3, 120)],
};

describe('buildGraph', () => {
  it('keeps every node and edge, edges by caller then callee, with names and exact shares', () => {
    const g = buildGraph(report, name);
    expect(g.nodes.map((n) => [n.id, n.name, n.requests, n.errors])).toEqual([[1, 'shop', 1200, 3], [2, 'payments', 800, 12], [3, 'ledger', 900, 0], [4, 'cron', 0, 0], [5, 'search', 40, 0]]);
    expect(g.edges.map((e) => e.key)).toEqual([edgeKey(1, 2), edgeKey(2, 3), edgeKey(4, 3)]);
    // 3 of 1200 is 0.25%: the API's errorRate rounds it to 0, the map does not.
    expect(g.nodes[0]!.share).toBe(0.0025);
    expect(g.edges[0]).toMatchObject({ callerName: 'shop', calleeName: 'payments', calls: 800, errors: 12, share: 0.015, p99Ms: 88 });
    expect(g).toMatchObject({ focus: undefined, hidden: 0 });
    expect(g.nodes.every((n) => !n.focus)).toBe(true);
  });

  it('gives an edge\'s end a node when the report lists none, and leaves out an edge from an application to itself', () => {
    const g = buildGraph({ nodes: [node(1, 5)], edges: [edge(1, 7, 5), edge(1, 1, 3)] }, name);
    expect(g.nodes.map((n) => [n.id, n.name, n.requests])).toEqual([[1, 'shop', 5], [7, 'Application #7', 0]]);
    expect(g.edges.map((e) => e.key)).toEqual([edgeKey(1, 7)]);
  });

  it('around one application: it, its callers and callees, and the edges that touch it', () => {
    const g = buildGraph(report, name, 3);
    expect(g.nodes.map((n) => [n.id, n.focus])).toEqual([[2, false], [3, true], [4, false]]);
    expect(g.edges.map((e) => e.key)).toEqual([edgeKey(2, 3), edgeKey(4, 3)]);
    expect(g.hidden).toBe(2);
    // Alone in the window: just itself.
    expect(buildGraph(report, name, 5).nodes.map((n) => n.id)).toEqual([5]);
    // Not in the window at all: nothing.
    expect(buildGraph(report, name, 9)).toMatchObject({ nodes: [], edges: [], focus: 9, hidden: 5 });
  });

  it('an empty report is an empty graph', () => {
    expect(buildGraph({ nodes: [], edges: [] }, name)).toEqual({ nodes: [], edges: [], focus: undefined, hidden: 0 });
  });

  it('keys the layout on the structure only: new numbers keep it, a new edge changes it', () => {
    const a = structureKey(buildGraph(report, name));
    const more = { ...report, nodes: report.nodes.map((n) => ({ ...n, requests: n.requests + 1 })), edges: report.edges.map((e) => ({ ...e, calls: e.calls * 2 })) };
    expect(structureKey(buildGraph(more, name))).toBe(a);
    expect(structureKey(buildGraph({ ...report, edges: [...report.edges, edge(5, 1, 1)] }, name))).not.toBe(a);
  });

  it('orders the calls table busiest first, then by names', () => {
    const g = buildGraph({ nodes: [], edges: [edge(2, 3, 5), edge(1, 2, 800), edge(4, 3, 5), edge(1, 3, 5)] }, name);
    expect(edgesByCalls(g.edges).map((e) => `${e.callerName}>${e.calleeName}`)).toEqual(['shop>payments', 'cron>ledger', 'payments>ledger', 'shop>ledger']);
  });
});

describe('what the map says', () => {
  const g = buildGraph(report, name);
  const [shop, payments, ledger, cron] = g.nodes as [typeof g.nodes[0], typeof g.nodes[0], typeof g.nodes[0], typeof g.nodes[0]];

  it('a node\'s line: its requests, compact, and its failures when it had any; a caller-only application says so', () => {
    expect(nodeLine(shop)).toEqual({ text: '1.2k req', failed: '0.3% failed' });
    expect(nodeLine(ledger)).toEqual({ text: '900 req' });
    expect(nodeLine(cron)).toEqual({ text: 'no requests: calls only' });
    expect(nodeLine({ requests: 3, errors: 1, share: shareOf(1, 3) })).toEqual({ text: '3 req', failed: '33.3% failed' });
  });

  it('an edge\'s label: calls, failures when any, p99', () => {
    expect(edgeLines(g.edges[0]!)).toEqual({ calls: '800 calls', failed: '1.5% failed', p99: 'p99 88 ms' });
    expect(edgeLines(g.edges[1]!)).toEqual({ calls: '780 calls', p99: 'p99 88 ms' });
    expect(edgeLines({ calls: 1, errors: 0, share: 0, p99Ms: null })).toEqual({ calls: '1 call', p99: 'p99 –' });
    expect(edgeLines({ calls: 12_345, errors: 1, share: shareOf(1, 12_345), p99Ms: 1530 })).toEqual({ calls: '12k calls', failed: '<0.1% failed', p99: 'p99 1.53 s' });
  });

  it('descriptions for a screen reader and the line under the map', () => {
    expect(edgeDescription(g.edges[0]!)).toBe('shop calls payments: 800 calls, 12 failed (1.5%), p50 12 ms, p95 40 ms, p99 88 ms. Opens the traces of payments');
    expect(edgeDescription(g.edges[1]!)).toContain('780 calls, none failed');
    expect(nodeDescription(payments)).toBe('payments: 800 requests, 12 failed (1.5%), p50 10 ms, p95 20 ms, p99 30 ms. Opens its traces');
    expect(nodeDescription(cron)).toBe('cron: no requests in the window, it only calls others. Opens its traces');
  });
  it('accessible names hold the visible text, in order (WCAG 2.5.3), and the whole name of a cut one', () => {
    expect(nodeName(shop, 'shop')).toBe('shop 1.2k req · 0.3% failed');
    expect(nodeName(cron, 'cron')).toBe('cron no requests: calls only');
    expect(nodeName({ ...ledger, name: 'ledger-service-eu-west' }, 'ledger-serv…')).toBe('ledger-serv… 900 req, ledger-service-eu-west');
    expect(edgeName(g.edges[0]!)).toBe('shop calls payments: 800 calls · 1.5% failed p99 88 ms');
    expect(edgeName(g.edges[1]!)).toBe('payments calls ledger: 780 calls p99 88 ms');
  });
});

describe('links', () => {
  const window = { from: '2026-11-22T09:00:00.000Z', to: '2026-11-22T10:00:00.000Z' };
  it('an edge opens its callee\'s traces over the map\'s window; its failed ones with 5xx', () => {
    const e = buildGraph(report, name).edges[0]!;
    expect(edgeTraces(e, window)).toEqual({ applicationId: '2', from: window.from, to: window.to });
    expect(edgeTraces(e, window, true)).toEqual({ applicationId: '2', from: window.from, to: window.to, status: '5xx' });
    expect(applicationTraces(4, window)).toEqual({ applicationId: '4', from: window.from, to: window.to });
  });
});

describe('drawing', () => {
  it('edge widths grow with the log of the calls, from 1.5 to 6 px', () => {
    expect(edgeWidth(1000, 1000)).toBe(6);
    expect(edgeWidth(0, 1000)).toBe(1.5);
    expect(edgeWidth(5, 0)).toBe(1.5);
    const mid = edgeWidth(30, 1000);
    expect(mid).toBeGreaterThan(1.5);
    expect(mid).toBeLessThan(6);
    expect(edgeWidth(100, 1000)).toBeGreaterThan(mid);
  });

  it('a path through the points: a line for two, curves around the inner points, ending on the last', () => {
    expect(smoothPath([])).toBe('');
    expect(smoothPath([{ x: 0, y: 0 }])).toBe('');
    expect(smoothPath([{ x: 0, y: 0 }, { x: 10, y: 5 }])).toBe('M0 0 L10 5');
    expect(smoothPath([{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 20, y: 10 }])).toBe('M0 0 L5 0 Q10 0 20 10');
    expect(smoothPath([{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 20, y: 10 }, { x: 30.04, y: 10 }])).toBe('M0 0 L5 0 Q10 0 15 5 Q20 10 30 10');
    expect(smoothPath([{ x: 0, y: 0 }, { x: Number.NaN, y: 0 }, { x: 4, y: 4 }])).toBe('M0 0 L4 4');
  });

  it('stops the line where the arrowhead starts: the last point moved back along the last segment', () => {
    expect(shortenEnd([{ x: 0, y: 0 }, { x: 100, y: 0 }], 10)).toEqual([{ x: 0, y: 0 }, { x: 90, y: 0 }]);
    expect(shortenEnd([{ x: 0, y: 0 }, { x: 50, y: 50 }, { x: 50, y: 80 }], 10)).toEqual([{ x: 0, y: 0 }, { x: 50, y: 50 }, { x: 50, y: 70 }]);
    // Never past the segment's start; nothing to do for one point or none.
    expect(shortenEnd([{ x: 0, y: 0 }, { x: 4, y: 0 }], 10)).toEqual([{ x: 0, y: 0 }, { x: 0, y: 0 }]);
    expect(shortenEnd([{ x: 1, y: 1 }], 10)).toEqual([{ x: 1, y: 1 }]);
    const points = [{ x: 0, y: 0 }, { x: 10, y: 0 }];
    shortenEnd(points, 5);
    expect(points[1]).toEqual({ x: 10, y: 0 });
  });

  it('cuts a long name with an ellipsis, by characters', () => {
    expect(fitName('payments', 10)).toBe('payments');
    expect(fitName('a-very-long-service-name', 10)).toBe('a-very-lo…');
    expect(fitName('😀😀😀😀', 3)).toBe('😀😀…');
  });

  it('lays out top to bottom on a phone, left to right elsewhere', () => {
    expect(mapDirection(390)).toBe('TB');
    expect(mapDirection(1280)).toBe('LR');
    expect(mapDirection(0)).toBe('LR');
  });
});

describe('keyboard', () => {
  it('moves through the nodes along the flow, each followed by the edges it calls', () => {
    const g = buildGraph(report, name);
    // Left to right: shop and cron first (cron below), then payments, ledger; search beside.
    const at = { 1: { x: 0, y: 0 }, 4: { x: 0, y: 100 }, 2: { x: 200, y: 0 }, 3: { x: 400, y: 50 }, 5: { x: 400, y: 200 } } as Record<number, { x: number; y: number }>;
    const nodes = g.nodes.map((n) => ({ id: n.id, ...at[n.id]! }));
    expect(keyOrder(nodes, g.edges, 'LR')).toEqual([nodeKey(1), edgeKey(1, 2), nodeKey(4), edgeKey(4, 3), nodeKey(2), edgeKey(2, 3), nodeKey(3), nodeKey(5)]);
    // Top to bottom: by y first.
    expect(keyOrder(nodes, g.edges, 'TB').filter((k) => k.startsWith('n'))).toEqual([nodeKey(1), nodeKey(2), nodeKey(3), nodeKey(4), nodeKey(5)]);
  });

  it('steps with j/k and every arrow, Home and End; other keys are not its own', () => {
    expect(mapStep(5, 0, 'j')).toBe(1);
    expect(mapStep(5, 0, 'ArrowRight')).toBe(1);
    expect(mapStep(5, 0, 'ArrowDown')).toBe(1);
    expect(mapStep(5, 4, 'j')).toBe(4);
    expect(mapStep(5, 2, 'k')).toBe(1);
    expect(mapStep(5, 2, 'ArrowLeft')).toBe(1);
    expect(mapStep(5, 0, 'ArrowUp')).toBe(0);
    expect(mapStep(5, 2, 'Home')).toBe(0);
    expect(mapStep(5, 2, 'End')).toBe(4);
    expect(mapStep(5, 2, 'Enter')).toBeUndefined();
    expect(mapStep(0, 0, 'j')).toBeUndefined();
    expect(mapStep(3, 9, 'k')).toBe(1);
  });
});
