// The Service map's drawing in SVG: a box per application (its name, requests and failures) and an arrow per caller
// -> callee (its width by the calls, red when some failed; a label with the calls, failures and p99), laid out by
// dagre (lib/map-layout.ts) left to right, or top to bottom on a narrow screen.
//
// Every box and arrow is a link: an arrow opens the callee's traces of the map's window, a box its application's.
// The map is one tab stop: j/k or the arrows move through the boxes and arrows (lib/service-map.ts keyOrder), Home
// and End jump, Enter opens. The line under the map describes the box or arrow under the mouse or the focus.
//
// data-testid: service-map (the scroll box; data-direction "LR" or "TB", data-nodes, data-edges), map-node (a box's
// link; data-application-id, data-requests, data-errors), map-edge (an arrow's link; data-caller, data-callee,
// data-calls, data-errors, data-p99, data-failing "true" when some calls failed), map-edge-label (an arrow's label),
// service-map-detail (the line under the map)
import { useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { LABEL_H, LABEL_W, layoutMap, NODE_H, NODE_W } from '../lib/map-layout';
import {
  applicationTraces, edgeDescription, edgeLines, edgeName, edgeTraces, edgeWidth, fitName, keyOrder, mapDirection, mapStep, nodeDescription, nodeKey,
  nodeLine, nodeName, shortenEnd, smoothPath, structureKey, type MapEdge, type MapGraph, type MapNode,
} from '../lib/service-map';
import { hrefInScope } from '../router';

/** Below this the text is too small to read: the map scrolls in its box instead. */
const MIN_SCALE = 0.7;
/** The arrowhead's length (user units, whatever the line's width). */
const ARROW = 10;
/** Characters of a name that fit a box. */
const NAME_CHARS = 22;

/** The width of an element, kept up to date (0 before it is laid out). */
function useWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth);
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

export function ServiceMapGraph({ graph, window, scope }: {
  graph: MapGraph;
  /** The map's window: what its links open. */
  window: { from: string; to: string };
  /** The page's URL params: a link keeps their organization and project. */
  scope: URLSearchParams;
}) {
  const box = useRef<HTMLDivElement>(null);
  const svg = useRef<SVGSVGElement>(null);
  const width = useWidth(box);
  const direction = mapDirection(width);
  // Laid out again when the applications or their calls change, or the direction; new figures keep the map still.
  const structure = structureKey(graph);
  const current = useRef(graph);
  current.current = graph;
  const layout = useMemo(() => layoutMap(current.current, direction), [structure, direction]);
  const order = useMemo(
    () => keyOrder(graph.nodes.map((n) => ({ id: n.id, ...(layout.nodes.get(n.id) ?? { x: 0, y: 0 }) })), graph.edges, direction),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [layout],
  );
  // The item that takes the focus when the map is tabbed into, and that the keys move: by key, so it stays on its
  // box or arrow when a refresh brings new figures.
  const [currentKey, setCurrentKey] = useState<string>();
  const at = Math.max(0, currentKey === undefined ? 0 : order.indexOf(currentKey));
  const tabKey = order[at];
  // What the line under the map describes: the item under the mouse, else the one focused.
  const [hovered, setHovered] = useState<string>();
  const [focused, setFocused] = useState<string>();

  const nodes = new Map(graph.nodes.map((n) => [nodeKey(n.id), n]));
  const edges = new Map(graph.edges.map((e) => [e.key, e]));
  const busiest = graph.edges.reduce((m, e) => Math.max(m, e.calls), 0);
  const described = hovered ?? focused;
  const detail = described ? (nodes.has(described) ? nodeDescription(nodes.get(described)!) : edges.has(described) ? edgeDescription(edges.get(described)!) : '') : '';

  const scale = width > 0 ? Math.min(1, Math.max(MIN_SCALE, (width - 2) / layout.width)) : 1;

  const onKeyDown = (e: KeyboardEvent<SVGSVGElement>) => {
    const next = mapStep(order.length, at, e.key);
    if (next === undefined) return;
    e.preventDefault();
    const key = order[next]!;
    setCurrentKey(key);
    svg.current?.querySelector<SVGElement>(`[data-key="${key}"]`)?.focus();
  };
  const item = (key: string): ItemProps => ({
    'data-key': key,
    tabIndex: key === tabKey ? 0 : -1,
    onFocus: () => {
      setCurrentKey(key);
      setFocused(key);
    },
    onBlur: () => setFocused((k) => (k === key ? undefined : k)),
    onMouseEnter: () => setHovered(key),
    onMouseLeave: () => setHovered((k) => (k === key ? undefined : k)),
  });

  return (
    <>
      <div ref={box} className="service-map" data-testid="service-map" data-direction={direction} data-nodes={graph.nodes.length} data-edges={graph.edges.length}>
        <svg
          ref={svg}
          className="service-map-svg"
          role="group"
          aria-label={`Service map: ${graph.nodes.length} application${graph.nodes.length === 1 ? '' : 's'}, ${graph.edges.length} caller to callee link${graph.edges.length === 1 ? '' : 's'}. Arrow keys move, Enter opens the traces`}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          width={Math.round(layout.width * scale)}
          height={Math.round(layout.height * scale)}
          onKeyDown={onKeyDown}
        >
          <defs>
            <marker id="map-arrow" className="map-arrow" viewBox={`0 0 ${ARROW} ${ARROW}`} refX={0} refY={ARROW / 2} markerUnits="userSpaceOnUse" markerWidth={ARROW} markerHeight={ARROW} orient="auto">
              <path d={`M0 0 L${ARROW} ${ARROW / 2} L0 ${ARROW} z`} />
            </marker>
            <marker id="map-arrow-failing" className="map-arrow failing" viewBox={`0 0 ${ARROW} ${ARROW}`} refX={0} refY={ARROW / 2} markerUnits="userSpaceOnUse" markerWidth={ARROW} markerHeight={ARROW} orient="auto">
              <path d={`M0 0 L${ARROW} ${ARROW / 2} L0 ${ARROW} z`} />
            </marker>
          </defs>
          {graph.edges.map((e) => {
            const placed = layout.edges.get(e.key);
            return placed ? (
              <Edge key={e.key} edge={e} points={placed.points} label={placed.label} width={edgeWidth(e.calls, busiest)}
                href={hrefInScope('/traces', scope, edgeTraces(e, window))} item={item(e.key)} />
            ) : null;
          })}
          {graph.nodes.map((n) => {
            const at = layout.nodes.get(n.id);
            return at ? <Node key={n.id} node={n} x={at.x} y={at.y} href={hrefInScope('/traces', scope, applicationTraces(n.id, window))} item={item(nodeKey(n.id))} /> : null;
          })}
        </svg>
      </div>
      <p className="muted map-detail" data-testid="service-map-detail">
        {detail || 'An arrow is a caller calling a callee: a click (or Enter) opens the callee\'s traces of this window; a box opens its application\'s.'}
      </p>
    </>
  );
}

