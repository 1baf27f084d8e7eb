/**
 * The config generation the gateway serves, swapped atomically on reload.
 *
 * Design: routes are registered once, against live views (src/reload/live.ts) of whichever generation is
 * current. Each setting is read when it is used — guards and upstream headers/timeouts when a request
 * arrives, the result limit when a body is read — and the retrofit policy is stamped on each request when it
 * is sent (PendingRequest.policy), so a request in flight is answered by the generation it started on,
 * nothing in flight is aborted, and HTTP sessions
 * (the upstream's) and stdio sessions (with their children) carry on. What cannot change without new
 * routes or sockets is kept and reported (src/reload/merge.ts).
 */
import type { LoadedConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/types.js';
import type { UpstreamPolicy } from '../policy/types.js';
import { liveConfig, livePolicies } from './live.js';

/** Called after a swap with the upstreams whose tool definitions may have changed. */
export type ToolsChangedListener = (upstreams: readonly string[]) => void;

export class Generations {
  #current: LoadedConfig;
  #number = 1;
  readonly #listeners = new Set<ToolsChangedListener>();
  /** The current generation's config, read live. */
  readonly config: GatewayConfig;
  /** The current generation's compiled policies, read live. */
  readonly policies: ReadonlyMap<string, UpstreamPolicy>;

  constructor(initial: LoadedConfig) {
    this.#current = initial;
    this.config = liveConfig(() => this.#current.config);
    this.policies = livePolicies(() => this.#current.policies);
  }

  /** The generation being served (plain frozen objects, for code that wants a consistent snapshot). */
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
