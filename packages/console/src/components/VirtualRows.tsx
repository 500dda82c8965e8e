import { useEffect, useLayoutEffect, useRef, useState, type HTMLAttributes, type ReactNode } from 'react';
import { isNearEnd, scrollTopToReveal, visibleRange } from '../lib/virtual';

/**
 * A scrolling list of fixed-height rows that puts only the rows in view (plus `overscan`) in the DOM; a spacer as
 * tall as the whole list gives the scrollbar its size. Lists of 10,000 rows and more stay fast.
 */
export interface VirtualRowsProps {
  count: number;
  rowHeight: number;
  renderRow: (index: number) => ReactNode;
  /** Key of row `index`, so React keeps a row's DOM while the list scrolls. */
  rowKey?: (index: number) => string;
  overscan?: number;
  className?: string;
  /** Attributes of the scroll container (data-testid, aria-*...). */
  containerProps?: HTMLAttributes<HTMLDivElement> & Record<`data-${string}`, string | number | undefined>;
  /** Called when the rows in view come within `nearEndThreshold` rows of the end (to load the next page). */
  onNearEnd?: () => void;
  nearEndThreshold?: number;
  /** Scrolls row `index` into view when it changes. */
  scrollToIndex?: number;
}

export function VirtualRows({
  count, rowHeight, renderRow, rowKey, overscan = 8, className, containerProps, onNearEnd, nearEndThreshold = 20, scrollToIndex,
}: VirtualRowsProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(0);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setViewport(el.clientHeight);
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => setViewport(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useEffect(() => {
    const el = ref.current;
    if (!el || scrollToIndex === undefined || scrollToIndex < 0 || scrollToIndex >= count) return;
    const next = scrollTopToReveal(scrollToIndex, rowHeight, el.scrollTop, el.clientHeight);
    if (next !== el.scrollTop) el.scrollTop = next;
    // only when the target changes, not on every count change
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [scrollToIndex]);

  const range = visibleRange({ count, rowHeight, scrollTop, viewportHeight: viewport, overscan });
  const near = viewport > 0 && isNearEnd(range, count, overscan, nearEndThreshold);
  const onNearEndRef = useRef(onNearEnd);
  onNearEndRef.current = onNearEnd;
  useEffect(() => {
    if (near) onNearEndRef.current?.();
  }, [near, count]);

  const rows: ReactNode[] = [];
  for (let i = range.start; i < range.end; i += 1) {
    rows.push(
      <div key={rowKey ? rowKey(i) : i} className="vrow" style={{ height: rowHeight }}>
        {renderRow(i)}
      </div>,
    );
  }

  return (
    <div
      {...containerProps}
      ref={ref}
      className={`vrows${className ? ` ${className}` : ''}`}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
    >
      <div className="vrows-spacer" style={{ height: range.totalHeight }}>
        <div className="vrows-window" style={{ transform: `translateY(${range.offsetTop}px)` }}>{rows}</div>
      </div>
    </div>
  );
}