/** The props every box and arrow link takes: its key, the roving tab stop, focus and hover. */
interface ItemProps {
  'data-key': string;
  tabIndex: number;
  onFocus(): void;
  onBlur(): void;
  onMouseEnter(): void;
  onMouseLeave(): void;
}

/**
 * A box or an arrow is named by what it shows (WCAG 2.5.3: a voice command saying the visible text finds it) and
 * described, for a screen reader, by its figures in full words: its <desc>, by id.
 */
const descId = (key: string) => `map-desc-${key}`;

function Node({ node, x, y, href, item }: { node: MapNode; x: number; y: number; href: string; item: ItemProps }) {
  const line = nodeLine(node);
  const shown = fitName(node.name, NAME_CHARS);
  return (
    <a href={href} className={`map-node${node.focus ? ' focus' : ''}`} data-testid="map-node" data-application-id={node.id} data-requests={node.requests}
      data-errors={node.errors} aria-label={nodeName(node, shown)} aria-describedby={descId(item['data-key'])} {...item}>
      <desc id={descId(item['data-key'])}>{nodeDescription(node)}</desc>
      <rect className="map-node-box" x={x - NODE_W / 2} y={y - NODE_H / 2} width={NODE_W} height={NODE_H} rx={8} />
      <text className="map-node-name" x={x} y={y - 5} textAnchor="middle">{shown}</text>
      {' '}
      <text className="map-node-line" x={x} y={y + 13} textAnchor="middle">
        {line.text}
        {line.failed ? <tspan className="bad">{` · ${line.failed}`}</tspan> : null}
      </text>
    </a>
  );
}

function Edge({ edge, points, label, width, href, item }: {
  edge: MapEdge;
  points: ReadonlyArray<{ x: number; y: number }>;
  label: { x: number; y: number };
  width: number;
  href: string;
  item: ItemProps;
}) {
  const failing = edge.errors > 0;
  const route = smoothPath(points);
  const line = smoothPath(shortenEnd(points, ARROW));
  const text = edgeLines(edge);
  return (
    <a href={href} className={`map-edge${failing ? ' failing' : ''}`} data-testid="map-edge" data-caller={edge.caller} data-callee={edge.callee}
      data-calls={edge.calls} data-errors={edge.errors} data-p99={edge.p99Ms ?? undefined} data-failing={failing} aria-label={edgeName(edge)}
      aria-describedby={descId(item['data-key'])} {...item}>
      <desc id={descId(item['data-key'])}>{edgeDescription(edge)}</desc>
      <path className="map-edge-hit" d={route} />
      <path className="map-edge-line" d={line} strokeWidth={width} markerEnd={`url(#${failing ? 'map-arrow-failing' : 'map-arrow'})`} />
      <g className="map-edge-label" data-testid="map-edge-label">
        <rect x={label.x - LABEL_W / 2} y={label.y - LABEL_H / 2} width={LABEL_W} height={LABEL_H} rx={4} />
        <text x={label.x} y={label.y - 3} textAnchor="middle">
          {text.calls}
          {text.failed ? <tspan className="bad">{` · ${text.failed}`}</tspan> : null}
        </text>
        {' '}
        <text className="map-edge-p99" x={label.x} y={label.y + 12} textAnchor="middle">{text.p99}</text>
      </g>
    </a>
  );
}
