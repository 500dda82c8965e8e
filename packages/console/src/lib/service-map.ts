/**
 * The Service map page (GET /metrics/services): the graph it draws from the server's answer (optionally around one
 * application), what its nodes and edges say, the Traces views they open, the edges' shape and width, and the order
 * the keyboard moves through them. Pure functions: unit-tested in packages/console/test/service-map.test.ts. The
 * layout itself (dagre) is lib/map-layout.ts.
 */
import type { ServiceMapReport } from '../api/types';
import { formatCount, formatDuration, formatPercent } from './format';

/** An application on the map: its entry spans in the window (none for one that only calls others). */
export interface MapNode {
  id: number;
  name: string;
  requests: number;
  errors: number;
  /** errors ÷ requests, exact (the API's errorRate is rounded to 0.01); 0 without requests. */
  share: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  /** The application the map is drawn around (the URL names it). */
  focus: boolean;
}

/** Calls from `caller` to `callee`: the callee's entry spans whose parent is a span of the caller. */
export interface MapEdge {
  key: string;
  caller: number;
  callee: number;
  callerName: string;
  calleeName: string;
  calls: number;
  errors: number;
  /** errors ÷ calls, exact. */
  share: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}

export interface MapGraph {
  /** By application id. */
  nodes: MapNode[];
  /** By caller, then callee (the server's order): the layout's input order, so a refresh lays out the same. */
  edges: MapEdge[];
  /** The application the map is drawn around, when the URL names one. */
  focus: number | undefined;
  /** Applications of the window left out: not the focus, nor one it calls or is called by. */
  hidden: number;
}

export const shareOf = (errors: number, count: number): number => (count > 0 ? errors / count : 0);

export const nodeKey = (id: number): string => `n${id}`;
export const edgeKey = (caller: number, callee: number): string => `e${caller}-${callee}`;

/**
 * The graph of a report: every node, and every edge between two applications (an edge from an application to itself
 * is not drawn: the server counts none). An edge's end the report lists no node for still gets one. With `focus`,
 * only that application, the edges to and from it and the applications at their other ends; nothing when the focus
 * had neither requests nor calls in the window.
 */
export function buildGraph(report: Pick<ServiceMapReport, 'nodes' | 'edges'>, appName: (id: number) => string, focus?: number): MapGraph {
  const all = new Map<number, MapNode>();
  const node = (id: number, requests = 0, errors = 0, p: { p50Ms: number | null; p95Ms: number | null; p99Ms: number | null } = { p50Ms: null, p95Ms: null, p99Ms: null }) => {
    if (!all.has(id)) all.set(id, { id, name: appName(id), requests, errors, share: shareOf(errors, requests), ...p, focus: id === focus });
  };
  for (const n of report.nodes) node(n.applicationId, n.requests, n.errors, n);
  const edges: MapEdge[] = [];
  for (const e of report.edges) {
    if (e.callerApplicationId === e.calleeApplicationId) continue;
    node(e.callerApplicationId);
    node(e.calleeApplicationId);
    edges.push({
      key: edgeKey(e.callerApplicationId, e.calleeApplicationId),
      caller: e.callerApplicationId,
      callee: e.calleeApplicationId,
      callerName: appName(e.callerApplicationId),
      calleeName: appName(e.calleeApplicationId),
      calls: e.calls,
      errors: e.errors,
      share: shareOf(e.errors, e.calls),
      p50Ms: e.p50Ms,
      p95Ms: e.p95Ms,
      p99Ms: e.p99Ms,
    });
  }
  edges.sort((a, b) => a.caller - b.caller || a.callee - b.callee);
  let nodes = [...all.values()].sort((a, b) => a.id - b.id);
  let kept = edges;
  if (focus !== undefined) {
    kept = all.has(focus) ? edges.filter((e) => e.caller === focus || e.callee === focus) : [];
    const ids = new Set(kept.flatMap((e) => [e.caller, e.callee]));
    if (all.has(focus)) ids.add(focus);
    nodes = nodes.filter((n) => ids.has(n.id));
  }
  return { nodes, edges: kept, focus, hidden: all.size - nodes.length };
}

/** The figures that move the layout: which nodes and edges there are, not their numbers (a refresh keeps it still). */
export function structureKey(graph: Pick<MapGraph, 'nodes' | 'edges'>): string {
  return `${graph.nodes.map((n) => n.id).join(',')}|${graph.edges.map((e) => e.key).join(',')}`;
}

