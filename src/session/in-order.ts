/**
 * One stream's messages handled in arrival order when some take a detour (a large result retrofitted on a
 * worker thread): while one is in progress, the ones after it wait their turn; otherwise each runs at once,
 * with no promise in between. A step that fails — by throwing, or by the promise it returns rejecting — is
 * handed to its `failed` handler (else the runner's), never to the caller: steps run from a stream's data
 * handler, where a throw would end the process.
 */
export class InOrder {
  readonly #onError: (err: unknown) => void;
  #tail: Promise<void> | undefined;

  /** `onError`: a step that failed and has no handler of its own (the ones after it still run). */
  constructor(onError: (err: unknown) => void) {
    this.#onError = onError;
  }

  /**
   * Run `step` now, or after the earlier ones still in progress; a promise it returns holds the ones after it.
   * `failed` is told if it throws or its promise rejects.
   */
  run(step: () => Promise<void> | undefined, failed: (err: unknown) => void = this.#onError): void {
    if (this.#tail) return this.#enqueue(step, failed);
    let wait: Promise<void> | undefined;
    try {
      wait = step();
    } catch (err) {
      return this.#report(failed, err);
    }
    if (wait) this.#enqueue(() => wait, failed);
  }

  #enqueue(step: () => Promise<void> | undefined, failed: (err: unknown) => void): void {
    // A step that throws must not stop the ones after it (a rejected turn would skip them all).
    const turn = (this.#tail ?? Promise.resolve()).then(step).catch((err: unknown) => this.#report(failed, err));
    this.#tail = turn;
    void turn.then(() => {
      if (this.#tail === turn) this.#tail = undefined;
    });
  }

  /** A failure handler that throws in turn goes to the runner's own (which must not). */
  #report(failed: (err: unknown) => void, err: unknown): void {
    try {
      failed(err);
    } catch (again) {
      if (failed !== this.#onError) this.#onError(again);
    }
  }
}
