import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

/** Pieces longer than this are counted in slices of this many characters (see below). */
export const LONG_RUN = 100;
/** Distinct pieces whose counts are kept; past it the cache starts again (memory stays a few MB). */
const CACHE_SIZE = 100_000;

/**
 * The o200k tokenizer (GPT-4o's, the one OpenAI's file search chunks by) from js-tiktoken. Building it takes about
 * 1.5 s and 200 MB: call this once per worker and keep the counter.
 * - Counting splits the text with o200k's own pattern, as encoding does, and counts each piece once: a piece's
 *   count is kept, so the words of a document are merged once each, not at every occurrence. The counts are
 *   encoding's, exactly (the same 365,370 tokens for 1.2 MB of text), 30-40 times faster than encoding it.
 * - The document's text is ordinary text: a `<|endoftext|>` in it is counted as the characters it is, never as a
 *   special token (js-tiktoken would throw).
 * - js-tiktoken's merging is quadratic in the length of one piece: a 10,000-character base64 run took tens of
 *   seconds. Pieces over LONG_RUN characters are counted in slices of LONG_RUN, which counts a few tokens more
 *   than the whole piece would, never fewer in practice: a chunk stays within its size, counting stays linear.
 */
export function o200kCounter(): TokenCounter {
  const tokenizer = new Tiktoken(o200kBase);
  const pattern = new RegExp(o200kBase.pat_str, 'gu');
  const cache = new Map<string, number>();
  const encoded = (text: string): number => tokenizer.encode(text, [], []).length;
  const piece = (text: string): number => {
    let n = cache.get(text);
    if (n !== undefined) return n;
    if (text.length > LONG_RUN) {
      n = 0;
      for (let i = 0; i < text.length; i += LONG_RUN) n += encoded(text.slice(i, i + LONG_RUN));
      return n;
    }
    n = encoded(text);
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(text, n);
    return n;
  };
  return (text) => {
    let n = 0;
    for (const m of text.matchAll(pattern)) n += piece(m[0]);
    return n;
  };
}
