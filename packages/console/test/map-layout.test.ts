import { describe, expect, it } from '@jest/globals';
import type { ServiceMapEdge, ServiceMapNode } from '../src/api/types';
import { LABEL_H, LABEL_W, layoutInput, layoutMap, MARGIN, NODE_H, NODE_W } from '../src/lib/map-layout';
import { buildGraph, edgeKey, nodeKey, type MapGraph } from '../src/lib/service-map';

const node = (applicationId: number, requests = 10): ServiceMapNode => ({ applicationId, requests, errors: 0, errorRate: 0, p50Ms: 1, p95Ms: 2, p99Ms: 3 });
const edge = (caller: number, callee: number, calls = 10): ServiceMapEdge => ({
  callerApplicationId: caller, calleeApplicationId: callee, calls, errors: 0, errorRate: 0, p50Ms: 1, p95Ms: 2, p99Ms: 3,
});
const graph = (nodes: number[], edges: Array<[number, number]>): MapGraph => buildGraph({ nodes: nodes.map((id) => node(id)), edges: edges.map(([a, b]) => edge(a, b)) }, (id) => `app ${id}`);

interface Box { x: number; y: number; w: number; h: number }
const overlap = (a: Box, b: Box) => Math.abs(a.x - b.x) * 2 < a.w + b.w && Math.abs(a.y - b.y) * 2 < a.h + b.h;

describe('layoutInput', () => {
  it('a box per node and a labelled edge per call, in the graph\'s order, with the direction\'s spacing', () => {
    const input = layoutInput(graph([1, 2, 3], [[1, 2], [2, 3]]), 'LR');
    expect(input.options).toMatchObject({ rankdir: 'LR', marginx: MARGIN, marginy: MARGIN });
    expect(input.nodes).toEqual([1, 2, 3].map((id) => ({ key: nodeKey(id), width: NODE_W, height: NODE_H })));
    expect(input.edges).toEqual([
      { v: nodeKey(1), w: nodeKey(2), width: LABEL_W, height: LABEL_H, labelpos: 'c', minlen: 1 },
      { v: nodeKey(2), w: nodeKey(3), width: LABEL_W, height: LABEL_H, labelpos: 'c', minlen: 1 },
    ]);
    expect(layoutInput(graph([1, 2], [[1, 2]]), 'TB').options.rankdir).toBe('TB');
  });

  it('drops an edge whose end is not a node of the graph, or that loops on one', () => {
    const g = graph([1, 2], [[1, 2]]);
    const input = layoutInput({ nodes: g.nodes, edges: [...g.edges, { ...g.edges[0]!, key: 'x', callee: 9 }, { ...g.edges[0]!, key: 'y', callee: 1 }] }, 'LR');
    expect(input.edges.map((e) => [e.v, e.w])).toEqual([[nodeKey(1), nodeKey(2)]]);
  });
});

describe('layoutMap (dagre)', () => {
  it('left to right: a chain goes along x, each caller before its callee, every edge from one box to the other', () => {
    const g = graph([1, 2, 3], [[1, 2], [2, 3]]);
    const m = layoutMap(g, 'LR');
    const [a, b, c] = [1, 2, 3].map((id) => m.nodes.get(id)!);
    expect(a!.x).toBeLessThan(b!.x);
    expect(b!.x).toBeLessThan(c!.x);
    // Each label sits between its two boxes.
    const ab = m.edges.get(edgeKey(1, 2))!;
    expect(ab.label.x).toBeGreaterThan(a!.x + NODE_W / 2);
    expect(ab.label.x).toBeLessThan(b!.x - NODE_W / 2);
    // The route starts at the caller's border and ends at the callee's.
    const first = ab.points[0]!;
    const last = ab.points[ab.points.length - 1]!;
    expect(Math.abs(first.x - (a!.x + NODE_W / 2))).toBeLessThan(1);
    expect(Math.abs(last.x - (b!.x - NODE_W / 2))).toBeLessThan(1);
    // Everything within the drawing.
    expect(m.width).toBeGreaterThanOrEqual(c!.x + NODE_W / 2 + MARGIN - 1);
    expect(m.height).toBeGreaterThanOrEqual(NODE_H + 2 * MARGIN);
  });

  it('top to bottom: the same chain goes along y, narrower than it is tall', () => {
    const m = layoutMap(graph([1, 2, 3], [[1, 2], [2, 3]]), 'TB');
    const [a, b, c] = [1, 2, 3].map((id) => m.nodes.get(id)!);
    expect(a!.y).toBeLessThan(b!.y);
    expect(b!.y).toBeLessThan(c!.y);
    expect(m.width).toBeLessThan(m.height);
    // A phone of 390 px holds it without scaling (the page's padding included).
    expect(m.width).toBeLessThanOrEqual(370);
  });

  it('no box overlaps another box or a label, in a busier map with a cycle, a fan-out and a lone application', () => {
    const g = graph([1, 2, 3, 4, 5, 6, 7], [[1, 2], [1, 3], [1, 4], [2, 5], [3, 5], [4, 5], [5, 1], [6, 5]]);
    for (const direction of ['LR', 'TB'] as const) {
      const m = layoutMap(g, direction);
      const boxes: Box[] = [
        ...[...m.nodes.values()].map((p) => ({ ...p, w: NODE_W, h: NODE_H })),
        ...[...m.edges.values()].map((e) => ({ ...e.label, w: LABEL_W, h: LABEL_H })),
      ];
      expect(m.edges.size).toBe(8);
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) expect([direction, i, j, overlap(boxes[i]!, boxes[j]!)]).toEqual([direction, i, j, false]);
        expect(boxes[i]!.x - boxes[i]!.w / 2).toBeGreaterThanOrEqual(0);
        expect(boxes[i]!.x + boxes[i]!.w / 2).toBeLessThanOrEqual(m.width + 0.5);
      }
      // Every edge was routed.
      for (const e of m.edges.values()) expect(e.points.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('the same graph lays out the same way every time (a refresh does not move the map)', () => {
    const g = graph([1, 2, 3, 4], [[1, 2], [2, 3], [1, 4], [4, 3]]);
    const once = layoutMap(g, 'LR');
    const again = layoutMap(g, 'LR');
    expect([...again.nodes.entries()]).toEqual([...once.nodes.entries()]);
    expect([...again.edges.entries()]).toEqual([...once.edges.entries()]);
  });

  it('one application without edges, and none at all', () => {
    const one = layoutMap(graph([5], []), 'LR');
    expect(one.nodes.get(5)).toEqual({ x: MARGIN + NODE_W / 2, y: MARGIN + NODE_H / 2 });
    expect([one.width, one.height]).toEqual([NODE_W + 2 * MARGIN, NODE_H + 2 * MARGIN]);
    const none = layoutMap(graph([], []), 'LR');
    expect(none.nodes.size).toBe(0);
    expect(none.edges.size).toBe(0);
  });
});
