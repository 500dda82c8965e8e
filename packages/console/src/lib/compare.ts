/**
 * Two traces side by side: their spans aligned by where they sit (the chain of service and operation from the root,
 * and the order among siblings of the same name), with each pair's duration change, and the spans one of them has
 * and the other lacks. Pure: unit-tested in packages/console/test/compare.test.ts.
 */
import { spanLabel, spanService } from './otel-span';
import type { WaterfallLayout, WaterfallRow } from './waterfall';

export interface Side {
  spanId: string;
  durationMs: number;
  offsetMs: number;
  error: boolean;
}

export interface CompareRow {
  /** Where the span sits: its ancestors' and its own service and operation, and its rank among same-named siblings. */
  key: string;
  depth: number;
  label: string;
  service: string;
  a: Side | undefined;
  b: Side | undefined;
  /** b - a, when both have the span. */
  deltaMs: number | undefined;
}

export interface Comparison {
  rows: CompareRow[];
  totalA: number;
  totalB: number;
  matched: number;
  /** Spans of A that B lacks ("missing" in B), and spans B adds. */
  onlyA: number;
  onlyB: number;
}

interface Node { id: number; key: string; label: string; service: string; a?: WaterfallRow; b?: WaterfallRow; children: Node[] }

/** The name a span is aligned by: its service (else its application), and its operation. */
function nameOf(row: WaterfallRow, appName: (id: number) => string): { service: string; label: string } {
  return { service: spanService(row.span) ?? appName(row.applicationId), label: spanLabel(row.span) || row.type };
}

const sideOf = (r: WaterfallRow): Side => ({ spanId: r.spanId, durationMs: r.durationMs, offsetMs: r.offsetMs, error: r.error });

/**
 * The two traces aligned: every span of A in A's order, each with its match in B; a span only B has sits under its
 * parent's match, after A's spans there. A span's place is its parent's node and its name and rank among the
 * same-named children of that parent (`layout.rows` is pre-order, siblings by start time, so the n-th is stable):
 * a node key is short whatever the depth, and a name holding any character places its span right. Totals are the
 * traces' extents.
 */
export function compareTraces(a: WaterfallLayout, b: WaterfallLayout, appName: (id: number) => string = (id) => `application ${id}`): Comparison {
  const nodes = new Map<string, Node>();
  const roots: Node[] = [];
  let nextId = 1;
  const placeAll = (layout: WaterfallLayout, side: 'a' | 'b') => {
    const nodeOfSpan = new Map<string, Node>();
    const rank = new Map<string, number>();
    for (const row of layout.rows) {
      const parent = row.parentSpanId === undefined ? undefined : nodeOfSpan.get(row.parentSpanId);
      const { service, label } = nameOf(row, appName);
      const base = `${parent?.id ?? 0}\u0000${service}\u0000${label}`;
      const n = rank.get(base) ?? 0;
      rank.set(base, n + 1);
      const key = `${base}#${n}`;
      let node = nodes.get(key);
      if (!node) {
        node = { id: nextId++, key, label, service, children: [] };
        nodes.set(key, node);
        (parent ? parent.children : roots).push(node);
      }
      node[side] = row;
      nodeOfSpan.set(row.spanId, node);
    }
  };
  placeAll(a, 'a');
  placeAll(b, 'b');

  const rows: CompareRow[] = [];
  let matched = 0;
  let onlyA = 0;
  let onlyB = 0;
  // Depth first with an explicit stack: a chain of thousands of spans is no recursion.
  const stack: Array<{ node: Node; depth: number }> = roots.map((node) => ({ node, depth: 0 })).reverse();
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    const sa = node.a && sideOf(node.a);
    const sb = node.b && sideOf(node.b);
    if (sa && sb) matched++;
    else if (sa) onlyA++;
    else onlyB++;
    rows.push({ key: node.key, depth, label: node.label, service: node.service, a: sa, b: sb, deltaMs: sa && sb ? sb.durationMs - sa.durationMs : undefined });
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, depth: depth + 1 });
  }
  return { rows, totalA: a.totalMs, totalB: b.totalMs, matched, onlyA, onlyB };
}

/** Whether a pair changed enough to point out: by more than `minMs` and more than `share` of the slower one. */
export function changed(row: CompareRow, minMs = 1, share = 0.1): boolean {
  if (!row.a || !row.b) return true;
  const d = Math.abs(row.deltaMs ?? 0);
  return d > minMs && d > share * Math.max(row.a.durationMs, row.b.durationMs);
}
