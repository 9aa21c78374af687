import { useCallback, useEffect, useRef, useState } from 'react';

export type AsyncState<T> =
  | { status: 'loading'; data: T | undefined; error: undefined }
  | { status: 'ready'; data: T; error: undefined }
  | { status: 'error'; data: T | undefined; error: Error };

/**
 * Runs `load` on mount and whenever `deps` change; `reload()` runs it again. A superseded run is
 * aborted and its result ignored, so a slow old answer never overwrites a newer one.
 */
export function useAsync<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: readonly unknown[],
): AsyncState<T> & { reload: () => void } {
  const [state, setState] = useState<AsyncState<T>>({ status: 'loading', data: undefined, error: undefined });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ status: 'loading', data: s.data, error: undefined }));
    loadRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ status: 'ready', data, error: undefined });
      },
      (err: unknown) => {
        if (controller.signal.aborted) return;
        setState((s) => ({
          status: 'error',
          data: s.data,
          error: err instanceof Error ? err : new Error(String(err)),
        }));
      },
    );
    return () => controller.abort();
    // Callers pass the inputs of `load` as deps; `load` itself is read through a ref.
  }, [...deps, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
