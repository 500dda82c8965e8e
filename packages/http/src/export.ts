import { AppError } from '@lantern/domain';
import type { Response } from 'express';
import { clientGone } from './stream.js';

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
 * Streams lines (each already ended) as an attachment, honouring back-pressure, so memory holds one chunk whatever
 * the size of the export. As streamJsonArray: the first line is read before the status is sent (an error before
 * any data gets the contract's error body), a client gone away stops the read. A read past its budget midway ends
 * an NDJSON export with one last line, its error body (`{"error":{"code":"read_timeout",...}}`); a CSV has no place
 * for it, so the connection is cut there (the client sees an incomplete download, never a silently short file).
 */
export async function streamExport(res: Response, format: ExportFormat, filename: string, lines: AsyncIterable<string>): Promise<void> {
  const it = lines[Symbol.asyncIterator]();
  const gone = () => clientGone(res);
  const stop = async () => {
    await it.return?.();
  };
  if (gone()) return stop();
  let next: IteratorResult<string>;
  try {
    next = await it.next();
  } catch (err) {
    if (gone()) return;
    throw err;
  }
  if (gone()) return stop();
  res.status(200);
  res.setHeader('Content-Type', CONTENT_TYPES[format]);
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  let wake: (() => void) | undefined;
  const resume = () => wake?.();
  res.on('drain', resume);
  res.on('close', resume);
  let chunk = '';
  try {
    while (!next.done) {
      chunk += next.value;
      if (chunk.length >= 16_384) {
        if (gone()) break;
        if (!res.write(chunk) && !gone()) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        chunk = '';
      }
      if (gone()) break;
      next = await it.next();
    }
    if (gone()) {
      await stop();
      return;
    }
    res.end(chunk);
  } catch (err) {
    if (gone()) return;
    if (format === 'ndjson' && err instanceof AppError && err.code === 'read_timeout') {
      res.end(`${chunk}${JSON.stringify(err.toBody())}\n`);
      return;
    }
    res.destroy(err instanceof Error ? err : new Error(String(err)));
    throw err;
  } finally {
    res.off('drain', resume);
    res.off('close', resume);
  }
}
