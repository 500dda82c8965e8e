/**
 * The service map's layout: dagre (`@dagrejs/dagre`), a layered (Sugiyama) layout. Callers sit before the services they
 * call, crossings are minimised, edges are routed around the boxes, and each edge's label gets its own place in the
 * middle of the edge, clear of the boxes and of the other labels. Unit-tested in
 * packages/console/test/map-layout.test.ts.
 */
import { graphlib, layout } from '@dagrejs/dagre';
import { edgeKey, nodeKey, type MapGraph, type Point } from './service-map';

/** An application's box. */
export const NODE_W = 184;
export const NODE_H = 52;
/** An edge's label (two lines: calls and failures, p99). */
export const LABEL_W = 148;
export const LABEL_H = 34;
/** Room around the drawing. */
export const MARGIN = 12;

/** What dagre is given: the graph's options, a box per node and a labelled edge per call, in the graph's order. */
export interface LayoutInput {
  options: { rankdir: 'LR' | 'TB'; nodesep: number; ranksep: number; edgesep: number; marginx: number; marginy: number; ranker: 'network-simplex' };
  nodes: Array<{ key: string; width: number; height: number }>;
  edges: Array<{ v: string; w: string; width: number; height: number; labelpos: 'c'; minlen: number }>;
}

export function layoutInput(graph: Pick<MapGraph, 'nodes' | 'edges'>, direction: 'LR' | 'TB'): LayoutInput {
  const ids = new Set(graph.nodes.map((n) => n.id));
  return {
    // Left to right, an edge's label sits between two ranks: the ranks are a label's width apart at least. Top to
    // bottom, the label is short and the boxes are wide: less room across, more along.
    options: direction === 'LR'
      ? { rankdir: 'LR', nodesep: 24, ranksep: 44, edgesep: 14, marginx: MARGIN, marginy: MARGIN, ranker: 'network-simplex' }
      : { rankdir: 'TB', nodesep: 20, ranksep: 30, edgesep: 12, marginx: MARGIN, marginy: MARGIN, ranker: 'network-simplex' },
    nodes: graph.nodes.map((n) => ({ key: nodeKey(n.id), width: NODE_W, height: NODE_H })),
    edges: graph.edges.filter((e) => ids.has(e.caller) && ids.has(e.callee) && e.caller !== e.callee)
      .map((e) => ({ v: nodeKey(e.caller), w: nodeKey(e.callee), width: LABEL_W, height: LABEL_H, labelpos: 'c', minlen: 1 })),
  };
}

/** Where things go: a node's centre, an edge's route (from the caller's border to the callee's) and its label's centre. */
export interface MapLayout {
  direction: 'LR' | 'TB';
  width: number;
  height: number;
  nodes: Map<number, Point>;
  edges: Map<string, { points: Point[]; label: Point }>;
}

const finite = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

export function layoutMap(graph: Pick<MapGraph, 'nodes' | 'edges'>, direction: 'LR' | 'TB'): MapLayout {
  const input = layoutInput(graph, direction);
  const g = new graphlib.Graph({ directed: true, multigraph: false, compound: false });
  g.setGraph({ ...input.options });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of input.nodes) g.setNode(n.key, { width: n.width, height: n.height });
  for (const e of input.edges) g.setEdge(e.v, e.w, { width: e.width, height: e.height, labelpos: e.labelpos, minlen: e.minlen });
  layout(g);
  const nodes = new Map<number, Point>();
  for (const n of graph.nodes) {
    const placed = g.node(nodeKey(n.id)) as { x?: number; y?: number } | undefined;
    nodes.set(n.id, { x: finite(placed?.x), y: finite(placed?.y) });
  }
  const edges = new Map<string, { points: Point[]; label: Point }>();
  for (const e of graph.edges) {
    const placed = g.edge(nodeKey(e.caller), nodeKey(e.callee)) as { points?: Point[]; x?: number; y?: number } | undefined;
    if (!placed) continue;
    const points = (placed.points ?? []).map((p) => ({ x: finite(p.x), y: finite(p.y) }));
    const middle = points[Math.floor(points.length / 2)] ?? { x: 0, y: 0 };
    edges.set(edgeKey(e.caller, e.callee), { points, label: { x: finite(placed.x, middle.x), y: finite(placed.y, middle.y) } });
  }
  const size = g.graph() as { width?: number; height?: number };
  return {
    direction,
    width: Math.max(finite(size.width), NODE_W + 2 * MARGIN),
    height: Math.max(finite(size.height), NODE_H + 2 * MARGIN),
    nodes,
    edges,
  };
}
