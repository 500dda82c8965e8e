/**
 * What the AI page decides about a tenant's documents: which statuses are still moving, when to read the list
 * again (and how long to wait after failures), how a failure and a search result's page read, and how the list
 * changes after a reprocess or a delete. Pure: unit-tested in packages/console/test/documents.test.ts.
 */

/** The statuses of the API (docs/api.md "AI documents: processing and search"). */
export type DocumentStatus = 'stored' | 'processing' | 'ready' | 'failed';

interface DocLike { id: string; status: string }

/** Still to change without anyone asking: queued or being processed. An unknown status is not waited for. */
export const isPending = (status: string): boolean => status === 'stored' || status === 'processing';

/** How often the list is read while a document is pending. */
export const POLL_INTERVAL_MS = 2_000;
/** The longest wait between reads after failed ones. */
export const MAX_POLL_INTERVAL_MS = 30_000;

export interface PollInput {
  /** The list as last read (undefined before the first answer). */
  docs: readonly DocLike[] | undefined;
  /** Reads that failed in a row since the last good one. */
  failures: number;
  /** The browser shows the page (document.visibilityState): a hidden tab does not poll. */
  visible: boolean;
}

/**
 * Milliseconds until the list is read again, or undefined for no more reads: while a document is pending, every
 * POLL_INTERVAL_MS, doubled after each failed read up to MAX_POLL_INTERVAL_MS. Nothing pending (or no list yet:
 * its first read failed, and "Try again" is the user's): no reads.
 */
export function nextPollDelay({ docs, failures, visible }: PollInput): number | undefined {
  if (!visible || !docs || !docs.some((d) => isPending(d.status))) return undefined;
  const doubled = POLL_INTERVAL_MS * 2 ** Math.min(Math.max(0, failures), 16);
  return Math.min(doubled, MAX_POLL_INTERVAL_MS);
}

/** "3 documents: 1 ready, 1 processing, 1 failed", in the order of the statuses' lifecycle. */
export function statusSummary(docs: readonly DocLike[]): string {
  if (!docs.length) return 'No documents';
  const order = ['stored', 'processing', 'ready', 'failed'];
  const counts = new Map<string, number>();
  for (const d of docs) counts.set(d.status, (counts.get(d.status) ?? 0) + 1);
  const known = order.filter((s) => counts.has(s));
  const others = [...counts.keys()].filter((s) => !order.includes(s)).sort();
  const parts = [...known, ...others].map((s) => `${counts.get(s)} ${s}`);
  return `${docs.length} document${docs.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

const FAILURE_TITLES: Record<string, string> = {
  encrypted: 'Encrypted',
  no_text: 'No text found',
  unreadable: 'Unreadable',
  too_large: 'Too large',
  timeout: 'Timed out',
};

/** A short title for a failure code of the API; an unknown code is shown as it is. */
export const failureTitle = (code: string): string => FAILURE_TITLES[code] ?? code;

/** The list with `doc` in place of the record of the same id (a reprocess's answer); unchanged when absent. */
export function replaceDocument<T extends DocLike>(docs: readonly T[], doc: T): T[] {
  return docs.map((d) => (d.id === doc.id ? doc : d));
}

/** The list without the document `id` (deleted). */
export function withoutDocument<T extends DocLike>(docs: readonly T[], id: string): T[] {
  return docs.filter((d) => d.id !== id);
}

/** Where a search result stands: "page 3", "page 3 (pages 3–4)" when the chunk spans more; empty when unknown. */
export function pageLabel(result: { page?: number; pages?: readonly number[] }): string {
  if (result.page === undefined) return '';
  const [first, last] = result.pages ?? [];
  if (first !== undefined && last !== undefined && last > first) return `page ${result.page} (pages ${first}–${last})`;
  return `page ${result.page}`;
}

/** A result's score (relative to the best, 1) with two decimals. */
export const formatScore = (score: number): string => (Number.isFinite(score) ? score.toFixed(2) : '–');
