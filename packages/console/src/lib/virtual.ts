/**
 * Range math of a virtualised list of fixed-height rows: which rows a scroll position shows, where they sit, and
 * how far to scroll to reveal one. Pure: the VirtualRows component does the DOM side.
 */

export interface VirtualInput {
  count: number;
  rowHeight: number;
  scrollTop: number;
  viewportHeight: number;
  /** Rows rendered beyond each edge of the viewport, so a fast scroll does not show blank space. */
  overscan?: number;
}

export interface VirtualRange {
  /** First row rendered (inclusive). */
  start: number;
  /** Row just past the last one rendered (exclusive); start === end when nothing is rendered. */
  end: number;
  /** Pixels from the top of the list to row `start`. */
  offsetTop: number;
  /** Height of the whole list, for the spacer that gives the scrollbar its size. */
  totalHeight: number;
}

export function visibleRange({ count, rowHeight, scrollTop, viewportHeight, overscan = 8 }: VirtualInput): VirtualRange {
  const n = Math.max(0, Math.floor(count));
  const h = rowHeight > 0 ? rowHeight : 1;
  const totalHeight = n * h;
  if (n === 0) return { start: 0, end: 0, offsetTop: 0, totalHeight: 0 };
  const top = Math.min(Math.max(0, scrollTop || 0), Math.max(0, totalHeight - 1));
  const view = Math.max(0, viewportHeight || 0);
  const first = Math.floor(top / h);
  const last = Math.ceil((top + view) / h); // exclusive
  const start = Math.max(0, first - Math.max(0, overscan));
  const end = Math.min(n, Math.max(last, first + 1) + Math.max(0, overscan));
  return { start, end, offsetTop: start * h, totalHeight };
}

/** The scrollTop that brings row `index` fully into view, moving as little as possible (unchanged if it is). */
export function scrollTopToReveal(index: number, rowHeight: number, scrollTop: number, viewportHeight: number): number {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight) return Math.max(0, bottom - viewportHeight);
  return scrollTop;
}

/** True when the rendered range reaches within `threshold` rows of the end: time to load the next page. */
export function isNearEnd(range: VirtualRange, count: number, overscan: number, threshold = 20): boolean {
  if (count === 0) return false;
  // `end` includes the overscan below the viewport; the last row actually in view is end - overscan.
  return range.end - Math.max(0, overscan) >= count - threshold;
}
