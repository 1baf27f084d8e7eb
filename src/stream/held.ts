/**
 * The bytes of one message held until it ends (an SSE block, a JSON body that may be rewritten). While small
 * they stay the chunks they came as, joined once at the end. Past `spill` bytes (the size at which a message
 * goes to a worker) they are copied as they arrive into one growable SharedArrayBuffer instead:
 * - no long copy on the event loop when the message ends (joining 22 MB of chunks took 50–190 ms there, with
 *   other sessions waiting);
 * - a worker takes the bytes without a copy (a view of shared memory is shared, not cloned, by postMessage);
 * - the chunks are let go as they are copied, so the message is never in memory twice.
 * The shared buffer reserves `limit` bytes of address space and commits them as it grows; bytes past the
 * reservation (only a message already over its bound has any) are kept as chunks after it.
 */

/** Most address space one shared copy reserves; a larger bound keeps its excess as chunks. */
const MAX_RESERVED = 2 ** 32;
/** The first commit of a shared copy, at least. */
const MIN_COMMIT = 1 << 20;
const EMPTY = Buffer.alloc(0);

export class HeldBytes {
  readonly #spill: number;
  readonly #limit: number;
  /** The chunks as they came; once shared, only those that did not fit in its reservation. */
  #parts: Buffer[] = [];
  #length = 0;
  #shared: SharedArrayBuffer | undefined;
  #sharedLength = 0;
  /** The reservation failed once: this holder keeps chunks. */
  #noShare = false;

  /** `spill`: bytes past which chunks are copied into shared memory; `limit`: the most it may reserve. */
  constructor(spill: number, limit: number) {
    this.#spill = spill;
    this.#limit = Math.min(limit, MAX_RESERVED);
  }

  get length(): number {
    return this.#length;
  }

  /** Hold `chunk` itself (it must not change after). */
  push(chunk: Buffer): void {
    this.#length += chunk.length;
    if (this.#shared !== undefined && this.#parts.length === 0 && this.#copy(chunk)) return;
    this.#parts.push(chunk);
    if (this.#shared === undefined && !this.#noShare && this.#length > this.#spill) this.#share();
  }

  /** Hold a copy of `chunk`, which its owner may reuse: once shared, the copy into shared memory is the only one. */
  pushCopy(chunk: Buffer): void {
    if (this.#shared !== undefined && this.#parts.length === 0) {
      this.#length += chunk.length;
      if (this.#copy(chunk)) return;
      this.#length -= chunk.length;
    }
    this.push(Buffer.from(chunk));
  }

  /** All of it, contiguous (a view of the shared copy, a lone chunk as it is, else the chunks joined); then empty. */
  take(): Buffer {
    const pieces = this.#pieces();
    const length = this.#length;
    this.clear();
    if (pieces.length === 0) return EMPTY;
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, length);
  }

  /** The bytes as pieces, in order, not joined; then empty. */
  takePieces(): Buffer[] {
    const pieces = this.#pieces();
    this.clear();
    return pieces;
  }

  /** Up to the first `n` bytes. */
  head(n: number): Buffer {
    const out: Buffer[] = [];
    let got = 0;
    for (const piece of this.#pieces()) {
      if (got >= n) break;
      out.push(piece.length > n - got ? piece.subarray(0, n - got) : piece);
      got += out[out.length - 1]!.length;
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out, got);
  }

  /** Up to the last `n` bytes. */
  tail(n: number): Buffer {
    const pieces = this.#pieces();
    const out: Buffer[] = [];
    let got = 0;
    for (let i = pieces.length - 1; i >= 0 && got < n; i--) {
      const piece = pieces[i]!;
      out.unshift(piece.length > n - got ? piece.subarray(piece.length - (n - got)) : piece);
      got += out[0]!.length;
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out, got);
  }

  clear(): void {
    this.#parts = [];
    this.#length = 0;
    this.#shared = undefined;
    this.#sharedLength = 0;
  }

  #pieces(): Buffer[] {
    if (this.#shared === undefined) return this.#parts;
    return [Buffer.from(this.#shared, 0, this.#sharedLength), ...this.#parts];
  }

  /** Move the chunks so far into a new shared copy (they are small: the spill point is where this starts). */
  #share(): void {
    // Already over its bound (one chunk past it): this message stays chunks; the next one may share again.
    if (this.#length > this.#limit) return;
    try {
      this.#shared = new SharedArrayBuffer(Math.min(this.#limit, Math.max(MIN_COMMIT, this.#length)), { maxByteLength: this.#limit });
    } catch {
      // No address space for it: chunks, joined at the end, as for small messages.
      this.#noShare = true;
      return;
    }
    const parts = this.#parts;
    this.#parts = [];
    for (const part of parts) this.#copy(part);
  }

  /** Copy `chunk` after the shared bytes, growing the commit (doubling); false when it does not fit. */
  #copy(chunk: Buffer): boolean {
    const shared = this.#shared!;
    const need = this.#sharedLength + chunk.length;
    if (need > shared.maxByteLength) return false;
    if (need > shared.byteLength) {
      try {
        shared.grow(Math.min(shared.maxByteLength, Math.max(need, shared.byteLength * 2)));
      } catch {
        // The commit failed (memory): this chunk and the rest stay chunks.
        return false;
      }
    }
    new Uint8Array(shared, this.#sharedLength, chunk.length).set(chunk);
    this.#sharedLength = need;
    return true;
  }
}
