/**
 * One stream's messages handled in arrival order when some take a detour (a large result retrofitted on a
 * worker thread): while one is in progress, the ones after it wait their turn; otherwise each runs at once,
 * with no promise in between.
 */
export class InOrder {
  readonly #onError: (err: unknown) => void;
  #tail: Promise<void> | undefined;

  /** `onError`: a step that failed (the ones after it still run). */
  constructor(onError: (err: unknown) => void) {
    this.#onError = onError;
  }

  /** Run `step` now, or after the earlier ones still in progress; a promise it returns holds the ones after it. */
  run(step: () => Promise<void> | undefined): void {
    if (this.#tail) return this.#enqueue(step);
    const wait = step();
    if (wait) this.#enqueue(() => wait);
  }

  #enqueue(step: () => Promise<void> | undefined): void {
    // A step that throws must not stop the ones after it (a rejected turn would skip them all).
    const turn = (this.#tail ?? Promise.resolve()).then(step).catch(this.#onError);
    this.#tail = turn;
    void turn.then(() => {
      if (this.#tail === turn) this.#tail = undefined;
    });
  }
}
