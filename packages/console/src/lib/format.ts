/** Formatters shared by every page. Pure functions: unit-tested in packages/console/test. */

/** 0.4 → "0.4 ms", 12 → "12 ms", 1530 → "1.53 s", 125000 → "2m 5s". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 1) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return s ? `${m}m ${s}s` : `${m}m`;
}

/** Type of a span from its `requestMethod` (`<type>:<name>`): controller, service, external, or another word. */
export function spanType(requestMethod: string): string {
  const i = requestMethod.indexOf(':');
  return i < 0 ? 'other' : requestMethod.slice(0, i);
}

/** The name part of `requestMethod`. */
export function spanName(requestMethod: string): string {
  const i = requestMethod.indexOf(':');
  return i < 0 ? requestMethod : requestMethod.slice(i + 1);
}

/** 200 → "2xx"; undefined → "". */
export function statusClass(status: number | undefined): string {
  return status === undefined ? '' : `${Math.floor(status / 100)}xx`;
}
