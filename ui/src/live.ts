/**
 * `useLive(path)`: the page's data from one API path, fetched when the page opens and again on every tick of
 * the event stream, never more than once a second (a tick that comes sooner is deferred, several deferred
 * ticks make one fetch). A fetch still running when the next one starts is aborted. While the tab is hidden,
 * ticks are noted and one fetch is made when it shows again: nobody watching costs the gateway nothing.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, getJson, onAuth } from './api.js';
import { onTick } from './events.js';

const MIN_INTERVAL_MS = 1_000;

export interface Live<T> {
  readonly data: T | null;
  readonly error: ApiError | Error | null;
  /** True until the first answer (or error). */
  readonly loading: boolean;
  /** Fetch again now (after an action). */
  readonly refresh: () => void;
}

export function useLive<T>(path: string | null): Live<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | Error | null; loading: boolean; path: string | null }>({ data: null, error: null, loading: true, path });
  const refreshRef = useRef<() => void>(() => undefined);

  useEffect(() => {
    if (path === null) return;
    let stopped = false;
    let last = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let inflight: AbortController | null = null;
    setState({ data: null, error: null, loading: true, path });

    const load = (): void => {
      timer = undefined;
      last = Date.now();
      inflight?.abort();
      const own = new AbortController();
      inflight = own;
      getJson<T>(path, own.signal).then(
        (data) => {
          if (!stopped && !own.signal.aborted) setState({ data, error: null, loading: false, path });
        },
        (error: unknown) => {
          if (stopped || own.signal.aborted) return;
          setState((s) => ({ data: s.data, error: error instanceof Error ? error : new Error(String(error)), loading: false, path }));
        },
      );
    };
    let missed = false;
    const request = (): void => {
      if (document.visibilityState === 'hidden') {
        missed = true;
        return;
      }
      if (timer !== undefined) return;
      timer = setTimeout(load, Math.max(0, last + MIN_INTERVAL_MS - Date.now()));
    };
    const onVisibility = (): void => {
      if (document.visibilityState === 'visible' && missed) {
        missed = false;
        request();
      }
    };
    document.addEventListener('visibilitychange', onVisibility);
    refreshRef.current = () => {
      clearTimeout(timer);
      load();
    };
    load();
    const offTick = onTick(request);
    const offAuth = onAuth((needed) => {
      if (!needed) refreshRef.current();
    });
    return () => {
      stopped = true;
      clearTimeout(timer);
      inflight?.abort();
      offTick();
      offAuth();
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [path]);

  // Data of another path must not show while the new one loads.
  const current = state.path === path;
  return {
    data: current ? state.data : null,
    error: current ? state.error : null,
    loading: !current || state.loading,
    refresh: () => refreshRef.current(),
  };
}
