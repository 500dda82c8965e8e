import type { Response } from 'express';
import { streamTexts } from './stream.js';

/** The formats a read exports in, besides its JSON array: one JSON document a line, or comma-separated values. */
export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled. A text a
 * spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading
 * `'`, so opening an export never runs what a client sent (OWASP, CSV injection). Null and undefined are empty.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value) ?? '';
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV line of fields, ended by CRLF (RFC 4180). */
export const csvLine = (fields: readonly unknown[]): string => `${fields.map(csvField).join(',')}\r\n`;

/**
 * Streams lines (each already ended) as an attachment (streamTexts: back-pressure, memory of a chunk, the first line
 * read before the status, a client gone stops the read). A read past its budget midway ends an NDJSON export with
 * one last line, its error body (`{"error":{"code":"read_timeout",...}}`); a CSV has no place for it, so the
 * connection is cut there (the client sees an incomplete download, never a silently short file).
 */
export function streamExport(res: Response, format: ExportFormat, filename: string, lines: AsyncIterable<string>): Promise<void> {
  return streamTexts(res, lines, {
    contentType: CONTENT_TYPES[format],
    headers: { 'Content-Disposition': `attachment; filename="${filename}"` },
    ...(format === 'ndjson' ? { timeoutTail: (body: object) => `${JSON.stringify(body)}\n` } : {}),
  });
}
