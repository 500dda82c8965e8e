import type { FindCursor } from 'mongodb';
import type { Cursor, TimeWindow } from '../port.js';

/** Documents per batch the streams ask the server for, and trace records per page of span lookups. */
export const DEFAULT_PAGE_SIZE = 200;

/** Clamps a caller's limit: undefined means no limit; negative means none at all. */
export function remainingOf(limit: number | undefined): number {
  return limit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(limit));
}

/** The `limit` option of a find: none for an unlimited read. */
export function limitOption(remaining: number): { limit?: number } {
  return Number.isFinite(remaining) ? { limit: remaining } : {};
}

type TsRange = { $gte?: Date; $lt?: Date; $lte?: Date };

/**
 * Newest-first keyset within a window: `ts` in [from, to), and with a cursor only the documents strictly after
 * it (older, or as old with a smaller id). The cursor is the index bound: `ts <= cursor.ts` tightens the
 * window's upper edge, so on an index ending in (ts desc, id desc) a page's scan starts at the cursor, not at the
 * window's edge (else every page rescans from the edge, and paging is quadratic). The documents of the cursor's
 * own instant with an id at or above the cursor's are left out by `$nor`, a filter on the index keys the scan
 * reads: the scan may examine those few keys (the cursor's instant) once more, never the window before them.
 * Written as one range rather than an `$or` of two: the planner bounds an `$or` by the cursor only when it can
 * push the window into both branches, which mongod 6.0 does for one project and not for an `$in` of several.
 */
export function keysetFilter(window: TimeWindow, cursor: Cursor | undefined, idField: 'id' | '_id'): { ts?: TsRange; $nor?: object[] } {
  const range: TsRange = {};
  if (window.from !== undefined) range.$gte = new Date(window.from);
  const cursorBounds = cursor !== undefined && (window.to === undefined || cursor.ts < window.to);
  if (cursorBounds) range.$lte = new Date(cursor.ts);
  else if (window.to !== undefined) range.$lt = new Date(window.to);
  // A cursor at or past the window's end: every document of the window is older than it.
  const ts = Object.keys(range).length === 0 ? {} : { ts: range };
  if (!cursorBounds) return ts;
  return { ...ts, $nor: [{ ts: new Date(cursor.ts), [idField]: { $gte: cursor.id } }] };
}

/**
 * A turn of the event loop (a macrotask): the documents of a driver batch arrive through promises (microtasks),
 * so a loop that does real work per document holds the process for the whole batch unless it gives way.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A driver cursor read in chunks: what the server's current batch holds, at most `size` documents, so a chunk
 * never waits on a further batch. The cursor is closed when the reader stops, early or not.
 */
export async function* chunksOf<T>(cursor: FindCursor<T>, size: number): AsyncGenerator<T[]> {
  try {
    let chunk: T[] = [];
    for await (const doc of cursor) {
      chunk.push(doc);
      if (chunk.length >= size || cursor.bufferedCount() === 0) {
        yield chunk;
        chunk = [];
      }
    }
    if (chunk.length > 0) yield chunk;
  } finally {
    await cursor.close();
  }
}

/**
 * A `$regex` that matches text containing `needle` by the rule of ../text.ts: literal, ASCII letters in either
 * case (`[aA]`, not the `i` option, with which MongoDB's PCRE folds other letters too), every other character
 * exactly. ASCII punctuation is escaped (in PCRE a backslash before a non-alphanumeric character is that
 * character) and NUL is written `\x00`: a BSON regex is a C string.
 */
export function containsRegex(needle: string): { $regex: string } {
  let pattern = '';
  for (const ch of needle) {
    if (/^[A-Za-z]$/.test(ch)) pattern += `[${ch.toLowerCase()}${ch.toUpperCase()}]`;
    else if (ch === '\u0000') pattern += '\\x00';
    else if (/^[!-/:-@[-`{-~]$/.test(ch)) pattern += `\\${ch}`;
    else pattern += ch;
  }
  return { $regex: pattern };
}
