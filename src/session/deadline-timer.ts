/**
 * One timer for all of a session's requests, set for the earliest deadline it was asked for (a session with a
 * thousand requests in flight holds one timer, not a thousand). When it goes off, `fire` handles what is due
 * and returns the next deadline (Infinity: none). Unref'd: a deadline never keeps the process alive.
 */
export class DeadlineTimer {
  readonly #fire: (now: number) => number;
  #timer: NodeJS.Timeout | undefined;
  #at = Infinity;
  #stopped = false;

  constructor(fire: (now: number) => number) {
    this.#fire = fire;
  }

  /** Go off at `deadline` (ms since the epoch) unless it is already set to go off sooner. */
  arm(deadline: number): void {
    if (this.#stopped || deadline >= this.#at || !Number.isFinite(deadline)) return;
    clearTimeout(this.#timer);
    this.#at = deadline;
    this.#timer = setTimeout(() => this.#run(), Math.max(0, deadline - Date.now()));
    this.#timer.unref();
  }

  /** Nothing waits any more: let the timer go (it is armed again by the next deadline). */
  clear(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Infinity;
  }

  /** For good: the session is over. */
  stop(): void {
    this.clear();
    this.#stopped = true;
  }

  #run(): void {
    this.#timer = undefined;
    this.#at = Infinity;
    this.arm(this.#fire(Date.now()));
  }
}