/** The edges busiest first (then by names): the order of the calls table. */
export function edgesByCalls(edges: readonly MapEdge[]): MapEdge[] {
  return [...edges].sort((a, b) => b.calls - a.calls || a.callerName.localeCompare(b.callerName, 'en') || a.calleeName.localeCompare(b.calleeName, 'en') || a.caller - b.caller || a.callee - b.callee);
}

const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** A node's second line: "1.2k req · 0.3% failed", "20 req", or "calls only" for one without entry spans. */
export function nodeLine(n: Pick<MapNode, 'requests' | 'errors' | 'share'>): { text: string; failed?: string } {
  if (n.requests === 0) return { text: 'no requests: calls only' };
  return { text: `${formatCount(n.requests, true)} req`, ...(n.errors > 0 ? { failed: `${formatPercent(n.share)} failed` } : {}) };
}

/** An edge's label, two lines: "800 calls · 1.5% failed" and "p99 88 ms". */
export function edgeLines(e: Pick<MapEdge, 'calls' | 'errors' | 'share' | 'p99Ms'>): { calls: string; failed?: string; p99: string } {
  return {
    calls: `${formatCount(e.calls, true)} call${e.calls === 1 ? '' : 's'}`,
    ...(e.errors > 0 ? { failed: `${formatPercent(e.share)} failed` } : {}),
    p99: `p99 ${formatDuration(e.p99Ms)}`,
  };
}

/** "5 failed (25%)" or "none failed". */
const failures = (errors: number, share: number) => (errors > 0 ? `${formatCount(errors)} failed (${formatPercent(share)})` : 'none failed');

const latency = (p: { p50Ms: number | null; p95Ms: number | null; p99Ms: number | null }) =>
  `p50 ${formatDuration(p.p50Ms)}, p95 ${formatDuration(p.p95Ms)}, p99 ${formatDuration(p.p99Ms)}`;

/** What a node says to a screen reader and in the line under the map. */
export function nodeDescription(n: MapNode): string {
  if (n.requests === 0) return `${n.name}: no requests in the window, it only calls others. Opens its traces`;
  return `${n.name}: ${plural(n.requests, 'request')}, ${failures(n.errors, n.share)}, ${latency(n)}. Opens its traces`;
}

/** What an edge says to a screen reader and in the line under the map. */
export function edgeDescription(e: MapEdge): string {
  return `${e.callerName} calls ${e.calleeName}: ${plural(e.calls, 'call')}, ${failures(e.errors, e.share)}, ${latency(e)}. Opens the traces of ${e.calleeName}`;
}

/**
 * A box's accessible name: what it shows, in order ("shop 1.2k req · 0.3% failed"), so a voice command that says the
 * visible text finds it; a name cut to fit the box is followed by the whole name.
 */
export function nodeName(n: MapNode, shown: string): string {
  const line = nodeLine(n);
  return `${shown} ${line.text}${line.failed ? ` · ${line.failed}` : ''}${shown !== n.name ? `, ${n.name}` : ''}`;
}

/** An arrow's accessible name: who calls whom, then its label as shown ("shop calls payments: 800 calls · 1.5% failed p99 88 ms"). */
export function edgeName(e: MapEdge): string {
  const text = edgeLines(e);
  return `${e.callerName} calls ${e.calleeName}: ${text.calls}${text.failed ? ` · ${text.failed}` : ''} ${text.p99}`;
}

/** Params of a Traces (or Metrics) view (router.ts `hrefInScope`). */
export type MapViewParams = Record<string, string>;

/**
 * The Traces view of an application over the map's window; `failed`: its failed ones (5xx). An edge opens its
 * callee's: the Traces page filters by application, not by caller, so it lists every request the callee served in
 * the window, from this caller or another.
 */
export function applicationTraces(applicationId: number, window: { from: string; to: string }, failed = false): MapViewParams {
  return { applicationId: String(applicationId), from: window.from, to: window.to, ...(failed ? { status: '5xx' } : {}) };
}

export const edgeTraces = (e: Pick<MapEdge, 'callee'>, window: { from: string; to: string }, failed = false) => applicationTraces(e.callee, window, failed);

