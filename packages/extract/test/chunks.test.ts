import { beforeAll, describe, expect, it } from '@jest/globals';
import { chunkText, DEFAULT_CHUNKING, o200kCounter, pageStartsOf, type Chunk, type TokenCounter } from '@lantern/extract';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { fixture } from './helpers.js';

/** Chunks by o200k tokens: 800 with 400 of overlap by default, cut at paragraphs, then sentences, offsets exact. */
describe('extract: chunking by tokens', () => {
  let count: TokenCounter;
  beforeAll(() => {
    count = o200kCounter();
  });
  const RUNBOOK = fixture('runbook.md').toString('utf8');

  /** What every chunking must hold: exact slices in order, each within the size, every non-blank character in one. */
  function expectSound(text: string, chunks: Chunk[], max: number): void {
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
    const covered = new Uint8Array(text.length);
    for (const [i, c] of chunks.entries()) {
      expect(c.text).toBe(text.slice(c.start, c.end));
      expect(c.tokens).toBeLessThanOrEqual(max);
      // `tokens` adds the pieces' counts and the white space between them: encoding the chunk whole gives that or
      // a little less (a space merges with the word after it).
      expect(count(c.text)).toBeLessThanOrEqual(c.tokens);
      if (i > 0) expect(c.start).toBeGreaterThan(chunks[i - 1]!.start);
      covered.fill(1, c.start, c.end);
    }
    const missed = [...text].filter((_, i) => covered[i] === 0 && !/\s/.test(text[i]!));
    expect(missed).toEqual([]);
  }

  it('cuts a long document into chunks of at most 800 tokens, each next one starting within the one before (the overlap)', () => {
    const text = RUNBOOK.repeat(30);
    const chunks = chunkText(text, DEFAULT_CHUNKING, count);
    expectSound(text, chunks, 800);
    expect(chunks.length).toBeGreaterThan(10);
    for (let i = 1; i < chunks.length; i++) {
      const [prev, next] = [chunks[i - 1]!, chunks[i]!];
      expect(next.start).toBeLessThan(prev.end);
      expect(count(text.slice(next.start, prev.end))).toBeLessThanOrEqual(400);
    }
    // Chunks start at paragraph starts: after a blank line, or at the text's start.
    for (const c of chunks) {
      const before = text.slice(0, c.start);
      expect(c.start === 0 || /\n[^\S\n]*\n/.test(before.slice(before.trimEnd().length))).toBe(true);
    }
  });

  it('counts the blank lines between short pieces: a table of one cell per paragraph stays within the size', () => {
    // What mammoth makes of a DOCX table: each cell its own paragraph. Counting only the cells made chunks of twice the size.
    const text = Array.from({ length: 3000 }, (_, i) => String(i % 1000)).join('\n\n');
    const chunks = chunkText(text, DEFAULT_CHUNKING, count);
    expectSound(text, chunks, 800);
    expect(Math.max(...chunks.map((c) => count(c.text)))).toBeGreaterThan(700);
  });

  it('cuts a paragraph of lines (CSV, logs) at its line breaks, in linear time, keeping the overlap', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `${i},checkout,${(i * 7) % 997},EUR,${i % 3 === 0 ? 'refunded' : 'paid'}`);
    const text = `id,service,amount,currency,state\n${rows.join('\n')}`;
    const began = performance.now();
    const chunks = chunkText(text, DEFAULT_CHUNKING, count);
    expect(performance.now() - began).toBeLessThan(10_000);
    expectSound(text, chunks, 800);
    for (const c of chunks) expect(c.text.startsWith('id,') || /^\d+,checkout,/.test(c.text)).toBe(true);
    for (let i = 1; i < chunks.length; i++) {
      const overlap = count(text.slice(chunks[i]!.start, chunks[i - 1]!.end));
      expect(overlap).toBeGreaterThan(300);
      expect(overlap).toBeLessThanOrEqual(400);
    }
  });

  it('keeps a short document in one chunk, the text trimmed', () => {
    const text = '\n\n  Checkout runbook.\n\nCall payments on-call.  \n';
    const kept = 'Checkout runbook.\n\nCall payments on-call.';
    expect(chunkText(text, DEFAULT_CHUNKING, count))
      .toEqual([{ index: 0, text: kept, start: 4, end: 4 + kept.length, tokens: count('Checkout runbook.') + count('\n\n') + count('Call payments on-call.') }]);
  });

  it('cuts a paragraph longer than a chunk at its sentence ends', () => {
    const sentences = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} says the payment provider answered slowly again.`);
    const text = sentences.join(' ');
    const chunks = chunkText(text, { maxTokens: 100, overlapTokens: 0 }, count);
    expectSound(text, chunks, 100);
    for (const c of chunks) expect(c.text.endsWith('slowly again.')).toBe(true);
  });

  it('halves a run without sentence ends or spaces until it fits, never inside a surrogate pair', () => {
    const text = `${'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo'.repeat(100)} ${'😀'.repeat(700)}`;
    const chunks = chunkText(text, { maxTokens: 200, overlapTokens: 50 }, count);
    expectSound(text, chunks, 200);
    for (const c of chunks) {
      expect(c.text.charCodeAt(0) >= 0xdc00 && c.text.charCodeAt(0) <= 0xdfff).toBe(false);
      expect(c.text.charCodeAt(c.text.length - 1) >= 0xd800 && c.text.charCodeAt(c.text.length - 1) <= 0xdbff).toBe(false);
    }
  });

  it('names the pages a PDF chunk spans', () => {
    const pages = [1, 2, 3].map((n) => Array.from({ length: 5 }, (_, i) => `Page ${n} line ${i} tells the on-call engineer what to check next.`).join('\n'));
    const text = pages.join('\n\n');
    const chunks = chunkText(text, { maxTokens: 200, overlapTokens: 0 }, count, pageStartsOf(pages));
    expectSound(text, chunks, 200);
    for (const c of chunks) {
      const first = Number(/Page (\d)/.exec(c.text)![1]);
      const last = Number([...c.text.matchAll(/Page (\d)/g)].at(-1)![1]);
      expect(c.pages).toEqual([first, last]);
      // Where each later page begins in the chunk: the page a passage stands on.
      expect((c.pageBreaks ?? []).map((at) => c.text.slice(at, at + 6))).toEqual(Array.from({ length: last - first }, (_, i) => `Page ${first + i + 1}`));
    }
    expect(chunks.some((c) => c.pages![0] !== c.pages![1])).toBe(true);
  });

  it('counts exactly what encoding the text gives, piece by piece', () => {
    const encoder = new Tiktoken(o200kBase);
    for (const text of [RUNBOOK, RUNBOOK.repeat(5), 'Grüße aus 東京: 12345 items, "quoted" — don\'t   stop.\n\n\tDone?']) {
      expect(count(text)).toBe(encoder.encode(text, [], []).length);
    }
  });

  it('counts a long run without white space in linear time, a few tokens more than whole at most', () => {
    // One piece of o200k's pattern (letters only): counted in 10 slices of 100 characters.
    const run = 'QUJDREVGRhJSktMTUPUFFSU1RVVldYWVo'.replace(/[^A-Za-z]/g, '').repeat(40).slice(0, 1000);
    const whole = new Tiktoken(o200kBase).encode(run, [], []).length;
    expect(count(run)).toBeGreaterThanOrEqual(whole);
    expect(count(run)).toBeLessThanOrEqual(whole + 10);
    const began = performance.now();
    expect(count(run.repeat(50))).toBeGreaterThan(5 * whole);
    expect(performance.now() - began).toBeLessThan(5000);
  });

  it('counts a special token\'s text in a document as ordinary characters', () => {
    expect(chunkText('The log said <|endoftext|> and stopped.', DEFAULT_CHUNKING, count)[0]!.tokens).toBeGreaterThan(5);
  });

  it('refuses sizes outside 100-4096 tokens and an overlap over half the size, saying which', () => {
    expect(() => chunkText('x', { maxTokens: 99, overlapTokens: 0 }, count)).toThrow('from 100 to 4096 (got 99)');
    expect(() => chunkText('x', { maxTokens: 4097, overlapTokens: 0 }, count)).toThrow('from 100 to 4096 (got 4097)');
    expect(() => chunkText('x', { maxTokens: 800, overlapTokens: 401 }, count)).toThrow('from 0 to half the chunk size, 400 (got 401)');
  });
});
