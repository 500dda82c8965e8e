/**
 * Scales of the traces page's latency chart that lib/chart.ts (linear axes) does not have: a log scale of
 * durations with its decade ticks, and round time ticks for an axis of instants. Pure: no DOM.
 */
import { scaleLinear } from './chart';

/** Log10 scale of positive values onto [r0, r1]; values <= `floor` (0.1 ms: below any real duration) sit at it. */
export function scaleLog(d0: number, d1: number, r0: number, r1: number, floor = 0.1): (v: number) => number {
  const lin = scaleLinear([Math.log10(Math.max(d0, floor)), Math.log10(Math.max(d1, floor))], [r0, r1]);
  return (v) => lin(Math.log10(Math.max(v, floor)));
}

/** Powers of ten from the one at or below `min` to the one at or above `max`; at least two. */
export function logTicks(min: number, max: number, floor = 0.1): number[] {
  const lo = Math.floor(Math.log10(Math.max(min, floor)));
  const hi = Math.ceil(Math.log10(Math.max(max, min, floor)));
  const out: number[] = [];
  for (let e = lo; e <= Math.max(hi, lo + 1); e += 1) out.push(Number((10 ** e).toPrecision(12)));
  return out;
}

const TIME_STEPS = [1e3, 5e3, 15e3, 3e4, 6e4, 3e5, 9e5, 18e5, 36e5, 108e5, 216e5, 864e5, 6048e5, 2592e6];

/** Round instants (epoch ms, multiples of 1 s, 5 s, ... 1 d, 7 d, 30 d) within [from, to], about `count` of them. */
export function timeTicks(from: number, to: number, count = 6): number[] {
  if (!(to > from)) return [from];
  const want = (to - from) / Math.max(1, count);
  const step = TIME_STEPS.find((s) => s >= want) ?? TIME_STEPS[TIME_STEPS.length - 1]! * Math.ceil(want / TIME_STEPS[TIME_STEPS.length - 1]!);
  const out: number[] = [];
  for (let v = Math.ceil(from / step) * step; v <= to; v += step) out.push(v);
  return out;
}

/** Fewer pixels than this between press and release is a click, not a drag. */
export const MIN_DRAG_PX = 4;

/**
 * The window a drag across a time axis selects: the two x positions (either order), clamped to the plot's
 * [left, right], turned into instants by `at`; undefined when shorter than MIN_DRAG_PX (a click) or than 1 ms.
 */
export function dragWindow(x0: number, x1: number, left: number, right: number, at: (x: number) => number): { from: number; to: number } | undefined {
  const a = Math.min(Math.max(Math.min(x0, x1), left), right);
  const b = Math.min(Math.max(Math.max(x0, x1), left), right);
  if (b - a < MIN_DRAG_PX) return undefined;
  const from = Math.floor(at(a));
  const to = Math.ceil(at(b));
  return to > from ? { from, to } : undefined;
}
