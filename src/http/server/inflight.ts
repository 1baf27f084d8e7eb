/**
 * The exchanges currently being proxied, so shutdown can let ordinary requests finish within a bound and
 * close long-lived streams (GET streams, subscriptions/listen) at once.
 */

/** What shutdown needs of an exchange: a way to end it (an AbortController or a Cancel). */
export interface Abortable {
  abort(): void;
}

interface Exchange {
  readonly controller: Abortable;
  readonly longLived: boolean;
}

export class InFlight {
  readonly #live = new Set<Exchange>();
  readonly #idle: (() => void)[] = [];
  #closing = false;

  /** Track one exchange; call the returned function when it ends. */
  start(controller: Abortable, longLived: boolean): () => void {
    const exchange = { controller, longLived };
    if (this.#closing && longLived) controller.abort();
    this.#live.add(exchange);
    return () => {
      this.#live.delete(exchange);
      if (this.#live.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
  }

  get size(): number {
    return this.#live.size;
  }

  /** Abort long-lived streams now; wait up to `graceMs` for the rest, then abort them too. */
  async drain(graceMs: number): Promise<void> {
    this.#closing = true;
    for (const e of this.#live) if (e.longLived) e.controller.abort();
    if (this.#live.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.#idle.push(resolve)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    for (const e of this.#live) e.controller.abort();
  }
}
