import { useEffect, useRef } from 'react';

/**
 * Calls `refresh` every `intervalMs` (0: never), but never while the previous refresh is still `busy` (that tick is
 * skipped: a slow server is not sent reads back to back, and the page's reads stay under the server's 4 per user)
 * and never while the tab is hidden. A tick missed while hidden is made up once when the tab shows again.
 */
export function useAutoRefresh(intervalMs: number, busy: boolean, refresh: () => void): void {
  const busyRef = useRef(busy);
  busyRef.current = busy;
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  useEffect(() => {
    if (!(intervalMs > 0)) return;
    let missed = false;
    const tick = () => {
      if (document.visibilityState !== 'visible') {
        missed = true;
        return;
      }
      if (!busyRef.current) refreshRef.current();
    };
    const onVisibility = () => {
      if (document.visibilityState !== 'visible' || !missed) return;
      missed = false;
      if (!busyRef.current) refreshRef.current();
    };
    const timer = setInterval(tick, intervalMs);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [intervalMs]);
}
