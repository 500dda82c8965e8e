/**
 * The geometry of the console's small SVG charts, with no chart library: nice axis ticks, a linear scale, a line
 * path that breaks at missing values, bar rectangles. Pure functions: unit-tested in
 * packages/console/test/chart.test.ts.
 */

/** A value of a series; null (or NaN) is a gap: no data in that bucket. */
export type Value = number | null | undefined;

const isValue = (v: Value): v is number => typeof v === 'number' && Number.isFinite(v);

/** Coordinates rounded to 2 decimals keep path strings short. */
const r2 = (n: number) => Math.round(n * 100) / 100;

/** The smallest 1, 2, 2.5 or 5 × 10^k at least `rough`. */
export function niceStep(rough: number): number {
  if (!(rough > 0) || !Number.isFinite(rough)) return 1;
  const power = 10 ** Math.floor(Math.log10(rough));
  const f = rough / power;
  const nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
  return nice * power;
}

export interface Axis { min: number; max: number; ticks: number[] }

/**
 * About `count` evenly spaced round ticks covering [min, max]. A series of counts or durations starts at 0
 * (pass min 0); an empty or flat series still gets a usable axis. `integer`: whole-number steps only (counts).
 */
export function niceTicks(min: number, max: number, count = 4, integer = false): Axis {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return niceTicks(0, 1, count, integer);
  if (min > max) [min, max] = [max, min];
  if (min === max) {
    if (min === 0) max = 1;
    else if (min > 0) min = 0;
    else max = 0;
  }
  let step = niceStep((max - min) / Math.max(1, count));
  if (integer) step = step < 1 ? 1 : Number.isInteger(step) ? step : niceStep(step * 1.01);
  const lo = Math.floor(min / step) * step;
  const hi = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  // Multiply rather than add, so 0.1 + 0.2 noise never reaches the labels.
  for (let i = 0; lo + i * step <= hi + step / 1e6; i++) ticks.push(Number((lo + i * step).toPrecision(12)));
  return { min: ticks[0]!, max: ticks[ticks.length - 1]!, ticks };
}

/**
 * Lowest and highest value of one or more series (a chart of several lines shares one axis), ignoring gaps;
 * undefined when they have no value at all.
 */
export function extent(values: readonly Value[], ...more: ReadonlyArray<readonly Value[]>): [number, number] | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  for (const series of [values, ...more]) {
    for (const v of series) {
      if (!isValue(v)) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return lo <= hi ? [lo, hi] : undefined;
}

/** Whether a series has at least one value (not only gaps). */
export function hasValues(values: readonly Value[]): boolean {
  return values.some(isValue);
}

/**
 * `parts[i] / wholes[i]` per bucket, exact (an error rate from error and request counts); a gap where the whole is
 * 0 or missing, since a rate of nothing is unknown, not 0.
 */
export function ratios(parts: readonly Value[], wholes: readonly Value[]): Value[] {
  return wholes.map((whole, i) => {
    const part = parts[i];
    return isValue(whole) && whole > 0 && isValue(part) ? part / whole : null;
  });
}

/** Maps [d0, d1] onto [r0, r1] linearly; a flat domain maps everything to r0. */
export function scaleLinear([d0, d1]: readonly [number, number], [r0, r1]: readonly [number, number]): (v: number) => number {
  const span = d1 - d0;
  return (v) => (span === 0 ? r0 : r0 + ((v - d0) / span) * (r1 - r0));
}

/** Slot `i` of `n` equal slots across `width`: its left edge, width and centre. */
export function band(i: number, n: number, width: number): { x: number; width: number; center: number } {
  const w = n > 0 ? width / n : width;
  return { x: i * w, width: w, center: i * w + w / 2 };
}

/**
 * An SVG path through the points of a series (x of index, y of value). A gap ends the line; a value alone
 * between gaps becomes a zero-length segment, drawn as a dot by `stroke-linecap: round`.
 */
export function linePath(values: readonly Value[], x: (i: number) => number, y: (v: number) => number): string {
  const parts: string[] = [];
  let open = false;
  values.forEach((v, i) => {
    if (!isValue(v)) {
      open = false;
      return;
    }
    const next = values[i + 1];
    const alone = !open && !isValue(next);
    parts.push(`${open ? 'L' : 'M'}${r2(x(i))} ${r2(y(v))}${alone ? 'h0' : ''}`);
    open = true;
  });
  return parts.join('');
}

/** Indices of values with a gap (or the series' end) on both sides: a line cannot show them, a dot does. */
export function lonePoints(values: readonly Value[]): number[] {
  const out: number[] = [];
  values.forEach((v, i) => {
    if (isValue(v) && !isValue(values[i - 1]) && !isValue(values[i + 1])) out.push(i);
  });
  return out;
}

export interface Bar { index: number; value: number; x: number; y: number; width: number; height: number }

/**
 * Bars of a series in a plot `width` × `height` (y down), from 0 up to each value on the axis `[0, max]`; gaps and
 * zeros have no bar. `gap` is the fraction of a slot left empty between bars.
 */
export function bars(values: readonly Value[], width: number, height: number, max: number, gap = 0.2): Bar[] {
  const y = scaleLinear([0, max], [height, 0]);
  const out: Bar[] = [];
  values.forEach((v, index) => {
    if (!isValue(v) || v <= 0) return;
    const slot = band(index, values.length, width);
    const top = Math.max(0, y(v));
    const inset = (slot.width * gap) / 2;
    out.push({ index, value: v, x: r2(slot.x + inset), y: r2(top), width: r2(slot.width - 2 * inset), height: r2(height - top) });
  });
  return out;
}

/** About `count` evenly spread indices of `n` slots, first and last included, for the time axis labels. */
export function labelIndices(n: number, count = 4): number[] {
  if (n <= 0) return [];
  if (n <= count) return Array.from({ length: n }, (_, i) => i);
  const out = new Set<number>();
  for (let k = 0; k < count; k++) out.add(Math.round((k * (n - 1)) / (count - 1)));
  return [...out];
}
