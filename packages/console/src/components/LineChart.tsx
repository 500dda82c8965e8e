// A small time-series chart of the Metrics page in plain SVG.
//
// data-testid: metrics-chart (the <figure>; data-series: the keys of the series it draws, space-separated, e.g.
// "p50Ms p95Ms p99Ms"), metrics-chart-legend (the legend of a chart of several series)
import { band, bars, extent, hasValues, labelIndices, linePath, lonePoints, niceTicks, scaleLinear, type Value } from '../lib/chart';
import { useTimePrefs } from '../time-prefs';
import { useDragZoom } from './drag-zoom';

const W = 300;
const H = 112;
const PAD = { left: 42, right: 6, top: 8, bottom: 18 };
const PLOT_W = W - PAD.left - PAD.right;
const PLOT_H = H - PAD.top - PAD.bottom;

/** Colour of a series: a CSS class (`chart-<tone>`) of the stylesheet's palette. */
export type ChartTone = 'requests' | 'errors' | 'latency' | 'p99';

export interface ChartSeries {
  /** What the series is, for `data-series`: the API field it comes from (`requests`, `p95Ms`...). */
  key: string;
  /** Its name in the legend and the tooltip (`p95`). */
  label: string;
  /** One value per bucket; null is a gap (no data in that bucket). */
  values: readonly Value[];
  tone: ChartTone;
  /** A dashed line: a cue besides the colour, for a chart of several lines. */
  dashed?: boolean;
}

const DASH = '5 4';

/**
 * A small time-series chart in plain SVG: one value per bucket (`times[i]` its start) for each series, as bars
 * (of the first series) or as lines that break where a value is null. Several series share one y axis and get a
 * legend. The y axis starts at 0; hovering a bucket shows its time and the value of each series.
 */
