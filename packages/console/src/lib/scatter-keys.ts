/**
 * The traces scatter as one tab stop: arrow keys move a cursor between its dots. Pure: unit-tested in
 * packages/console/test/scatter-keys.test.ts.
 */
export interface ScatterPoint { startMs: number; durationMs: number }

export const SCATTER_KEYS = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'] as const;

/** Indices of `points` in order of `key`, ties by index: a stable walk. */
function orderBy(points: readonly ScatterPoint[], key: (p: ScatterPoint) => number): number[] {
  return points.map((_, i) => i).sort((a, b) => key(points[a]!) - key(points[b]!) || a - b);
}

/**
 * The dot the cursor moves to on `key`: Left and Right step to the previous or next trace in time, Up and Down to
 * the next slower or faster one, Home and End to the first and last in time. With no cursor yet, any of them lands
 * on the newest trace. At an end, the cursor stays. Undefined when there are no dots or the key is not one of these.
 */
export function scatterStep(points: readonly ScatterPoint[], current: number | undefined, key: string): number | undefined {
  if (!points.length || !(SCATTER_KEYS as readonly string[]).includes(key)) return undefined;
  const byTime = orderBy(points, (p) => p.startMs);
  if (current === undefined || current < 0 || current >= points.length) return byTime[byTime.length - 1];
  if (key === 'Home') return byTime[0];
  if (key === 'End') return byTime[byTime.length - 1];
  const order = key === 'ArrowLeft' || key === 'ArrowRight' ? byTime : orderBy(points, (p) => p.durationMs);
  const at = order.indexOf(current);
  const forward = key === 'ArrowRight' || key === 'ArrowUp';
  return order[Math.max(0, Math.min(order.length - 1, at + (forward ? 1 : -1)))];
}
