/**
 * Whether an SSE stream has handed its reader an event id: a dispatched event (one with a `data:` line, ended by
 * its blank line) whose last `id:` is not empty. A client that saw one may resume the stream with
 * `Last-Event-ID` when it ends before its answer (the SDK clients do, on a POST stream too: the 2025-11-25
 * priming event), so a relay whose upstream broke after one leaves the answer to that resumption rather than
 * answering with an error the client takes as final. Reads only each line's first bytes (a native search finds
 * the line ends), whatever the chunk boundaries and line ends (`\n`, `\r\n`, `\r`); stops once it knows.
 */
import { endsBlock, nextTerminator } from './blocks.js';

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
/** Enough of a line to tell `data:` and a non-empty `id:`, after a byte-order mark opening the stream. */
const HEAD = 8;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const DATA = Buffer.from('data');
const ID = Buffer.from('id');
const LF_ID = Buffer.from('\nid');
const CR_ID = Buffer.from('\rid');
const I = 0x69;
const BOM_FIRST = 0xef;
const NO_BYTES = Buffer.alloc(0);

/**
 * `chunk` may hold an `id` line: one opens it (or a byte-order mark before it), or a line end precedes `id`. A
 * data line cannot hold a line end, so the usual chunk, whole events of JSON-RPC data, says no.
 */
function mayHoldId(chunk: Buffer): boolean {
  if (chunk[0] === I || chunk[0] === BOM_FIRST || chunk.indexOf(LF_ID) !== -1) return true;
  // CR line ends are rare: one byte's search says whether to look for `\rid` at all.
  return chunk.indexOf(CR) !== -1 && chunk.indexOf(CR_ID) !== -1;
}

export class EventIdWatch {
  #seen = false;
  /** The first bytes of the line under way, and its length so far. */
  #head: Buffer | undefined;
  #headBytes = 0;
  #lineBytes = 0;
  /** The previous byte was a CR: a LF now belongs to the same line end. */
  #afterCr = false;
  /** The line under way is the stream's first (a byte-order mark may open it). */
  #firstLine = true;
  /** The block under way has a `data:` line, and a non-empty id as its last `id:` says. */
  #data = false;
  #id = false;

  /** A dispatched event with an id went by. */
  get seen(): boolean {
    return this.#seen;
  }

  /** The next bytes of the stream, as the reader gets them. */
  feed(chunk: Buffer): void {
    if (this.#seen || chunk.length === 0) return;
    // The usual chunk: whole events without an id line, read at rest: at rest after it, nothing to read line by line.
    if (this.#atRest() && endsBlock(chunk) && !mayHoldId(chunk)) {
      this.#firstLine = false;
      return;
    }
    let i = 0;
    while (!this.#seen && i < chunk.length) {
      if (this.#afterCr) {
        this.#afterCr = false;
        if (chunk[i] === LF) {
          i++;
          continue;
        }
      }
      const next = nextTerminator(chunk, i);
      const stop = next === -1 ? chunk.length : next;
      if (this.#headBytes < HEAD) this.#headBytes += chunk.copy((this.#head ??= Buffer.alloc(HEAD)), this.#headBytes, i, Math.min(stop, i + HEAD - this.#headBytes));
      this.#lineBytes += stop - i;
      if (next === -1) return;
      this.#lineEnded();
      if (chunk[next] === CR) this.#afterCr = true;
      i = next + 1;
    }
  }

  /** Between blocks: no line under way, nothing of a block seen. */
  #atRest(): boolean {
    return this.#lineBytes === 0 && this.#headBytes === 0 && !this.#afterCr && !this.#data && !this.#id;
  }

  #lineEnded(): void {
    let head = this.#head === undefined ? NO_BYTES : this.#head.subarray(0, this.#headBytes);
    let length = this.#lineBytes;
    if (this.#firstLine && head.subarray(0, 3).equals(BOM)) {
      head = head.subarray(3);
      length -= 3;
    }
    this.#firstLine = false;
    this.#headBytes = 0;
    this.#lineBytes = 0;
    if (length === 0) {
      // A blank line dispatches the block (when it has data) and starts the next one.
      if (this.#data && this.#id) this.#seen = true;
      this.#data = false;
      this.#id = false;
      return;
    }
    if (isField(head, length, DATA)) this.#data = true;
    else if (isField(head, length, ID)) {
      // `id: x`: one space after the colon is not part of the value; `id` or `id:` alone empties it.
      const value = length - ID.length - 1 - (head[ID.length + 1] === SPACE ? 1 : 0);
      this.#id = value > 0;
    }
  }
}

/** The line (its first bytes `head`, `length` long) is field `name`: the name alone, or followed by a colon. */
function isField(head: Buffer, length: number, name: Buffer): boolean {
  if (!head.subarray(0, name.length).equals(name)) return false;
  return length === name.length || head[name.length] === 0x3a;
}
