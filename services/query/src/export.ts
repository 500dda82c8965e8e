import { errors, operationOf, serviceOf } from '@lantern/domain';
import type { LogEntry, Span, TraceRecord } from '@lantern/domain';
import { csvLine, EXPORT_FORMATS, queryText, type ExportFormat } from '@lantern/http';
import type { Cursor } from '@lantern/store';
import type { Request } from 'express';

/** Records an export asks the store for per read: each read is one page, with the page read's budget. */
export const EXPORT_PAGE = 1000;

/** `format`: `json` (the default: the JSON array), `ndjson` or `csv` (an export: every record the filters match). */
export function exportFormat(req: Request): ExportFormat | undefined {
  const format = queryText(req, 'format', 8);
  if (format === undefined || format === 'json') return undefined;
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw errors.validation('The query parameter "format" must be json, ndjson or csv.', [{ parameter: 'format' }]);
  }
  return format as ExportFormat;
}

/**
 * Every record a read matches, page after page by keyset (`cursor`), each page one read of the store with its own
 * budget, so an export has no time cap and holds one page in memory however many records it streams. A page is read
 * whole before it is handed on: the budget times the store, not a client slow to take the bytes. `limit`, when given,
 * caps the records in all.
 */
export async function* everyPage<T>(read: (cursor: Cursor | undefined, limit: number) => AsyncIterable<T>, position: (item: T) => Cursor,
  start: Cursor | undefined, limit?: number): AsyncGenerator<T> {
  let cursor = start;
  let left = limit ?? Infinity;
  while (left > 0) {
    const want = Math.min(EXPORT_PAGE, left);
    const page: T[] = [];
    for await (const item of read(cursor, want)) page.push(item);
    yield* page;
    left -= page.length;
    if (page.length < want) return;
    cursor = position(page[page.length - 1]!);
  }
}

/** A CSV's header, with its first row: read before the header, so an error of the first read still gets its error body. */
async function* withHeader(header: string, rows: AsyncIterable<string>): AsyncGenerator<string> {
  const it = rows[Symbol.asyncIterator]();
  const first = await it.next();
  yield first.done ? header : header + first.value;
  if (first.done) return;
  for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
}

/** The root span of a record, as the list shows it: its span without parent, else its first controller span, else its first. */
function rootOf(record: TraceRecord): Span | undefined {
  const spans = record.telemetry ?? [];
  return spans.find((s) => !s.parentSpanId) ?? spans.find((s) => typeof s.requestMethod === 'string' && s.requestMethod.startsWith('controller:')) ?? spans[0];
}

export const TRACE_CSV_COLUMNS = ['id', 'traceId', 'projectId', 'applicationId', 'timestamp', 'spans', 'service', 'operation',
  'requestMethod', 'requestURL', 'responseStatus', 'durationMs'] as const;
export const LOG_CSV_COLUMNS = ['id', 'timestamp', 'level', 'projectId', 'applicationId', 'traceId', 'spanId', 'type', 'message', 'fields'] as const;

/** Trace records as lines: each record whole (NDJSON), or one row of its root span's summary (CSV; its spans are NDJSON's). */
export function traceLines(format: ExportFormat, records: AsyncIterable<TraceRecord>): AsyncIterable<string> {
  if (format === 'csv') return withHeader(csvLine(TRACE_CSV_COLUMNS), traceRows(records));
  return ndjson(records);
}

async function* traceRows(records: AsyncIterable<TraceRecord>): AsyncGenerator<string> {
  for await (const r of records) {
    const root = rootOf(r);
    yield csvLine([r.id, r.traceId, r.projectId, r.applicationId, r.timestamp, r.telemetry?.length ?? 0, root && serviceOf(root), root && operationOf(root),
      root?.requestMethod, root?.requestURL, root?.responseStatus, root?.durationMs]);
  }
}

/** Logs as lines: each log whole (NDJSON), or its main fields and the rest as one JSON field (CSV). */
export function logLines(format: ExportFormat, logs: AsyncIterable<LogEntry>): AsyncIterable<string> {
  if (format === 'csv') return withHeader(csvLine(LOG_CSV_COLUMNS), logRows(logs));
  return ndjson(logs);
}

async function* logRows(logs: AsyncIterable<LogEntry>): AsyncGenerator<string> {
  for await (const l of logs) {
    const { id, timestamp, level, projectId, applicationId, traceId, spanId, type, message, ...rest } = l as LogEntry & { spanId?: unknown };
    yield csvLine([id, timestamp, level, projectId, applicationId, traceId, spanId, type, message, Object.keys(rest).length ? rest : undefined]);
  }
}

async function* ndjson(items: AsyncIterable<unknown>): AsyncGenerator<string> {
  for await (const item of items) yield `${JSON.stringify(item)}\n`;
}

/** `lantern-traces-project-4-2026-11-27T10-43-00Z.csv`: what the read is, and when it was made. */
export function exportName(what: string, format: ExportFormat, now: number): string {
  return `lantern-${what}-${new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/:/g, '-')}.${format}`;
}
