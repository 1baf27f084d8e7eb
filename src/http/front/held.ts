/**
 * The 2026-07-28 exchanges waiting for their client's retry (./modern-exchange.ts), by the `requestState` each
 * was answered with: one table per upstream. A retry takes its exchange (a requestState is good for one retry);
 * a request that needs a pooled session may reclaim the one that has waited longest.
 */
import { randomUUID } from 'node:crypto';

/** What the table needs of an exchange: giving its session up. */
export interface Reclaimable {
  /** Cancel it while it waits for its retry; true if it did. */
  reclaim(reason: string): boolean;
}

export class HeldExchanges<E extends Reclaimable> {
  readonly #held = new Map<string, E>();

  get size(): number {
    return this.#held.size;
  }

  /** Hold `exchange` under a new requestState, which is returned. */
  hold(exchange: E): string {
    const token = randomUUID();
    this.#held.set(token, exchange);
    return token;
  }

  /** Cancel the exchange that has waited longest for its retry (its session is needed); false if none waits. */
  reclaimOldest(reason: string): boolean {
    for (const exchange of this.#held.values()) if (exchange.reclaim(reason)) return true;
    return false;
  }

  /** The exchange a requestState names, left in the table (a retry that cannot use it leaves it good). */
  peek(token: string): E | undefined {
    return this.#held.get(token);
  }

  /** The exchange a retry names (taken: a requestState is good for one retry). */
  take(token: string): E | undefined {
    const exchange = this.#held.get(token);
    this.#held.delete(token);
    return exchange;
  }

  forget(token: string): void {
    this.#held.delete(token);
  }
}