/** An edge's stroke: 1.5 px for the quietest, up to 6 px for the busiest of the map (by the log of the calls). */
export function edgeWidth(calls: number, busiest: number): number {
  if (!(busiest > 0) || !(calls > 0)) return 1.5;
  const w = 1.5 + (4.5 * Math.log1p(calls)) / Math.log1p(busiest);
  return Math.round(Math.min(6, w) * 10) / 10;
}

export interface Point { x: number; y: number }

const r1 = (v: number) => Math.round(v * 10) / 10;

/**
 * An SVG path through the layout's points: straight from the first to the middle of the first segment, then a
 * quadratic curve around each inner point to the middle of the next segment, the last one to the last point; it
 * ends along the last segment, so an arrowhead at the end points the way the layout routed it.
 */
export function smoothPath(points: readonly Point[]): string {
  const p = points.filter((q) => Number.isFinite(q.x) && Number.isFinite(q.y));
  if (p.length < 2) return '';
  const at = (q: Point) => `${r1(q.x)} ${r1(q.y)}`;
  if (p.length === 2) return `M${at(p[0]!)} L${at(p[1]!)}`;
  const mid = (a: Point, b: Point): Point => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
  let d = `M${at(p[0]!)} L${at(mid(p[0]!, p[1]!))}`;
  for (let i = 1; i < p.length - 1; i++) d += ` Q${at(p[i]!)} ${at(i === p.length - 2 ? p[i + 1]! : mid(p[i]!, p[i + 1]!))}`;
  return d;
}

/**
 * The route with its last point moved back `by` along its last segment (at most to that segment's start): the line
 * stops where the arrowhead begins, and the arrowhead reaches the callee's border.
 */
export function shortenEnd(points: readonly Point[], by: number): Point[] {
  const out = points.map((p) => ({ ...p }));
  if (out.length < 2 || !(by > 0)) return out;
  const end = out[out.length - 1]!;
  const before = out[out.length - 2]!;
  const len = Math.hypot(end.x - before.x, end.y - before.y);
  if (!(len > 0)) return out;
  const k = Math.min(by, len) / len;
  out[out.length - 1] = { x: end.x - (end.x - before.x) * k, y: end.y - (end.y - before.y) * k };
  return out;
}

/** A name cut to `max` characters with an ellipsis (the box has a fixed width; the whole name is in its tooltip). */
export function fitName(name: string, max: number): string {
  const chars = [...name];
  return chars.length <= max ? name : `${chars.slice(0, max - 1).join('')}…`;
}

/** Left to right where there is room, top to bottom on a narrow screen (a phone): the map then grows down, not wide. */
export function mapDirection(width: number): 'LR' | 'TB' {
  return width > 0 && width < 640 ? 'TB' : 'LR';
}

/**
 * The order the keyboard moves through: the nodes as the layout placed them (along the flow, then across it), each
 * followed by the edges it calls (in the order of their callees). Keys as nodeKey / edgeKey.
 */
export function keyOrder(nodes: ReadonlyArray<{ id: number; x: number; y: number }>, edges: ReadonlyArray<Pick<MapEdge, 'key' | 'caller' | 'callee'>>, direction: 'LR' | 'TB'): string[] {
  const along = (n: { x: number; y: number }) => (direction === 'LR' ? [n.x, n.y] : [n.y, n.x]);
  const sorted = [...nodes].sort((a, b) => {
    const [a1, a2] = along(a);
    const [b1, b2] = along(b);
    return a1! - b1! || a2! - b2! || a.id - b.id;
  });
  const rank = new Map(sorted.map((n, i) => [n.id, i]));
  const out: string[] = [];
  for (const n of sorted) {
    out.push(nodeKey(n.id));
    const calls = edges.filter((e) => e.caller === n.id).sort((a, b) => (rank.get(a.callee) ?? 0) - (rank.get(b.callee) ?? 0));
    for (const e of calls) out.push(e.key);
  }
  return out;
}

/**
 * A key press on the map: j, ArrowDown or ArrowRight to the next item, k, ArrowUp or ArrowLeft to the previous one,
 * Home and End to the ends; undefined for any other key (Enter opens the item: it is a link).
 */
export function mapStep(count: number, current: number, key: string): number | undefined {
  if (count <= 0) return undefined;
  const at = Math.max(0, Math.min(count - 1, current));
  if (key === 'j' || key === 'ArrowDown' || key === 'ArrowRight') return Math.min(count - 1, at + 1);
  if (key === 'k' || key === 'ArrowUp' || key === 'ArrowLeft') return Math.max(0, at - 1);
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return undefined;
}
