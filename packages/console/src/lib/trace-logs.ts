/**
 * A trace's logs placed under the spans that wrote them (logs carry `spanId`), and the rows of a waterfall with
 * some spans' logs shown under them. Pure: unit-tested in packages/console/test/trace-logs.test.ts.
 */
import type { LogEntry } from '../api/types';
import type { WaterfallRow } from './waterfall';

export interface SpanLogs {
  /** Logs per span id, oldest first. A log whose span is not in the trace (or that names none) is under `rootId`. */
  bySpan: ReadonlyMap<string, LogEntry[]>;
  /** How many logs were placed under the root because their span is not in the trace. */
  unplaced: number;
}

const timeOf = (l: LogEntry) => {
  const t = Date.parse(l.timestamp);
  return Number.isFinite(t) ? t : 0;
};

/**
 * Groups a trace's logs by span. A log without a `spanId`, or with one the trace does not hold, belongs to the
 * trace as a whole: it goes under the root span (`rootId`), the request it was written during.
 */
export function groupLogsBySpan(logs: readonly LogEntry[], spanIds: ReadonlySet<string>, rootId: string | undefined): SpanLogs {
  const bySpan = new Map<string, LogEntry[]>();
  let unplaced = 0;
  for (const log of logs) {
    const raw = log['spanId'];
    const own = typeof raw === 'string' ? raw.toLowerCase() : undefined;
    let at = own !== undefined && spanIds.has(own) ? own : undefined;
    if (at === undefined) {
      if (rootId === undefined) continue;
      at = rootId;
      unplaced++;
    }
    let list = bySpan.get(at);
    if (!list) bySpan.set(at, (list = []));
    list.push(log);
  }
  for (const list of bySpan.values()) list.sort((a, b) => timeOf(a) - timeOf(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { bySpan, unplaced };
}

/** A row of the waterfall: a span, or one log shown under its span. */
export type WaterfallItem =
  | { kind: 'span'; row: WaterfallRow; key: string }
  | { kind: 'log'; log: LogEntry; row: WaterfallRow; key: string };

/** The span rows with, after each span whose logs are open, one row per log of it. */
export function withLogRows(rows: readonly WaterfallRow[], bySpan: ReadonlyMap<string, LogEntry[]>, open: ReadonlySet<string>): WaterfallItem[] {
  const out: WaterfallItem[] = [];
  for (const row of rows) {
    out.push({ kind: 'span', row, key: row.spanId });
    if (!open.has(row.spanId)) continue;
    for (const log of bySpan.get(row.spanId) ?? []) out.push({ kind: 'log', log, row, key: `log:${log.id}` });
  }
  return out;
}

/** The worst level among logs ("error" over "warn" over the rest), for a span's log badge. */
export function worstLevel(logs: readonly LogEntry[]): 'error' | 'warn' | 'info' {
  let worst: 'error' | 'warn' | 'info' = 'info';
  for (const l of logs) {
    if (l.level === 'error' || l.level === 'fatal') return 'error';
    if (l.level === 'warn') worst = 'warn';
  }
  return worst;
}
