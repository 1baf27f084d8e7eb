/**
 * A single-use cancellation for one proxied exchange. AbortController would do, but on Node 20 creating its
 * signal and listening to it costs ~6 µs, paid on every request for an abort that almost never happens; this
 * is a flag and one listener.
 */
export class Cancel {
  #aborted = false;
  #byShutdown = false;
  #listener: (() => void) | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Cancelled because the gateway shuts down (its client is still there, and can be told). */
  get byShutdown(): boolean {
    return this.#byShutdown;
  }

  /** Cancel because the gateway shuts down (see byShutdown). */
  shutdown(): void {
    if (!this.#aborted) this.#byShutdown = true;
    this.abort();
  }

  /** Cancel (idempotent): the listener, if any, runs once. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.();
  }

  /** Set the one listener (replacing any earlier one); it runs at once when already cancelled. */
  onAbort(listener: () => void): void {
    if (this.#aborted) listener();
    else this.#listener = listener;
  }

  /** Drop the listener (the exchange it would have aborted is over). */
  clear(): void {
    this.#listener = undefined;
  }
}
