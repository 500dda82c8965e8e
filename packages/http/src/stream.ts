import { once } from 'node:events';
import type { Response } from 'express';

/**
 * Streams an async iterable as a JSON array, honouring back-pressure, so memory does not grow with the
 * size of the set. The first item is read before the status is sent, so an error before any data still gets
 * the contract's error body; an error midway ends the connection abruptly (the client sees invalid JSON,
 * never a silently short array).
 */
export async function streamJsonArray<T>(res: Response, items: AsyncIterable<T>, headers: Record<string, string> = {}): Promise<void> {
  const it = items[Symbol.asyncIterator]();
  let next = await it.next();
  res.status(200);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  let chunk = '[';
  let first = true;
  try {
    while (!next.done) {
      chunk += (first ? '' : ',') + JSON.stringify(next.value);
      first = false;
      if (chunk.length >= 16_384) {
        if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
        chunk = '';
        if (res.destroyed) {
          await it.return?.();
          return;
        }
      }
      next = await it.next();
    }
    res.end(`${chunk}]`);
  } catch (err) {
    res.destroy(err instanceof Error ? err : new Error(String(err)));
    throw err;
  }
}

/** Collects at most `limit + 1` items to learn whether there is a next page, then streams the first `limit`. */
export async function* take<T>(items: AsyncIterable<T>, limit: number): AsyncGenerator<T> {
  let n = 0;
  for await (const item of items) {
    if (n++ >= limit) return;
    yield item;
  }
}
