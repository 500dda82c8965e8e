/**
 * The words of a search, as both stores' indexes see them (SQLite FTS5's `unicode61` tokenizer with diacritics
 * removed; MongoDB's postings, made with wordsOf; no stemming, no stop words): runs of letters,
 * digits and combining marks, compared without case and without diacritics. Everything else in a query is a
 * separator, so nothing in it can act as FTS5 or MongoDB syntax: quotes, `*`, `-`, `NEAR`, `AND`/`OR` (words like
 * any other), `$` operators and brackets stand for themselves, that is, for nothing. Control characters are
 * dropped (`pay\u0000ment` is `payment`); tab and line breaks separate words. The highlights of a result are found
 * with the same rule, so a highlighted word is a word that matched.
 */
export const MAX_QUERY_LENGTH = 1000;
/** Most distinct words a query searches (the first ones); more would only slow the index down. */
export const MAX_QUERY_TERMS = 32;
/** A longer word is cut to this many characters for the search (an index holds no longer token usefully). */
export const MAX_TERM_LENGTH = 64;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** Control characters other than tab, line feed and carriage return (which separate words like spaces). */
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
const MARKS = /\p{M}+/gu;

/** A word as it is compared: decomposed, its combining marks dropped, lower case ("Zürich" -> "zurich"). */
export function foldWord(word: string): string {
  return word.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

const ASCII = /^[\x00-\x7f]*$/;

const SPACES = /\s+/gu;

/**
 * A word of a text as an index holds it: folded (ASCII needs only lower case), cut to MAX_TERM_LENGTH. A few
 * letters fold to text with spaces in it (U+037A to a space, Arabic ligatures such as U+FDFA to phrases): the
 * spaces go, so that a term is never two words (MongoDB's postings separate their words with spaces).
 */
const termOf = (word: string): string => (ASCII.test(word) ? word.toLowerCase() : foldWord(word).replace(SPACES, '')).slice(0, MAX_TERM_LENGTH);

/**
 * Every word of a text as the search compares it, in order (repeats kept): what an index of the text holds, so
 * that a query's terms (searchTerms) find exactly the words highlightsOf marks.
 */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const m of text.matchAll(WORD)) {
    const term = termOf(m[0]);
    if (term !== '') words.push(term);
  }
  return words;
}

/** The query's distinct words, folded, in their first order, at most MAX_QUERY_TERMS of them. */
export function searchTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const m of query.replace(CONTROLS, '').matchAll(WORD)) {
    const term = termOf(m[0]);
    if (term !== '') terms.add(term);
    if (terms.size === MAX_QUERY_TERMS) break;
  }
  return [...terms];
}

/** [start, end) offsets (UTF-16 units, as JavaScript slices) of the words of `text` that are among `terms`, in order. */
export function highlightsOf(text: string, terms: readonly string[]): [number, number][] {
  const wanted = new Set(terms);
  const found: [number, number][] = [];
  for (const m of text.matchAll(WORD)) {
    if (wanted.has(termOf(m[0]))) found.push([m.index, m.index + m[0].length]);
  }
  return found;
}

/**
 * How close together the query's words stand in a text: the fewest words of the text spanning one occurrence of
 * each distinct term it holds (1 when a single term, or all together in a row is the term count), and how many of
 * the terms it holds. Used to rank chunks that hold the terms next to each other above those where they are
 * scattered.
 */
export function termSpan(text: string, terms: readonly string[]): { held: number; span: number } {
  const index = new Map(terms.map((t, i) => [t, i]));
  const positions: { term: number; at: number }[] = [];
  let word = 0;
  for (const m of text.matchAll(WORD)) {
    const term = index.get(termOf(m[0]));
    if (term !== undefined) positions.push({ term, at: word });
    word++;
  }
  const held = new Set(positions.map((p) => p.term)).size;
  if (held === 0) return { held: 0, span: 0 };
  // The smallest window of positions holding every held term (two pointers over the positions, in order).
  const inWindow = new Map<number, number>();
  let best = Infinity;
  for (let left = 0, right = 0; right < positions.length; right++) {
    const r = positions[right]!;
    inWindow.set(r.term, (inWindow.get(r.term) ?? 0) + 1);
    while (inWindow.size === held) {
      const l = positions[left]!;
      best = Math.min(best, r.at - l.at + 1);
      const n = inWindow.get(l.term)! - 1;
      if (n === 0) inWindow.delete(l.term);
      else inWindow.set(l.term, n);
      left++;
    }
  }
  return { held, span: best };
}
