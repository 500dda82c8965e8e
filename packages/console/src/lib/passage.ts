/**
 * A search result's passage cut into plain and highlighted segments from the API's highlight offsets
 * (`POST /ai/search`: `highlights` are [start, end) in UTF-16 code units of `text`, as JavaScript slices). The
 * console renders the segments as text nodes and <mark> elements: never as HTML. Unit-tested in
 * packages/console/test/passage.test.ts.
 */

export type Range = readonly [number, number];

export interface Segment {
  text: string;
  /** A matched word of the query. */
  mark: boolean;
}

export interface Excerpt {
  segments: Segment[];
  /** Text of the passage left out before and after the excerpt. */
  cutBefore: boolean;
  cutAfter: boolean;
}

/**
 * The highlights that can be shown in `text`: whole integers, clamped to the text, non-empty, in order, and
 * overlapping or touching ones merged. Anything else the answer might hold is dropped rather than trusted.
 */
export function cleanHighlights(text: string, highlights: readonly Range[]): [number, number][] {
  const valid = highlights
    .filter((h) => Array.isArray(h) && Number.isInteger(h[0]) && Number.isInteger(h[1]))
    .map(([s, e]): [number, number] => [Math.max(0, s), Math.min(text.length, e)])
    .filter(([s, e]) => s < e)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const [s, e] of valid) {
    const last = merged[merged.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return merged;
}

/** `text` from `from` to `to` as segments, the highlights (already cleaned) marked. */
function segmentsOf(text: string, ranges: readonly [number, number][], from: number, to: number): Segment[] {
  const out: Segment[] = [];
  let at = from;
  for (const [s, e] of ranges) {
    if (e <= from || s >= to) continue;
    const start = Math.max(s, from);
    const end = Math.min(e, to);
    if (start > at) out.push({ text: text.slice(at, start), mark: false });
    out.push({ text: text.slice(start, end), mark: true });
    at = end;
  }
  if (at < to) out.push({ text: text.slice(at, to), mark: false });
  return out;
}

/** The whole passage as segments. */
export function passageSegments(text: string, highlights: readonly Range[]): Segment[] {
  return segmentsOf(text, cleanHighlights(text, highlights), 0, text.length);
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f' || c === '\u00a0';
/** A low surrogate: the second half of a character outside the BMP, never to be cut from its first half. */
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** `at` moved back (at most `slack` code units) to the start of a word, and never into a surrogate pair. */
function wordStart(text: string, at: number, slack: number): number {
  for (let i = at; i > 0 && at - i < slack; i--) if (isSpace(text[i - 1])) return i;
  return at > 0 && at < text.length && isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at;
}

/** `at` moved back (at most `slack` code units) to the end of a word, and never into a surrogate pair. */
function wordEnd(text: string, at: number, slack: number): number {
  for (let i = at; i < text.length && at - i < slack && i > 0; i--) if (isSpace(text[i])) return i;
  return at > 0 && at < text.length && isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at;
}

/**
 * At most about `max` code units of the passage around its first highlight (a chunk is some 3,000 characters):
 * a quarter of them before it, cut between words where one ends near the cut. The whole passage when it is short
 * enough or nothing is highlighted and it fits; else its start.
 */
export function passageExcerpt(text: string, highlights: readonly Range[], max = 360): Excerpt {
  const ranges = cleanHighlights(text, highlights);
  if (text.length <= max) return { segments: segmentsOf(text, ranges, 0, text.length), cutBefore: false, cutAfter: false };
  const first = ranges[0]?.[0] ?? 0;
  const slack = Math.floor(max / 8);
  let start = first <= max / 4 ? 0 : wordStart(text, first - Math.floor(max / 4), slack);
  // Near the end: show the last `max` (or a little more, to start with a word) rather than a short tail.
  const tail = text.length - start < max;
  if (tail) start = wordStart(text, text.length - max, slack);
  // A highlight is never cut in two by the excerpt's start.
  const across = ranges.find(([s, e]) => s < start && e > start);
  if (across) start = across[0];
  let end = tail ? text.length : Math.min(text.length, start + max);
  if (end < text.length) {
    end = wordEnd(text, end, slack);
    const cut = ranges.find(([s, e]) => s < end && e > end);
    if (cut) end = cut[1];
  }
  return { segments: segmentsOf(text, ranges, start, end), cutBefore: start > 0, cutAfter: end < text.length };
}
