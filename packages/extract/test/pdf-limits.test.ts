import { describe, expect, it } from '@jest/globals';
import { extractDocument, limitsOf, PDF } from '@lantern/extract';
import { pdfOf } from './helpers.js';

/** PDFs read page by page within the page limit, the deadline and the character bound. */
describe('extract: PDF pages and limits', () => {
  it('keeps each page\'s text apart, a page without text included, and joins them with a blank line', async () => {
    const pdf = pdfOf([[], ['Runbook', 'Page two holds the text'], ['Page three']]);
    expect(await extractDocument(pdf, PDF)).toEqual({ ok: true, pages: ['', 'Runbook\nPage two holds the text', 'Page three'], text: '\n\nRunbook\nPage two holds the text\n\nPage three' });
  });

  it('fails a PDF of more pages than the limit as too_large, before reading any', async () => {
    expect(await extractDocument(pdfOf([['a'], ['b'], ['c'], ['d']]), PDF, limitsOf({ maxPages: 3 })))
      .toEqual({ ok: false, code: 'too_large', message: 'The PDF has 4 pages; at most 3 are read.' });
  });

  it('stops at the deadline between pages with timeout', async () => {
    expect(await extractDocument(pdfOf([['a'], ['b']]), PDF, limitsOf({ timeoutMs: -1 })))
      .toEqual({ ok: false, code: 'timeout', message: 'Extraction took longer than the time allowed for one document.' });
  });

  it('stops once the pages read pass the character bound, with too_large', async () => {
    const pages = Array.from({ length: 5 }, (_, i) => Array.from({ length: 10 }, () => `page ${i} `.repeat(5)));
    expect(await extractDocument(pdfOf(pages), PDF, limitsOf({ maxCharacters: 500 })))
      .toEqual({ ok: false, code: 'too_large', message: expect.stringContaining('more than 500 characters') });
  });

  it('fails bytes that only begin like a PDF as unreadable', async () => {
    expect(await extractDocument(Buffer.from('%PDF-1.7\nnot really\n'), PDF)).toEqual({ ok: false, code: 'unreadable', message: expect.stringContaining('damaged or cut off') });
  });
});
