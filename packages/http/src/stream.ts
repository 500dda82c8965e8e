import { AppError, jsonTexts } from '@lantern/domain';
import type { Response } from 'express';

/** Whether the response can take no more: finished, or its client has gone away (the connection closed). */
export const clientGone = (res: Response): boolean => res.destroyed || res.writableEnded || res.closed;

/** How a body of texts is framed (streamTexts). */
export interface TextFraming {
  contentType: string;
  headers?: Record<string, string>;
  /** Written before the first text, between two texts, and after the last; none by default. */
  open?: string;
  separator?: string;
  close?: string;
  /**
   * How a read past its budget midway ends the body, given the error body and whether any text was written; without
   * it, the connection is cut there.
   */
  timeoutTail?: (errorBody: object, wroteAny: boolean) => string;
}

/**
 * Streams texts as one response body, honouring back-pressure, so memory holds a chunk whatever the size of the
 * set. The first text is read before the status is sent, so an error before any data still gets the contract's error
 * body (a read past its budget: 503 read_timeout). A read past its budget midway ends the body with `timeoutTail`
 * (the body stays valid and says why it ends there); any other error midway, or a timeout without a tail, ends the
 * connection abruptly (the client sees an incomplete body, never a silently short one). A client gone away stops
 * the read: no text is asked for once it has gone, and the iterator is returned, so the store stops reading (to stop
 * one in the middle of an item, the caller passes the store a signal too, ReadBudget.signal). What a read gone that
 * way throws goes to nobody: it resolves quietly. Empty texts are skipped.
 */
export async function streamTexts(res: Response, texts: AsyncIterable<string>, framing: TextFraming): Promise<void> {
  const it = texts[Symbol.asyncIterator]();
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
  res.setHeader('Content-Type', framing.contentType);
  for (const [k, v] of Object.entries(framing.headers ?? {})) res.setHeader(k, v);
  // One 'drain' and one 'close' listener for the whole response, not one pair per chunk: with compression, 'drain'
  // listeners go to the compressor's stream and could not be removed from `res` one by one.
  let wake: (() => void) | undefined;
  const resume = () => wake?.();
  res.on('drain', resume);
  res.on('close', resume);
  let chunk = framing.open ?? '';
  let first = true;
  try {
    while (!next.done) {
      if (next.value.length > 0) {
        chunk += (first ? '' : framing.separator ?? '') + next.value;
        first = false;
      }
      if (chunk.length >= 16_384) {
        // A client gone while the next item was read: 'close' has fired already, so waiting would never end.
        if (gone()) break;
        if (!res.write(chunk) && !gone()) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        chunk = '';
      }
      // Before every item, not only when a chunk is due: a read that finds little (a filter matching nothing)
      // would otherwise go on long after its client left.
      if (gone()) break;
      next = await it.next();
    }
    if (gone()) {
      await stop();
      return;
    }
    res.end(`${chunk}${framing.close ?? ''}`);
  } catch (err) {
    if (gone()) return;
    if (framing.timeoutTail && err instanceof AppError && err.code === 'read_timeout') {
      res.end(`${chunk}${framing.timeoutTail(err.toBody(), !first)}`);
      return;
    }
    res.destroy(err instanceof Error ? err : new Error(String(err)));
    throw err;
  } finally {
    res.off('drain', resume);
    res.off('close', resume);
  }
}

/**
 * Streams an async iterable as a JSON array (streamTexts). A read past its budget midway ends the array with one
 * last element, its error body `{"error":{"code":"read_timeout",...}}` (docs/api.md, "Read budgets": the JSON stays
 * valid and says why the array ends there).
 */
export function streamJsonArray<T>(res: Response, items: AsyncIterable<T>, headers: Record<string, string> = {}): Promise<void> {
  // Records serialised where they were read when the source offers it (the SQLite read workers), else here.
  return streamTexts(res, jsonTexts(items), {
    contentType: 'application/json; charset=utf-8', headers, open: '[', separator: ',', close: ']',
    timeoutTail: (body, wroteAny) => `${wroteAny ? ',' : ''}${JSON.stringify(body)}]`,
  });
}

/** Collects at most `limit + 1` items to learn whether there is a next page, then streams the first `limit`. */
export async function* take<T>(items: AsyncIterable<T>, limit: number): AsyncGenerator<T> {
  let n = 0;
  for await (const item of items) {
    if (n++ >= limit) return;
    yield item;
  }
}
