import { navigateView, parseHash, type ViewParams } from '../router';
import { clampWindow, parseRange, resolveRange, type RangeName, type TimeRange } from './time-range';

// The window, view and auto-refresh of the pages that read metrics rollups (Metrics, Service map).

/** GET /metrics (and /metrics/operations, /metrics/services) take a window of at most 90 days: "all time" is not offered. */
export const METRICS_MAX_WINDOW_MS = 90 * 86_400_000;
export const METRICS_RANGES: readonly RangeName[] = ['15m', '1h', '6h', '24h', '7d'];

/** The page's window from the URL: the last hour by default, and in place of "all time". */
export function readMetricsRange(params: URLSearchParams): TimeRange {
  const range = parseRange(params, '1h');
  return range.name === 'all' ? { name: '1h' } : range;
}

/** The bounds to ask for: the range resolved at `now`, within the 90 days. */
export function metricsBounds(range: TimeRange, now: number): { from: string; to: string } {
  return clampWindow(resolveRange(range, now), METRICS_MAX_WINDOW_MS, now);
}

/** A change of a page's view (window, order, auto-refresh) over the URL as it is now: a history entry. */
export function viewWriter(path: string): (patch: ViewParams) => void {
  return (patch) => navigateView(path, { ...Object.fromEntries(parseHash(location.hash).params), ...patch });
}

// ---- auto-refresh ---------------------------------------------------------------------------------------------

export interface RefreshChoice { value: string; label: string; ms: number }

/** The auto-refresh choices of the Metrics and Service map pages (`refresh=` in the URL); 30 s when the URL names none. */
export const REFRESH_CHOICES: readonly RefreshChoice[] = [
  { value: 'off', label: 'Off', ms: 0 },
  { value: '30s', label: '30 s', ms: 30_000 },
  { value: '1m', label: '1 min', ms: 60_000 },
  { value: '5m', label: '5 min', ms: 300_000 },
];
export const DEFAULT_REFRESH = REFRESH_CHOICES[1]!;

export function parseRefresh(raw: string | null | undefined): RefreshChoice {
  return REFRESH_CHOICES.find((c) => c.value === raw) ?? DEFAULT_REFRESH;
}

/** The `refresh` param of a choice; undefined (dropped) for the default. */
export function refreshParam(choice: RefreshChoice): string | undefined {
  return choice.value === DEFAULT_REFRESH.value ? undefined : choice.value;
}
