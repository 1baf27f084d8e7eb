/**
 * A FIFO bounded by item count and by bytes: `push` refuses (returns false) instead of growing, in O(1), so
 * the caller can count the drop and move on. Bytes stay accounted until the consumer calls `done` for an
 * item it took, because the item's memory is held until it is written.
 */

/** Queue bounds. */
export interface QueueLimits {
  readonly maxItems: number;
  readonly maxBytes: number;
}

/** The FIFO itself: O(1) push and shift, never more than its limits hold. */
export class BoundedQueue<T> {
  readonly #limits: QueueLimits;
  #items: (T | undefined)[] = [];
  #head = 0;
  #bytes = 0;

  constructor(limits: QueueLimits) {
    this.#limits = limits;
  }

  /** Items waiting (not yet taken). */
  get length(): number {
    return this.#items.length - this.#head;
  }

  /** Bytes of the items waiting or taken and not yet done. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Enqueue unless either bound would be exceeded. */
  push(item: T, bytes: number): boolean {
    if (this.length >= this.#limits.maxItems || this.#bytes + bytes > this.#limits.maxBytes) return false;
    this.#items.push(item);
    this.#bytes += bytes;
    return true;
  }

  /** The oldest waiting item, or undefined. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    // Compact now and then, so shifting stays O(1) amortised and taken slots are freed.
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** The consumer finished with a taken item of `bytes`. */
  done(bytes: number): void {
    this.#bytes = Math.max(0, this.#bytes - bytes);
  }
}
