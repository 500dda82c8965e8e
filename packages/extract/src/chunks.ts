import type { TokenCounter } from './tokens.js';

/**
 * A document's text cut into chunks by tokens, as OpenAI's file search does by default (`auto`: 800 tokens, 400 of
 * overlap). The text is first cut into pieces at paragraphs (blank lines); a paragraph over the chunk size is cut
 * at line breaks (CSV, YAML, logs), a line still over it at sentence ends, a sentence still over it at the white
 * space nearest its middle, again and again, and a run without white space at its middle character. Chunks are
 * then packed from whole pieces, up to `maxTokens` (the pieces' counts and the white space between them), and each
 * next chunk starts with the last pieces of the one before that add up to at most `overlapTokens`, always at least
 * one piece further on. A chunk is a slice of the text: its offsets are exact
 * (UTF-16 code units, as JavaScript slices), white space between pieces kept.
 */
export interface ChunkSettings {
  maxTokens: number;
  overlapTokens: number;
}

export const DEFAULT_CHUNKING: ChunkSettings = { maxTokens: 800, overlapTokens: 400 };
export const MIN_CHUNK_TOKENS = 100;
export const MAX_CHUNK_TOKENS = 4096;

export interface Chunk {
  index: number;
  text: string;
  /** [start, end) of the chunk in the document's text. */
  start: number;
  end: number;
  tokens: number;
  /** A PDF's pages the chunk spans, [first, last], counted from 1. */
  pages?: [number, number];
  /** When it spans pages: where in the chunk's text each page after its first begins (the page of a passage). */
  pageBreaks?: number[];
}

/** Checks settings: chunks of 100-4096 tokens, an overlap of at most half of them. Throws a RangeError that says which. */
export function checkChunkSettings(s: ChunkSettings): ChunkSettings {
  if (!Number.isInteger(s.maxTokens) || s.maxTokens < MIN_CHUNK_TOKENS || s.maxTokens > MAX_CHUNK_TOKENS) {
    throw new RangeError(`The chunk size must be a whole number of tokens from ${MIN_CHUNK_TOKENS} to ${MAX_CHUNK_TOKENS} (got ${s.maxTokens}).`);
  }
  if (!Number.isInteger(s.overlapTokens) || s.overlapTokens < 0 || s.overlapTokens > s.maxTokens / 2) {
    throw new RangeError(`The chunk overlap must be a whole number of tokens from 0 to half the chunk size, ${Math.floor(s.maxTokens / 2)} (got ${s.overlapTokens}).`);
  }
  return s;
}

interface Piece {
  start: number;
  end: number;
  tokens: number;
}

/** [start, end) ranges of `text` between the matches of `separator` in [from, to), blank ranges dropped; a kept separator stays with the range before it. */
function rangesBetween(text: string, from: number, to: number, separator: RegExp, keepSeparator: boolean): [number, number][] {
  const ranges: [number, number][] = [];
  let start = from;
  // On the range alone: a search from `from` through the whole text would make many ranges quadratic.
  for (const m of text.slice(from, to).matchAll(new RegExp(separator.source, 'g'))) {
    const at = from + m.index;
    ranges.push([start, keepSeparator ? at + m[0].length : at]);
    start = at + m[0].length;
  }
  ranges.push([start, to]);
  return ranges.map(([s, e]) => trimmed(text, s, e)).filter(([s, e]) => e > s);
}

/** The range without white space at its ends. */
function trimmed(text: string, start: number, end: number): [number, number] {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return [start, end];
}

