/**
 * The exchanges currently being proxied, so shutdown can let ordinary requests finish within a bound and
 * close long-lived streams (GET streams, subscriptions/listen) at once. Each is a node of a doubly linked
 * list: tracking one and ending it is a few pointer writes (no hashing, no closure), on every exchange.
 */

/** What shutdown needs of an exchange: a way to end it (an AbortController or a Cancel). */
export interface Abortable {
  abort(): void;
  /** End it because the gateway shuts down, when the exchange tells that from its client leaving (a Cancel). */
  shutdown?(): void;
}

/** End an exchange for shutdown. */
function stop(controller: Abortable): void {
  if (controller.shutdown) controller.shutdown();
  else controller.abort();
}

/** One tracked exchange: `end()` it when it ends (more than once is harmless). */
export class Tracked {
  prev: Tracked | undefined;
  next: Tracked | undefined;
  #owner: InFlight | undefined;

  constructor(
    owner: InFlight,
    readonly controller: Abortable,
    readonly longLived: boolean,
  ) {
    this.#owner = owner;
  }

  end(): void {
    const owner = this.#owner;
    if (owner === undefined) return;
    this.#owner = undefined;
    owner.remove(this);
  }
}

export class InFlight {
  #head: Tracked | undefined;
  #size = 0;
  readonly #idle: (() => void)[] = [];
  #closing = false;

  /** Track one exchange; call `end()` on what it returns when the exchange ends. */
  start(controller: Abortable, longLived: boolean): Tracked {
    const tracked = new Tracked(this, controller, longLived);
    if (this.#closing && longLived) stop(controller);
    const head = this.#head;
    if (head !== undefined) {
      tracked.next = head;
      head.prev = tracked;
    }
    this.#head = tracked;
    this.#size++;
    return tracked;
  }

  /** Tracked.end's half: unlink it (call `end()` on the Tracked, which does this once). */
  remove(tracked: Tracked): void {
    const { prev, next } = tracked;
    if (prev !== undefined) prev.next = next;
    else this.#head = next;
    if (next !== undefined) next.prev = prev;
    tracked.prev = tracked.next = undefined;
    if (--this.#size === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }

  get size(): number {
    return this.#size;
  }

  /** Abort long-lived streams now; wait up to `graceMs` for the rest, then abort them too. */
  async drain(graceMs: number): Promise<void> {
    this.#closing = true;
    for (const e of this.#snapshot()) if (e.longLived) stop(e.controller);
    if (this.#size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.#idle.push(resolve)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    for (const e of this.#snapshot()) stop(e.controller);
  }

  /** The exchanges now (aborting one may end it, and unlink it, while the list is walked). */
  #snapshot(): Tracked[] {
    const all: Tracked[] = [];
    for (let t = this.#head; t !== undefined; t = t.next) all.push(t);
    return all;
  }
}
