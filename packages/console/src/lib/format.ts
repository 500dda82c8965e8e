/** Formatters shared by every page. Pure functions: unit-tested in packages/console/test/format.test.ts. */

const DASH = '–';

function isNumber(n: number | null | undefined): n is number {
  return typeof n === 'number' && Number.isFinite(n);
}

/** Fixed digits without a trailing ".0" / ".00": 1.50 → "1.5", 10.0 → "10". */
function trimmed(n: number, digits: number): string {
  const s = n.toFixed(digits);
  if (!s.includes('.')) return s;
  let end = s.length;
  while (s[end - 1] === '0') end--;
  if (s[end - 1] === '.') end--;
  return s.slice(0, end);
}

/** 0.4 → "0.4 ms", 12 → "12 ms", 1530 → "1.53 s", 125000 → "2m 5s". Rounding never shows "1000 ms" or "60 s". */
export function formatDuration(ms: number | null | undefined): string {
  if (!isNumber(ms)) return DASH;
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms === 0) return '0 ms';
  if (ms < 0.95) return `${ms.toFixed(1)} ms`;
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  const s2 = Math.round(ms / 10) / 100; // seconds, 2 decimals
  if (s2 < 10) return `${s2.toFixed(2)} s`;
  const s1 = Math.round(ms / 100) / 10;
  if (s1 < 60) return `${s1.toFixed(1)} s`;
  const total = Math.round(ms / 1000);
  const m = Math.floor(total / 60);
  const s = total % 60;
  return s ? `${m}m ${s}s` : `${m}m`;
}

/** "1 min", "24 min", "3 h", "2 h 48 min": the width of a metrics bucket (whole minutes). */
export function formatBucket(ms: number | null | undefined): string {
  if (!isNumber(ms)) return DASH;
  const minutes = Math.max(1, Math.round(ms / 60_000));
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (!h) return `${m} min`;
  return m ? `${h} h ${m} min` : `${h} h`;
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

export interface TimestampOptions {
  /** IANA zone; the browser's own zone when absent (tests pass 'UTC'). */
  timeZone?: string;
  /** Show milliseconds (log lines); default false. */
  ms?: boolean;
  /** Stop at minutes, "10:43" (chart axes); default false. */
  minutes?: boolean;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** Calendar parts of an instant in a zone (the browser's when undefined); one cached Intl formatter per zone, hours 00-23. */
export function partsIn(ms: number, timeZone: string | undefined): Record<string, string> {
  const key = timeZone ?? '';
  let f = zoneFormats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    zoneFormats.set(key, f);
  }
  const out: Record<string, string> = {};
  for (const p of f.formatToParts(ms)) out[p.type] = p.value;
  return out;
}

function toMs(t: string | number | Date | null | undefined): number {
  if (t === null || t === undefined) return NaN;
  if (typeof t === 'number') return t;
  if (t instanceof Date) return t.getTime();
  return Date.parse(t);
}

/**
 * "10:43:34" today (in the zone), "2026-11-21 10:43:34" another day; with `ms`, "10:43:34.123"; with `minutes`,
 * "10:43".
 * Null or an unparsable timestamp → "–".
 */
export function formatTimestamp(iso: string | null | undefined, now: number | Date = Date.now(), options: TimestampOptions = {}): string {
  const t = toMs(iso);
  if (!Number.isFinite(t)) return DASH;
  const p = partsIn(t, options.timeZone);
  const millis = options.ms ? `.${String(((t % 1000) + 1000) % 1000).padStart(3, '0')}` : '';
  const time = options.minutes ? `${p.hour}:${p.minute}` : `${p.hour}:${p.minute}:${p.second}${millis}`;
  const day = `${p.year}-${p.month}-${p.day}`;
  const n = toMs(now);
  if (Number.isFinite(n)) {
    const q = partsIn(n, options.timeZone);
    if (day === `${q.year}-${q.month}-${q.day}`) return time;
  }
  return `${day} ${time}`;
}

/** "just now", "12 s ago", "5 min ago", "3 h ago", "2 d ago"; a time ahead of `now` reads "in 12 s". */
export function formatRelative(iso: string | null | undefined, now: number | Date = Date.now()): string {
  const diff = toMs(now) - toMs(iso);
  if (!Number.isFinite(diff)) return DASH;
  const abs = Math.abs(diff);
  let text: string;
  if (abs < 1000) return 'just now';
  if (abs < 60_000) text = `${Math.floor(abs / 1000)} s`;
  else if (abs < 3_600_000) text = `${Math.floor(abs / 60_000)} min`;
  else if (abs < 86_400_000) text = `${Math.floor(abs / 3_600_000)} h`;
  else text = `${Math.floor(abs / 86_400_000)} d`;
  return diff > 0 ? `${text} ago` : `in ${text}`;
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** Binary units: 512 → "512 B", 1536 → "1.5 KB", 10485760 → "10 MB"; one decimal below 100 of a unit. */
export function formatBytes(bytes: number | null | undefined): string {
  if (!isNumber(bytes) || bytes < 0) return DASH;
  let v = bytes;
  let u = 0;
  while (u < BYTE_UNITS.length - 1 && Math.round(v * 10) / 10 >= 1024) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${Math.round(v)} B`;
  return `${v < 99.95 ? trimmed(v, 1) : Math.round(v)} ${BYTE_UNITS[u]}`;
}

/**
 * A rate 0..1 as a percentage: 0 → "0%", 0.01 → "1%", 0.1234 → "12.3%"; never rounds a non-zero rate to "0%"
 * (→ "<0.1%") or a rate below 1 to "100%" (→ ">99.9%").
 */
export function formatPercent(rate: number | null | undefined): string {
  if (!isNumber(rate)) return DASH;
  const pct = rate * 100;
  const rounded = Math.round(pct * 10) / 10;
  if (pct > 0 && rounded === 0) return '<0.1%';
  if (pct < 100 && rounded >= 100) return '>99.9%';
  return `${trimmed(rounded, 1)}%`;
}

const COMPACT = [[1e3, 'k'], [1e6, 'M'], [1e9, 'B']] as const;

/** 1234 → "1,234"; compact: 999 → "999", 1234 → "1.2k", 12345 → "12k", 999950 → "1M". */
export function formatCount(n: number | null | undefined, compact = false): string {
  if (!isNumber(n)) return DASH;
  if (n < 0) return `-${formatCount(-n, compact)}`;
  if (compact && Math.round(n) >= 1000) {
    let i = COMPACT.length - 1;
    while (i > 0 && n < COMPACT[i]![0]) i--;
    let v = n / COMPACT[i]![0];
    let shown = v < 9.95 ? Math.round(v * 10) / 10 : Math.round(v);
    // 999,950 would read "1000k": the next unit up says it better ("1M").
    if (shown >= 1000 && i < COMPACT.length - 1) {
      i++;
      v = n / COMPACT[i]![0];
      shown = Math.round(v * 10) / 10;
    }
    return `${trimmed(shown, 1)}${COMPACT[i]![1]}`;
  }
  return groupThousands(Math.round(n).toString());
}

/** "1234567" → "1,234,567" (and "-1234" → "-1,234"), by slicing rather than a lookahead pattern. */
function groupThousands(digits: string): string {
  const sign = digits.startsWith('-') ? '-' : '';
  const d = sign ? digits.slice(1) : digits;
  let out = d.slice(0, d.length % 3 || 3);
  for (let i = out.length; i < d.length; i += 3) out += `,${d.slice(i, i + 3)}`;
  return sign + out;
}
