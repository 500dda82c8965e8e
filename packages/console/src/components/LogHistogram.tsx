// The Logs page's volume: every log of the window per bucket, stacked by level (error and fatal red, warn amber,
// info blue, the rest grey), from GET /logs/volume (the server's counts, not the rows loaded). A drag across it zooms
// the window.
//
// data-testid: log-histogram (the <figure>; data-total, data-buckets)
import type { LogVolume } from '../api/types';
import { formatBucket, formatCount } from '../lib/format';
import { useTimePrefs } from '../time-prefs';
import { useDragZoom } from './drag-zoom';

const W = 800;
const H = 90;
const PAD = { left: 40, right: 8, top: 6, bottom: 16 };
/** Stacked bottom to top: the quiet levels first, the worst on top where the eye lands. */
const STACK = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

export function LogHistogram({ volume, narrowed, onZoom }: { volume: LogVolume; narrowed: boolean; onZoom(from: number, to: number): void }) {
  const { time } = useTimePrefs();
  const from = Date.parse(volume.from);
  const to = Date.parse(volume.to);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (t: number) => PAD.left + ((t - from) / (to - from)) * plotW;
  const zoom = useDragZoom(W, PAD.left, W - PAD.right, (px) => from + ((px - PAD.left) / plotW) * (to - from), (a, b) => {
    // Whole buckets, as the counts are.
    onZoom(from + Math.floor((a - from) / volume.bucketMs) * volume.bucketMs, from + Math.ceil((b - from) / volume.bucketMs) * volume.bucketMs);
  });
  const max = Math.max(1, ...volume.buckets.map((b) => b.total));
  const barW = Math.max(1, plotW / Math.max(1, volume.buckets.length) - 1);
  return (
    <figure className="log-histogram" data-testid="log-histogram" data-total={volume.total} data-buckets={volume.buckets.length}>
      <figcaption className="muted">
        {formatCount(volume.total)} log{volume.total === 1 ? '' : 's'} in the window, per {formatBucket(volume.bucketMs)}
        {narrowed ? ' (the text, attribute and trace filters narrow the list, not these counts)' : ''}; drag to zoom
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Logs per ${formatBucket(volume.bucketMs)}: ${formatCount(volume.total)} in all`} className="zoomable" {...zoom.handlers}>
        <text className="axis" x={PAD.left - 4} y={PAD.top + 8} textAnchor="end">{formatCount(max, true)}</text>
        <line className="baseline" x1={PAD.left} x2={W - PAD.right} y1={PAD.top + plotH} y2={PAD.top + plotH} />
        {volume.buckets.map((b, i) => {
          let y = PAD.top + plotH;
          return (
            <g key={i}>
              <title>{`${time(b.timestamp)}: ${b.total} log${b.total === 1 ? '' : 's'}${Object.keys(b.levels).length ? ` (${STACK.filter((l) => b.levels[l]).map((l) => `${b.levels[l]} ${l}`).join(', ')})` : ''}`}</title>
              {STACK.map((level) => {
                const n = b.levels[level];
                if (!n) return null;
                const h = (n / max) * plotH;
                y -= h;
                return <rect key={level} className={`hist-${level}`} x={x(Date.parse(b.timestamp))} y={y} width={barW} height={Math.max(h, 1)} />;
              })}
            </g>
          );
        })}
        <text className="axis" x={PAD.left} y={H - 3}>{time(volume.from)}</text>
        <text className="axis" x={W - PAD.right} y={H - 3} textAnchor="end">{time(volume.to)}</text>
        {zoom.band ? <rect className="zoom-band" x={zoom.band.x} y={PAD.top} width={zoom.band.width} height={plotH} /> : null}
      </svg>
    </figure>
  );
}
