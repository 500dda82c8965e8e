import { describe, expect, it } from '@jest/globals';
import { cleanHighlights, passageExcerpt, passageSegments, type Segment } from '../src/lib/passage';

/** The segments written back as text with the marks in brackets: what a reader of the page sees. */
const show = (segments: Segment[]) => segments.map((s) => (s.mark ? `[${s.text}]` : s.text)).join('');

describe('passageSegments', () => {
  it('marks each highlighted range and keeps the text between them, in order', () => {
    const text = 'Roll back the checkout service, then check the checkout logs.';
    const second = text.lastIndexOf('checkout');
    const segments = passageSegments(text, [[14, 22], [second, second + 8]]);
    expect(show(segments)).toBe('Roll back the [checkout] service, then check the [checkout] logs.');
    expect(segments.map((s) => s.text).join('')).toBe(text);
  });

  it('marks a highlight at the very start and at the very end', () => {
    expect(show(passageSegments('alpha beta', [[0, 5], [6, 10]]))).toBe('[alpha] [beta]');
  });

  it('is one plain segment without highlights, and nothing for an empty text', () => {
    expect(passageSegments('no match here', [])).toEqual([{ text: 'no match here', mark: false }]);
    expect(passageSegments('', [])).toEqual([]);
  });

  it('keeps markup-like text as text: the segments are strings, never parsed', () => {
    const text = '<img src=x onerror=alert(1)> & <b>bold</b>';
    const segments = passageSegments(text, [[0, 4]]);
    expect(segments[0]).toEqual({ text: '<img', mark: true });
    expect(segments.map((s) => s.text).join('')).toBe(text);
  });

  it('slices in UTF-16 code units, as the API counts: a word after an emoji and accents is marked whole', () => {
    const text = '🚀 Zürich naïve';
    // '🚀' is two code units: 'Zürich' stands at [3, 9).
    expect(show(passageSegments(text, [[3, 9], [10, 15]]))).toBe('🚀 [Zürich] [naïve]');
  });
});

describe('cleanHighlights', () => {
  it('sorts, merges overlapping and touching ranges, clamps to the text and drops empty or broken ones', () => {
    const text = 'abcdefghij';
    expect(cleanHighlights(text, [[6, 8], [0, 2], [1, 3], [3, 4], [5, 5], [8, 99], [-4, 0]])).toEqual([[0, 4], [6, 10]]);
    expect(cleanHighlights(text, [[2.5, 4] as [number, number], [7, 3]])).toEqual([]);
  });

  it('survives an answer that is not a list of pairs', () => {
    expect(cleanHighlights('abc', [null as unknown as [number, number], [0, 1]])).toEqual([[0, 1]]);
  });
});

describe('passageExcerpt', () => {
  const words = (from: number, n: number) => Array.from({ length: n }, (_, i) => `w${from + i}`).join(' ');

  it('is the whole passage, uncut, when it is short', () => {
    const e = passageExcerpt('short text here', [[6, 10]], 360);
    expect(show(e.segments)).toBe('short [text] here');
    expect(e).toMatchObject({ cutBefore: false, cutAfter: false });
  });

  it('shows the first highlight of a long passage with some text before it, cut between words', () => {
    const text = `${words(0, 200)} needle ${words(200, 200)}`;
    const at = text.indexOf('needle');
    const e = passageExcerpt(text, [[at, at + 6]], 200);
    const shown = show(e.segments);
    expect(shown).toContain('[needle]');
    expect(e.cutBefore).toBe(true);
    expect(e.cutAfter).toBe(true);
    // Some context before the word, and no word cut in two at either end.
    expect(shown.indexOf('[needle]')).toBeGreaterThan(20);
    expect(text.split(' ')).toEqual(expect.arrayContaining([shown.split(' ')[0], shown.split(' ').at(-1)]));
    expect(shown.length).toBeLessThanOrEqual(200 + 2);
  });

  it('starts at the beginning when the first highlight is near it, and ends at the end near the end', () => {
    const text = `needle ${words(0, 300)}`;
    const start = passageExcerpt(text, [[0, 6]], 200);
    expect(start.cutBefore).toBe(false);
    expect(start.cutAfter).toBe(true);
    const tail = `${words(0, 300)} needle`;
    const at = tail.indexOf('needle');
    const end = passageExcerpt(tail, [[at, at + 6]], 200);
    expect(end.cutAfter).toBe(false);
    expect(show(end.segments).endsWith('[needle]')).toBe(true);
  });

  it('never cuts a highlight in two at the excerpt\'s end', () => {
    const text = `${words(0, 100)}`;
    // A long highlighted stretch running across where a 100-unit excerpt would end.
    const e = passageExcerpt(text, [[0, 2], [80, 130]], 100);
    const marks = e.segments.filter((s) => s.mark).map((s) => s.text);
    expect(marks).toContain(text.slice(80, 130));
  });

  it('never splits a surrogate pair when no space is near the cut', () => {
    const text = '😀'.repeat(300);
    const e = passageExcerpt(text, [[300, 302]], 100);
    const shown = e.segments.map((s) => s.text).join('');
    expect(shown.length % 2).toBe(0);
    expect(shown).toBe('😀'.repeat(shown.length / 2));
    expect(e.segments.some((s) => s.mark && s.text === '😀')).toBe(true);
  });

  it('is the start of a long passage without highlights', () => {
    const text = words(0, 300);
    const e = passageExcerpt(text, [], 100);
    expect(e.cutBefore).toBe(false);
    expect(e.cutAfter).toBe(true);
    expect(show(e.segments).startsWith('w0 w1')).toBe(true);
  });
});
