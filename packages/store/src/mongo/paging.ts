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

/** `ts` within the window: from inclusive, to exclusive. */
export function windowFilter(window: TimeWindow): { ts?: { $gte?: Date; $lt?: Date } } {
  if (window.from === undefined && window.to === undefined) return {};
  return {
    ts: {
      ...(window.from === undefined ? {} : { $gte: new Date(window.from) }),
      ...(window.to === undefined ? {} : { $lt: new Date(window.to) }),
    },
  };
}

/**
 * Newest-first keyset: documents strictly after `cursor`, i.e. older, or as old with a smaller id. An index
 * ending in (ts desc, id desc) turns it into two index ranges.
 */
export function afterCursor(cursor: Cursor | undefined, idField: 'id' | '_id'): { $or?: object[] } {
  if (cursor === undefined) return {};
  const ts = new Date(cursor.ts);
  return { $or: [{ ts: { $lt: ts } }, { ts, [idField]: { $lt: cursor.id } }] };
}

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
