/**
 * A small bounded map with least-recently-used eviction and optional expiry. Session facts and pending
 * requests live here so a misbehaving client cannot grow the gateway's memory without bound.
 */

/** Options for an Lru. */
export interface LruOptions<V> {
  /** Most entries kept; the least recently used is evicted beyond this. */
  readonly max: number;
  /** Entries older than this (ms since set) are treated as absent. Omit for no expiry. */
  readonly ttlMs?: number;
  /** Clock, injectable for tests. */
  readonly now?: () => number;
  /** Called when an entry leaves by eviction, expiry or delete. */
  readonly onRemove?: (key: string, value: V) => void;
}

interface Entry<V> {
  readonly value: V;
  /** When the entry expires (ms), or Infinity. */
  readonly expires: number;
}

export class Lru<V> {
  readonly #map = new Map<string, Entry<V>>();
  readonly #options: LruOptions<V>;
  readonly #now: () => number;

  constructor(options: LruOptions<V>) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#map.size;
  }

  #expired(entry: Entry<V>): boolean {
    return this.#now() > entry.expires;
  }

  get(key: string): V | undefined {
    const entry = this.#map.get(key);
    if (!entry) return undefined;
    if (this.#expired(entry)) {
      this.delete(key);
      return undefined;
    }
    // Refresh recency without refreshing age: expiry counts from set().
    this.#map.delete(key);
    this.#map.set(key, entry);
    return entry.value;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** Set a value; `ttlMs` overrides the default expiry for this entry. */
  set(key: string, value: V, ttlMs: number | undefined = this.#options.ttlMs): void {
    const old = this.#map.get(key);
    if (old) {
      this.#map.delete(key);
      this.#options.onRemove?.(key, old.value);
    }
    this.#map.set(key, { value, expires: ttlMs === undefined ? Infinity : this.#now() + ttlMs });
    while (this.#map.size > this.#options.max) {
      const oldest = this.#map.keys().next();
      if (oldest.done === true) break;
      this.delete(oldest.value);
    }
  }

  delete(key: string): boolean {
    const entry = this.#map.get(key);
    if (!entry) return false;
    this.#map.delete(key);
    this.#options.onRemove?.(key, entry.value);
    return true;
  }

  /** The live values, least recently used first (recency unchanged). */
  *values(): IterableIterator<V> {
    for (const entry of this.#map.values()) if (!this.#expired(entry)) yield entry.value;
  }

  /** Drop expired entries (called opportunistically; lookups also check expiry). */
  prune(): void {
    for (const [key, entry] of this.#map) if (this.#expired(entry)) this.delete(key);
  }
}