const PARAGRAPH = /\n[^\S\n]*\n\s*/;
/** A sentence ends at . ! ? (with closing quotes or brackets) before white space, or at CJK 。！？. */
const SENTENCE_END = /[.!?]["'”’)\]]{0,3}\s|[。！？]/;

/** Where to halve a range: the white space nearest its middle, else the middle (not inside a surrogate pair). */
function middleOf(text: string, start: number, end: number): number {
  const mid = (start + end) >> 1;
  for (let d = 0; mid - d > start || mid + d < end; d++) {
    if (mid + d < end && /\s/.test(text[mid + d]!)) return mid + d;
    if (mid - d > start && /\s/.test(text[mid - d]!)) return mid - d;
  }
  const code = text.charCodeAt(mid);
  return code >= 0xdc00 && code <= 0xdfff ? mid + 1 : mid;
}

const LINE_BREAK = /\n/;
/** How a range over the size is cut, in order: at line breaks, then at sentence ends; then halved. */
const SPLITS = [LINE_BREAK, SENTENCE_END];

/** The range as pieces of at most `max` tokens: at line breaks, then sentence ends (from `level` on), then halved. */
function piecesOf(text: string, start: number, end: number, max: number, count: TokenCounter, level: number, out: Piece[]): void {
  const tokens = count(text.slice(start, end));
  if (tokens <= max || end - start <= 1) {
    out.push({ start, end, tokens });
    return;
  }
  for (let l = level; l < SPLITS.length; l++) {
    const parts = rangesBetween(text, start, end, SPLITS[l]!, true);
    if (parts.length > 1) {
      for (const [s, e] of parts) piecesOf(text, s, e, max, count, l + 1, out);
      return;
    }
  }
  const cut = middleOf(text, start, end);
  for (const [s, e] of [trimmed(text, start, cut), trimmed(text, cut, end)]) if (e > s) piecesOf(text, s, e, max, count, SPLITS.length, out);
}

/** The page (from 1) of an offset, given each page's start offset in the text. */
function pageAt(pageStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = pageStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pageStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Where each page starts in the text of a PDF's pages joined by a blank line (as extractDocument joins them). */
export function pageStartsOf(pages: readonly string[]): number[] {
  const starts: number[] = [];
  let at = 0;
  for (const page of pages) {
    starts.push(at);
    at += page.length + 2;
  }
  return starts;
}

/** The pages a chunk [start, end) spans, and where in it each page after the first begins. */
function pagesOf(pageStarts: readonly number[], start: number, end: number): Pick<Chunk, 'pages' | 'pageBreaks'> {
  const first = pageAt(pageStarts, start);
  const last = pageAt(pageStarts, end - 1);
  if (first === last) return { pages: [first, last] };
  return { pages: [first, last], pageBreaks: pageStarts.slice(first, last).map((at) => at - start) };
}

/**
 * The chunks of a text (see above). `pageStarts`: for a PDF, where each page's text starts in `text` (its pages
 * joined), so that each chunk knows its pages.
 */
export function chunkText(text: string, settings: ChunkSettings, count: TokenCounter, pageStarts?: readonly number[]): Chunk[] {
  const { maxTokens, overlapTokens } = checkChunkSettings(settings);
  const pieces: Piece[] = [];
  for (const [s, e] of rangesBetween(text, 0, text.length, PARAGRAPH, false)) piecesOf(text, s, e, maxTokens, count, 0, pieces);
  // The white space between two pieces is in a chunk that holds both, and counts (a blank line is a token).
  const gaps = pieces.slice(1).map((p, i) => count(text.slice(pieces[i]!.end, p.start)));
  const chunks: Chunk[] = [];
  for (let first = 0; first < pieces.length;) {
    let last = first;
    let tokens = pieces[first]!.tokens;
    while (last + 1 < pieces.length && tokens + gaps[last]! + pieces[last + 1]!.tokens <= maxTokens) {
      tokens += gaps[last]! + pieces[last + 1]!.tokens;
      last++;
    }
    const start = pieces[first]!.start;
    const end = pieces[last]!.end;
    chunks.push({
      index: chunks.length, text: text.slice(start, end), start, end, tokens,
      ...(pageStarts && pageStarts.length > 0 ? pagesOf(pageStarts, start, end) : {}),
    });
    if (last === pieces.length - 1) break;
    // The next chunk begins with the last pieces of this one that fit in the overlap, one piece further on at least.
    let next = last + 1;
    let overlap = 0;
    while (next - 1 > first) {
      const more = pieces[next - 1]!.tokens + (next <= last ? gaps[next - 1]! : 0);
      if (overlap + more > overlapTokens) break;
      overlap += more;
      next--;
    }
    first = next;
  }
  return chunks;
}
