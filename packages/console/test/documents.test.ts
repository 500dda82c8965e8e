import { describe, expect, it } from '@jest/globals';
import {
  failureTitle, formatScore, isPending, MAX_POLL_INTERVAL_MS, nextPollDelay, pageLabel, POLL_INTERVAL_MS, replaceDocument, statusSummary,
  withoutDocument,
} from '../src/lib/documents';

const doc = (id: string, status: string) => ({ id, status });

describe('isPending', () => {
  it('waits for stored and processing documents only', () => {
    expect(['stored', 'processing', 'ready', 'failed', 'something new'].map(isPending)).toEqual([true, true, false, false, false]);
  });
});

describe('nextPollDelay', () => {
  const pending = [doc('a', 'ready'), doc('b', 'processing')];

  it('reads again every 2 s while a document is stored or processing', () => {
    expect(nextPollDelay({ docs: pending, failures: 0, visible: true })).toBe(POLL_INTERVAL_MS);
    expect(nextPollDelay({ docs: [doc('a', 'stored')], failures: 0, visible: true })).toBe(2_000);
  });

  it('stops once every document is ready or failed, or the list is empty', () => {
    expect(nextPollDelay({ docs: [doc('a', 'ready'), doc('b', 'failed')], failures: 0, visible: true })).toBeUndefined();
    expect(nextPollDelay({ docs: [], failures: 0, visible: true })).toBeUndefined();
  });

  it('does not poll a hidden tab, nor before a first list (its failure waits for "Try again")', () => {
    expect(nextPollDelay({ docs: pending, failures: 0, visible: false })).toBeUndefined();
    expect(nextPollDelay({ docs: undefined, failures: 3, visible: true })).toBeUndefined();
  });

  it('backs off after failed reads, doubling up to 30 s', () => {
    const delays = [0, 1, 2, 3, 4, 5, 50].map((failures) => nextPollDelay({ docs: pending, failures, visible: true }));
    expect(delays).toEqual([2_000, 4_000, 8_000, 16_000, 30_000, 30_000, MAX_POLL_INTERVAL_MS]);
  });
});

describe('statusSummary', () => {
  it('counts the documents of each status in lifecycle order', () => {
    const docs = [doc('a', 'failed'), doc('b', 'ready'), doc('c', 'ready'), doc('d', 'stored')];
    expect(statusSummary(docs)).toBe('4 documents: 1 stored, 2 ready, 1 failed');
    expect(statusSummary([doc('a', 'processing')])).toBe('1 document: 1 processing');
    expect(statusSummary([doc('a', 'ready'), doc('b', 'archived')])).toBe('2 documents: 1 ready, 1 archived');
    expect(statusSummary([])).toBe('No documents');
  });
});

describe('failureTitle', () => {
  it('names each failure code of the API, and shows an unknown one as it is', () => {
    expect(['encrypted', 'no_text', 'unreadable', 'too_large', 'timeout'].map(failureTitle))
      .toEqual(['Encrypted', 'No text found', 'Unreadable', 'Too large', 'Timed out']);
    expect(failureTitle('new_code')).toBe('new_code');
  });
});

describe('replaceDocument and withoutDocument', () => {
  const list = [doc('a', 'ready'), doc('b', 'failed')];

  it('puts a reprocessed record in place of its row, keeping the order', () => {
    expect(replaceDocument(list, doc('b', 'stored'))).toEqual([doc('a', 'ready'), doc('b', 'stored')]);
    expect(replaceDocument(list, doc('z', 'stored'))).toEqual(list);
  });

  it('drops a deleted document', () => {
    expect(withoutDocument(list, 'a')).toEqual([doc('b', 'failed')]);
    expect(withoutDocument(list, 'z')).toEqual(list);
  });
});

describe('pageLabel and formatScore', () => {
  it('names the page of a PDF result, with the chunk\'s span when it covers more than one page', () => {
    expect(pageLabel({ page: 3, pages: [3, 3] })).toBe('page 3');
    expect(pageLabel({ page: 4, pages: [3, 5] })).toBe('page 4 (pages 3–5)');
    expect(pageLabel({ page: 2 })).toBe('page 2');
    expect(pageLabel({})).toBe('');
  });

  it('shows the relative score with two decimals', () => {
    expect(formatScore(1)).toBe('1.00');
    expect(formatScore(0.8765)).toBe('0.88');
    expect(formatScore(Number.NaN)).toBe('–');
  });
});
