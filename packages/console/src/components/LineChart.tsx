import { band, bars, extent, labelIndices, linePath, lonePoints, niceTicks, scaleLinear, type Value } from '../lib/chart';
import { formatTimestamp } from '../lib/format';

const W = 300;
const H = 112;
const PAD = { left: 42, right: 6, top: 8, bottom: 18 };
const PLOT_W = W - PAD.left - PAD.right;
const PLOT_H = H - PAD.top - PAD.bottom;

/**
 * A small time-series chart in plain SVG: one value per bucket (`times[i]` its start), as bars or as a line that
 * breaks where a value is null. The y axis starts at 0; hovering a bucket shows its time and value.
 */
export function LineChart({ title, values, times, kind = 'line', format, tone = 'requests', integer = false }: {
  title: string;
  values: readonly Value[];
  times: readonly string[];
  kind?: 'line' | 'bar';
  /** A value as the axis and the tooltip show it. */
  format(v: number): string;
  /** Colour of the series (a CSS class). */
  tone?: 'requests' | 'errors' | 'latency';
  /** Whole-number axis ticks (counts). */
  integer?: boolean;
}) {
  const n = values.length;
  const axis = niceTicks(0, extent(values)?.[1] ?? 0, 3, integer);
  const y = scaleLinear([axis.min, axis.max], [PAD.top + PLOT_H, PAD.top]);
  const now = Date.now();
  // "07:40" today, "11-16 07:40" another day: the year would crowd the axis.
  const time = (i: number) => formatTimestamp(times[i], now, { minutes: true }).replace(/^\d{4}-/, '');
  const slot = (i: number) => band(i, n, PLOT_W);
  const hasData = values.some((v) => typeof v === 'number' && Number.isFinite(v));

  return (
    <figure className={`chart chart-${tone}`} data-testid="metrics-chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}, ${n} buckets`}>
        {axis.ticks.map((t) => (
          <g key={t} className="chart-grid">
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} />
            <text x={PAD.left - 4} y={y(t)} dy="0.32em" textAnchor="end">{format(t)}</text>
          </g>
        ))}
        {kind === 'bar' ? (
          <g className="chart-bars" transform={`translate(${PAD.left} ${PAD.top})`}>
            {bars(values, PLOT_W, PLOT_H, axis.max).map((b) => <rect key={b.index} x={b.x} y={b.y} width={b.width} height={b.height} />)}
          </g>
        ) : (
          <g className="chart-line">
            <path d={linePath(values, (i) => PAD.left + slot(i).center, y)} />
            {lonePoints(values).map((i) => <circle key={i} cx={PAD.left + slot(i).center} cy={y(values[i] as number)} r={2.5} />)}
          </g>
        )}
        {labelIndices(n, 3).map((i, k, all) => (
          <text key={i} className="chart-x" x={PAD.left + slot(i).center} y={H - 4} textAnchor={k === 0 ? 'start' : k === all.length - 1 ? 'end' : 'middle'}>
            {time(i)}
          </text>
        ))}
        <g className="chart-hover">
          {values.map((v, i) => (
            <rect key={i} x={PAD.left + slot(i).x} y={PAD.top} width={slot(i).width} height={PLOT_H}>
              <title>{`${formatTimestamp(times[i], now)}: ${typeof v === 'number' && Number.isFinite(v) ? format(v) : 'no data'}`}</title>
            </rect>
          ))}
        </g>
        {!hasData ? <text className="chart-none" x={PAD.left + PLOT_W / 2} y={PAD.top + PLOT_H / 2} textAnchor="middle">no data</text> : null}
      </svg>
    </figure>
  );
}
