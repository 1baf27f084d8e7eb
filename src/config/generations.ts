/**
 * The config generation the gateway serves, swapped atomically on reload.
 *
 * Routes are registered once, by upstream name. Each request takes one snapshot, `current`, when it arrives
 * and reads everything from it — guards, headers, timeouts, limits, the retrofit policy (stamped on each
 * request it sends, PendingRequest.policy) — so one request never sees two configs, a request in flight is
 * answered by the generation it started on, nothing in flight is aborted, and sessions (and their stdio
 * children) carry on. What cannot change without new routes or sockets is kept and reported
 * (src/reload/merge.ts).
 */
import type { LoadedConfig } from './load.js';

/** Called after a swap with the upstreams whose tool definitions may have changed. */
export type ToolsChangedListener = (upstreams: readonly string[]) => void;

export class Generations {
  #current: LoadedConfig;
  #number = 1;
  readonly #listeners = new Set<ToolsChangedListener>();

  constructor(initial: LoadedConfig) {
    this.#current = initial;
  }

  /** The generation being served: take it once per request and read everything from it. */
  get current(): LoadedConfig {
    return this.#current;
  }

  /** 1 for the config the gateway started with, +1 per applied reload. */
  get number(): number {
    return this.#number;
  }

  /** Serve `next` from now on; then tell listeners which upstreams' tools changed. */
  swap(next: LoadedConfig, toolsChanged: readonly string[] = []): void {
    this.#current = next;
    this.#number += 1;
    if (toolsChanged.length > 0) for (const listener of this.#listeners) listener(toolsChanged);
  }

  /** Subscribe to tool changes; returns the unsubscribe function. */
  onToolsChanged(listener: ToolsChangedListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}