export function LineChart({ title, series, times, kind = 'line', format, integer = false, detail, bucketMs: bucketWidth, onZoom, onPick }: {
  title: string;
  series: readonly ChartSeries[];
  times: readonly string[];
  kind?: 'line' | 'bar';
  /** A value as the axis and the tooltip show it. */
  format(v: number): string;
  /** Whole-number axis ticks (counts). */
  integer?: boolean;
  /** More about bucket `i` for its tooltip ("1 of 2 requests"). */
  detail?(i: number): string | undefined;
  /** The width of a bucket (ms); from the first two times when absent. */
  bucketMs?: number;
  /** A drag across the plot chose this window (epoch ms, whole buckets). */
  onZoom?(from: number, to: number): void;
  /** A click on bucket `i` (its start and end, epoch ms): the traces behind it. */
  onPick?(from: number, to: number): void;
}) {
  const n = times.length;
  const { time: formatTime } = useTimePrefs();
  const t0 = Date.parse(times[0] ?? '');
  const bucketMs = bucketWidth ?? (n > 1 ? Date.parse(times[1]!) - t0 : NaN);
  const zoomable = onZoom && Number.isFinite(t0) && bucketMs > 0;
  // Buckets are equal bands: x maps to time linearly, and the window dragged snaps out to whole buckets.
  const zoom = useDragZoom(W, PAD.left, W - PAD.right, (px) => t0 + ((px - PAD.left) / PLOT_W) * n * bucketMs, zoomable ? (from, to) => {
    onZoom(t0 + Math.floor((from - t0) / bucketMs) * bucketMs, t0 + Math.ceil((to - t0) / bucketMs) * bucketMs);
  } : undefined);
  const drawn = kind === 'bar' ? series.slice(0, 1) : series;
  const several = drawn.length > 1;
  const axis = niceTicks(0, extent([], ...drawn.map((s) => s.values))?.[1] ?? 0, 3, integer);
  const y = scaleLinear([axis.min, axis.max], [PAD.top + PLOT_H, PAD.top]);
  const now = Date.now();
  // "07:40" today, "11-16 07:40" another day: the year would crowd the axis.
  const time = (i: number) => formatTime(times[i], now, { minutes: true }).replace(/^\d{4}-/, '');
  const slot = (i: number) => band(i, n, PLOT_W);
  const hasData = drawn.some((s) => hasValues(s.values));
  const shown = (v: Value) => (typeof v === 'number' && Number.isFinite(v) ? format(v) : 'no data');
  const tooltip = (i: number) => {
    const values = drawn.map((s) => s.values[i]);
    const text = !values.some((v) => typeof v === 'number' && Number.isFinite(v))
      ? 'no data'
      : several ? drawn.map((s, k) => `${s.label} ${shown(values[k])}`).join(', ') : shown(values[0]);
    const more = detail?.(i);
    return `${formatTime(times[i], now)}: ${text}${more ? ` (${more})` : ''}`;
  };
  const tone = drawn.length === 1 ? ` chart-${drawn[0]!.tone}` : '';

  return (
    <figure className={`chart${tone}`} data-testid="metrics-chart" data-series={drawn.map((s) => s.key).join(' ')}>
      <figcaption>
        {title}
        {several ? (
          <span data-testid="metrics-chart-legend">
            {drawn.map((s) => (
              <span key={s.key} className={`chart-${s.tone}`} data-series={s.key}>
                {'\u2003'}<span aria-hidden="true">{s.dashed ? '\u2505' : '\u2501'}</span>{`\u00a0${s.label}`}
              </span>
            ))}
          </span>
        ) : null}
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}${several ? ` (${drawn.map((s) => s.label).join(', ')})` : ''}, ${n} buckets`} className={zoomable ? 'zoomable' : undefined} {...zoom.handlers}>
        {axis.ticks.map((t) => (
          <g key={t} className="chart-grid">
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} />
            <text x={PAD.left - 4} y={y(t)} dy="0.32em" textAnchor="end">{format(t)}</text>
          </g>
        ))}
        {kind === 'bar' ? (
          drawn.map((s) => (
            <g key={s.key} className={`chart-bars chart-${s.tone}`} data-series={s.key} transform={`translate(${PAD.left} ${PAD.top})`}>
              {bars(s.values, PLOT_W, PLOT_H, axis.max).map((b) => <rect key={b.index} x={b.x} y={b.y} width={b.width} height={b.height} />)}
            </g>
          ))
        ) : (
          drawn.map((s) => (
            <g key={s.key} className={`chart-line chart-${s.tone}`} data-series={s.key}>
              <path d={linePath(s.values, (i) => PAD.left + slot(i).center, y)} strokeDasharray={s.dashed ? DASH : undefined} />
              {lonePoints(s.values).map((i) => <circle key={i} cx={PAD.left + slot(i).center} cy={y(s.values[i] as number)} r={2.5} />)}
            </g>
          ))
        )}
        {labelIndices(n, 3).map((i, k, all) => (
          <text key={i} className="chart-x" x={PAD.left + slot(i).center} y={H - 4} textAnchor={k === 0 ? 'start' : k === all.length - 1 ? 'end' : 'middle'}>
            {time(i)}
          </text>
        ))}
        <g className="chart-hover">
          {times.map((_, i) => (
            <rect
              key={i}
              x={PAD.left + slot(i).x}
              y={PAD.top}
              width={slot(i).width}
              height={PLOT_H}
              data-testid="chart-bucket"
              className={onPick ? 'pickable' : undefined}
              onClick={onPick && Number.isFinite(bucketMs) ? () => {
                if (zoom.dragged()) return;
                const start = Date.parse(times[i]!);
                onPick(start, start + bucketMs);
              } : undefined}
            >
              <title>{`${tooltip(i)}${onPick ? ' (click: its traces)' : ''}`}</title>
            </rect>
          ))}
        </g>
        {zoom.band ? <rect className="zoom-band" data-testid="zoom-band" x={zoom.band.x} y={PAD.top} width={zoom.band.width} height={PLOT_H} /> : null}
        {!hasData ? <text className="chart-none" x={PAD.left + PLOT_W / 2} y={PAD.top + PLOT_H / 2} textAnchor="middle">no data</text> : null}
      </svg>
    </figure>
  );
}
