// Latency scatter of the loaded traces in plain SVG: start time on x, root span duration on y (log scale), one
// dot per trace coloured by status class. A dot is a link to its trace; a drag across the plot zooms the page's
// time range to the window dragged (`onZoom`). The chart is one tab stop: arrow keys move a cursor between the dots
// (lib/scatter-keys.ts), Enter opens the trace under it, and a live line says which it is.
// With `volume` (the server's buckets of the whole window, GET /metrics), the time axis is the window and bars under
// the dots show every request in it, errors in red: the dots are the traces loaded, the bars all there are.
//
// data-testid: latency-chart (the <figure>), latency-plot (the focusable <svg>), latency-point (each dot's link,
// data-trace-id), latency-cursor (the live line naming the trace under the cursor), latency-volume (the bars;
// data-total)
import { memo, useLayoutEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { formatDuration, spanName, statusClass } from '../lib/format';
import { extent } from '../lib/chart';
import { logTicks, scaleLog, timeTicks } from '../lib/scale';
import { STATUS_CLASSES, type TraceSummary } from '../lib/trace-list';
import { scatterStep } from '../lib/scatter-keys';
import { navigateView, traceHref } from '../router';
import { useTimePrefs } from '../time-prefs';
import { useDragZoom } from './drag-zoom';
import type { Volume } from '../lib/volume';
import { formatBucket, formatCount } from '../lib/format';

/** Dots drawn at most (the newest): enough to see the shape, few enough to keep the page responsive. */
export const MAX_POINTS = 3000;

const H = 200;
const PAD = { left: 56, right: 12, top: 10, bottom: 24 };
/** The volume bars' band, under the scatter's time axis. */
const BARS = 42;

/** The element's width in CSS pixels, followed as it resizes (the chart draws 1:1, so dots stay round). */
function useWidth(fallback: number): [RefObject<HTMLElement | null>, number] {
  const ref = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(fallback);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setWidth(Math.max(320, Math.floor(el.clientWidth - 16)));
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width];
}

