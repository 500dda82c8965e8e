import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

/** Runs without white space longer than this are counted in pieces of this many characters (see below). */
export const LONG_RUN = 100;
const LONG_RUNS = new RegExp(`\\S{${LONG_RUN + 1},}`, 'g');

/**
 * The o200k tokenizer (GPT-4o's, the one OpenAI's file search chunks by) from js-tiktoken. Building it takes about
 * 1.5 s and 200 MB: call this once per worker and keep the counter.
 * - The document's text is ordinary text: a `<|endoftext|>` in it is counted as the characters it is, never as a
 *   special token (js-tiktoken would throw).
 * - js-tiktoken's merging is quadratic in the length of one word: a 10,000-character base64 run took tens of
 *   seconds. Such runs are counted in pieces of LONG_RUN characters, which counts a few tokens more than the
 *   whole run would, never fewer in practice: a chunk stays within its size, and counting stays linear.
 */
export function o200kCounter(): TokenCounter {
  const tokenizer = new Tiktoken(o200kBase);
  const encoded = (text: string): number => (text === '' ? 0 : tokenizer.encode(text, [], []).length);
  return (text) => {
    let n = 0;
    let last = 0;
    for (const m of text.matchAll(LONG_RUNS)) {
      n += encoded(text.slice(last, m.index));
      for (let i = 0; i < m[0].length; i += LONG_RUN) n += encoded(m[0].slice(i, i + LONG_RUN));
      last = m.index + m[0].length;
    }
    return n + encoded(text.slice(last));
  };
}
