import { useCallback, useEffect, useRef, useState } from 'react';

export interface Async<T> { data: T | undefined; error: unknown; loading: boolean; reload: () => void }

/** Runs `load` when `deps` change (the previous run aborted), and again on reload(). */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: undefined }));
    loadRef.current(controller.signal).then(
      (data) => { if (!controller.signal.aborted) setState({ data, error: undefined, loading: false }); },
      (error: unknown) => { if (!controller.signal.aborted) setState((s) => ({ ...s, error, loading: false })); },
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
