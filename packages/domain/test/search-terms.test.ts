import { describe, expect, it } from '@jest/globals';
import { foldWord, highlightsOf, MAX_QUERY_TERMS, searchTerms, termSpan, wordsOf } from '@lantern/domain';

/** The words of a search and their highlights: the user's literal text, no syntax of any index. */
describe('search terms', () => {
  it('takes the words of a query folded, once each, in order', () => {
    expect(searchTerms('Zürich  CAFÉ café naïve 東京 2026-10-02')).toEqual(['zurich', 'cafe', 'naive', '東京', '2026', '10', '02']);
    expect(foldWord('Ǆemal')).toBe('dzemal');
  });

  it('lets no character act as FTS5 or MongoDB syntax: quotes, *, -, NEAR, AND/OR, $ operators and brackets', () => {
    expect(searchTerms('"circuit breaker" NEAR(payment* -provider) OR {$where: 1} [x] AND (y)')).toEqual(['circuit', 'breaker', 'near', 'payment', 'provider', 'or', 'where', '1', 'x', 'and', 'y']);
    expect(searchTerms('"*" - () {} $ [] ^ :')).toEqual([]);
  });

  it('drops control characters, tab and line breaks separating words, and takes at most 32 distinct words', () => {
    expect(searchTerms('pay\u0000ment\u0007\tretry\u001b[0m')).toEqual(['payment', 'retry', '0m']);
    const many = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    expect(searchTerms(many)).toHaveLength(MAX_QUERY_TERMS);
  });

  it('gives every word of a text as the query\'s terms are folded, repeats kept, never one holding a space', () => {
    expect(wordsOf('The CAFÉ, the café; Zürich-2')).toEqual(['the', 'cafe', 'the', 'cafe', 'zurich', '2']);
    // U+FDFA folds (NFKD) to a phrase of four words, U+037A to a space: the spaces go, and an empty word with them.
    const phrase = wordsOf('\uFDFA').join('');
    expect(phrase.length).toBeGreaterThan(10);
    expect(wordsOf('a\u037A b \uFDFA')).toEqual(['a', 'b', phrase]);
    for (const word of wordsOf('x\u037A \uFDFA \uFDFB \uFE70')) expect(word).not.toMatch(/\s/);
    expect(searchTerms('\uFDFA')).toEqual([phrase]);
    expect(highlightsOf('pray \uFDFA', ['pray', phrase])).toEqual([[0, 4], [5, 6]]);
  });

  it('highlights the words of the text that match, whatever their case or accents, as [start, end) slices', () => {
    const text = 'The café in Zürich: CAFE orders, cafeteria not, Zurich again.';
    const found = highlightsOf(text, searchTerms('cafe zurich'));
    expect(found.map(([s, e]) => text.slice(s, e))).toEqual(['café', 'Zürich', 'CAFE', 'Zurich']);
  });

  it('counts offsets in UTF-16 units, past astral characters', () => {
    const text = '😀 payment 😀 provider';
    expect(highlightsOf(text, ['provider'])).toEqual([[text.indexOf('provider'), text.length]]);
  });

  it('measures how close the terms stand: all in a row spans their count, scattered spans more', () => {
    const terms = searchTerms('circuit breaker');
    expect(termSpan('switch the circuit breaker to the fallback', terms)).toEqual({ held: 2, span: 2 });
    expect(termSpan('the circuit of the payments service has a breaker', terms)).toEqual({ held: 2, span: 8 });
    expect(termSpan('a breaker here, a circuit there, then circuit breaker', terms)).toEqual({ held: 2, span: 2 });
    expect(termSpan('only the circuit', terms)).toEqual({ held: 1, span: 1 });
    expect(termSpan('nothing', terms)).toEqual({ held: 0, span: 0 });
  });
});