export const LatencyChart = memo(function LatencyChart({ rows, projectId, now, onZoom, volume }: {
  rows: TraceSummary[];
  projectId: number;
  now: number;
  /** Every request of the window per bucket, from the server: the axis spans the window, bars show it all. */
  volume?: Volume | undefined;
  /** A drag across the plot chose this window (epoch ms). */
  onZoom?(from: number, to: number): void;
}) {
  const [ref, W] = useWidth(800);
  const { time } = useTimePrefs();
  // With the window's axis, a trace loaded from before it (all time shows the last 90 days) has no place on it.
  const points = rows.slice(0, MAX_POINTS).filter((r) => typeof r.durationMs === 'number' && (!volume || (r.startMs >= volume.from && r.startMs < volume.to)));
  const [t0, t1] = extent(points.map((p) => p.startMs)) ?? [now, now];
  const pad = Math.max((t1 - t0) * 0.02, 1000);
  const from = volume ? volume.from : t0 - pad;
  const to = volume ? volume.to : t1 + pad;
  const height = volume ? H + BARS : H;
  const plotW = W - PAD.left - PAD.right;
  const zoom = useDragZoom(W, PAD.left, W - PAD.right, (px) => from + ((px - PAD.left) / plotW) * (to - from), onZoom);
  const [cursor, setCursor] = useState<string>();
  if (!points.length && !volume?.total) return <figure ref={ref} className="latency-chart" hidden />;
  const active = cursor === undefined ? -1 : points.findIndex((p) => p.traceId === cursor);
  const describe = (p: TraceSummary) => `${p.root ? spanName(p.root.requestMethod ?? '') : p.traceId} ${p.root?.requestURL ?? ''}: `
    + `${formatDuration(p.durationMs)}, ${p.status ?? 'no status'}, ${time(new Date(p.startMs).toISOString(), now)}`;
  const onKeyDown = (e: KeyboardEvent<SVGSVGElement>) => {
    if (e.key === 'Enter' && active >= 0) {
      e.preventDefault();
      navigateView(`/traces/${points[active]!.traceId}`, { project: String(projectId) });
      return;
    }
    const next = scatterStep(points as Array<TraceSummary & { durationMs: number }>, active < 0 ? undefined : active, e.key);
    if (next === undefined) return;
    e.preventDefault();
    setCursor(points[next]!.traceId);
  };
  const [d0, d1] = extent(points.map((p) => p.durationMs!)) ?? [1, 1];
  const yTicks = logTicks(d0, d1);
  const x = (v: number) => PAD.left + ((v - from) / (to - from)) * plotW;
  const y = scaleLog(yTicks[0]!, yTicks[yTicks.length - 1]!, H - PAD.bottom, PAD.top);
  const xTicks = timeTicks(from, to, Math.max(2, Math.floor(W / 140)));

  return (
    <figure ref={ref} className="latency-chart" data-testid="latency-chart" data-point-count={points.length}>
      <svg
        viewBox={`0 0 ${W} ${height}`}
        role="group"
        tabIndex={0}
        data-testid="latency-plot"
        aria-label={`Duration of ${points.length} traces over time. Arrow keys move between traces, Enter opens one.`}
        aria-describedby={`latency-cursor-${projectId}`}
        className={onZoom ? 'zoomable' : undefined}
        onKeyDown={onKeyDown}
        onBlur={() => setCursor(undefined)}
        {...zoom.handlers}
      >
        <g className="axis">
          {yTicks.map((t) => (
            <g key={`y${t}`}>
              <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} className="grid" />
              <text x={PAD.left - 6} y={y(t)} dy="0.32em" textAnchor="end">{formatDuration(t)}</text>
            </g>
          ))}
          {xTicks.map((t) => (
            <text key={`x${t}`} x={x(t)} y={H - 6} textAnchor="middle">{time(new Date(t).toISOString(), now)}</text>
          ))}
        </g>
        <g className="points">
          {points.map((p) => (
            <a key={p.traceId} href={traceHref(p.traceId, projectId)} tabIndex={-1} data-testid="latency-point" data-trace-id={p.traceId}>
              <circle cx={x(p.startMs)} cy={y(p.durationMs!)} r={p.traceId === cursor ? 5.5 : 3.5} className={`dot status-${statusClass(p.status) || 'none'}${p.traceId === cursor ? ' active' : ''}`}>
                <title>
                  {`${p.root ? spanName(p.root.requestMethod ?? '') : p.traceId} ${p.root?.requestURL ?? ''}\n`}
                  {`${formatDuration(p.durationMs)} · ${p.status ?? 'no status'} · ${time(new Date(p.startMs).toISOString(), now)}`}
                </title>
              </circle>
            </a>
          ))}
        </g>
        {volume ? <VolumeBars volume={volume} x={x} top={H + 2} height={BARS - 6} /> : null}
        {zoom.band ? <rect className="zoom-band" data-testid="zoom-band" x={zoom.band.x} y={PAD.top} width={zoom.band.width} height={height - PAD.top - PAD.bottom + (volume ? PAD.bottom : 0)} /> : null}
      </svg>
      <p className="sr-only" id={`latency-cursor-${projectId}`} data-testid="latency-cursor" aria-live="polite">
        {active >= 0 ? describe(points[active]!) : ''}
      </p>
      <figcaption>
        {STATUS_CLASSES.map((c) => <span key={c} className="legend"><i className={`swatch status-${c}`} />{c}</span>)}
        <span className="muted">
          {rows.length > MAX_POINTS ? `Newest ${MAX_POINTS} of ${rows.length} loaded traces` : `${points.length} trace${points.length === 1 ? '' : 's'} loaded`}; duration on a log scale
          {volume ? `; bars: all ${formatCount(volume.total)} request${volume.total === 1 ? '' : 's'} of the window per ${formatBucket(volume.bucketMs)}, errors in red` : ''}
          {onZoom ? '; drag across the chart to zoom in' : ''}
        </span>
      </figcaption>
    </figure>
  );
});

/** Requests per bucket of the window (errors stacked in red), on a band of their own under the time axis. */
function VolumeBars({ volume, x, top, height }: { volume: Volume; x: (t: number) => number; top: number; height: number }) {
  const max = Math.max(1, ...volume.requests);
  const width = Math.max(1, x(volume.from + volume.bucketMs) - x(volume.from) - 1);
  return (
    <g className="volume" data-testid="latency-volume" data-total={volume.total} aria-hidden="true">
      {volume.requests.map((n, i) => {
        if (!n) return null;
        const start = volume.from + i * volume.bucketMs;
        const h = Math.max(1, (n / max) * height);
        const e = volume.errors[i]! > 0 ? Math.max(1, (volume.errors[i]! / max) * height) : 0;
        return (
          <g key={i}>
            <rect className="volume-bar" x={x(start)} y={top + height - h} width={width} height={h} />
            {e ? <rect className="volume-errors" x={x(start)} y={top + height - e} width={width} height={e} /> : null}
          </g>
        );
      })}
    </g>
  );
}
