/**
 * Where SSE blocks end, without keeping them: a relay that forwards an event as its bytes arrive still needs to
 * know where it ends, to decide about the next one. A block ends at the blank line that dispatches it (the
 * WHATWG rules, as ./sse.ts splits them: `\n`, `\r\n` or `\r` line ends). Constant memory, whatever the input.
 */

const LF = 0x0a;
const CR = 0x0d;

export class BlockScanner {
  /** No byte since the last line terminator: a terminator now is a blank line, which ends the block. */
  #lineEmpty = true;
  /** The previous byte was a CR: a LF now belongs to the same line end. */
  #afterCr = false;
  /** The last block ended with a CR at a chunk's end: a LF opening the next chunk is the rest of it. */
  #endedAtCr = false;

  /** A scanner inside a block whose bytes so far ended with `last` (a line end, or any other byte). */
  static inBlockAfter(last: number | undefined): BlockScanner {
    const scanner = new BlockScanner();
    scanner.#lineEmpty = last === LF || last === CR;
    scanner.#afterCr = last === CR;
    return scanner;
  }

  /** Between blocks, with nothing of a line end pending: a chunk may start a block. */
  atRest(): boolean {
    return this.#lineEmpty && !this.#afterCr && !this.#endedAtCr;
  }

  /**
   * 1 when `chunk[from]` is the LF of a CRLF whose CR ended the previous block in an earlier chunk: it belongs
   * to that block, before the next block starts (forwarded when that block went as it came, dropped with it
   * when it was rewritten: src/http/proxy/sse-relay.ts); 0 otherwise.
   */
  strayLf(chunk: Buffer, from: number): number {
    if (!this.#endedAtCr || from >= chunk.length) return 0;
    this.#endedAtCr = false;
    if (chunk[from] !== LF) return 0;
    this.#afterCr = false;
    return 1;
  }

  /**
   * The index just past the end of the block under way in `chunk` (scanning from `from`), or -1 when it does
   * not end in this chunk. A block's end is the end of its blank line, a CRLF whole when both bytes are here.
   */
  end(chunk: Buffer, from: number): number {
    for (let i = from; i < chunk.length; i++) {
      const b = chunk[i];
      if (this.#afterCr) {
        this.#afterCr = false;
        if (b === LF) continue;
      }
      if (b !== LF && b !== CR) {
        this.#lineEmpty = false;
        // Most of a block is its data: jump to its next line end.
        const next = nextTerminator(chunk, i + 1);
        if (next === -1) return -1;
        i = next - 1;
        continue;
      }
      if (b === CR) this.#afterCr = true;
      if (!this.#lineEmpty) {
        this.#lineEmpty = true;
        continue;
      }
      // A blank line: the block ends here, with the LF of a CRLF when it is in this chunk.
      if (b === CR) {
        if (i + 1 < chunk.length) {
          this.#afterCr = false;
          return chunk[i + 1] === LF ? i + 2 : i + 1;
        }
        this.#afterCr = false;
        this.#endedAtCr = true;
      }
      return i + 1;
    }
    return -1;
  }
}

/**
 * True when `chunk` ends with the blank line that ends a block (`\n\n`, or `\r\n\r\n`): a scanner at rest
 * before it is at rest after it, whatever the chunk holds.
 */
export function endsBlock(chunk: Buffer): boolean {
  const n = chunk.length;
  if (n < 2 || chunk[n - 1] !== LF) return false;
  return chunk[n - 2] === LF || (n >= 4 && chunk[n - 2] === CR && chunk[n - 3] === LF && chunk[n - 4] === CR);
}

/** The index of the next LF or CR in `chunk` from `from`, or -1. */
export function nextTerminator(chunk: Buffer, from: number): number {
  const lf = chunk.indexOf(LF, from);
  // CR line ends are rare: look for one only up to the next LF.
  const cr = chunk.subarray(from, lf === -1 ? chunk.length : lf).indexOf(CR);
  if (cr !== -1) return from + cr;
  return lf;
}
