/**
 * Server-Sent Events framing, incrementally. `SseSplitter` cuts a byte stream into blocks (each ending with
 * the blank line that dispatches it) and keeps every block's exact bytes, so a proxy can forward what it
 * does not rewrite byte for byte — ids, `event:`, `retry:`, comments, empty priming events, multi-line data,
 * `\n` / `\r\n` / `\r` line ends — whatever the chunk boundaries. Follows the WHATWG parsing rules. The frames
 * the gateway writes itself are made in ./sse-encode.ts.
 *
 * A block past `sharedFrom` bytes (the size at which a message goes to a worker) is gathered in shared memory as
 * it comes (./held.ts), and its lines are not decoded from there on: its data comes back as bytes (`dataBytes`,
 * ./data-bytes.ts), however many lines the upstream split it over, so its consumer can check it in slices and
 * hand it to a worker without a copy.
 */
import { BlockScanner } from './blocks.js';
import { dataLines, joinedData } from './data-bytes.js';
import { dataHead, dataTail, ENDS } from './data-ends.js';
import { HeldBytes } from './held.js';

/** The ends of an over-long block's data (./data-ends.ts), for the relays that sniff one. */
export { dataHead, dataTail } from './data-ends.js';

const LF = 0x0a;
const CR = 0x0d;

/** One block of the stream: the raw bytes plus the fields parsed from them. */
export interface SseEvent {
  /** The exact bytes of this block, terminator included. Concatenating all `raw` gives the input back. */
  readonly raw: Buffer;
  /** `id:` (last one wins), if present. */
  readonly id?: string;
  /** `event:` type, if present. */
  readonly event?: string;
  /** `retry:` (digits only), if present. */
  readonly retry?: number;
  /** Each `data:` line's value, in order. */
  readonly data: readonly string[];
  /** Each comment line's text after the leading `:`. */
  readonly comments: readonly string[];
  /**
   * False for bytes that do not form a dispatched block: the `\n` of a `\r\n` split across chunks after an
   * event was already emitted, and an unterminated tail at end of stream.
   */
  readonly complete: boolean;
  /**
   * Set for a block over the splitter's `maxEventBytes`: it was dropped unread (raw is empty, no fields), and
   * only its size and both ends of its first `data:` value are kept — enough to find the JSON-RPC id of the
   * response it was (src/jsonrpc/sniff.ts).
   */
  readonly overlong?: { readonly bytes: number; readonly head: string; readonly tail: string };
  /**
   * Set for a complete block past the splitter's `sharedFrom` with data: its data lines' values joined with
   * "\n", as bytes (not decoded; `data` is then empty) — a view of `raw` for one line, a copy in shared memory
   * for several. A large block without data is decoded as usual.
   */
  readonly dataBytes?: Buffer;
}

/** Options for SseSplitter. */
export interface SseSplitterOptions {
  /**
   * Longest block kept (bytes): a longer one is discarded as it arrives, so memory stays within about this
   * bound plus one chunk, and reported as an `overlong` block. Default: unbounded.
   */
  readonly maxEventBytes?: number;
  /**
   * Bytes past which a block is gathered in shared memory and its lines are left undecoded (see `dataBytes`).
   * Default: never.
   */
  readonly sharedFrom?: number;
  /**
   * Asked once with the start of an over-long block's first `data:` value as the block passes `maxEventBytes`.
   * True: that says all the caller needs (the id of the answer it is: an upstream may never end the block, and
   * the request it answers should not wait its timeout for the blank line), so the block is reported at once,
   * with the ends seen so far, and not again when it ends. Absent or false: reported when it ends.
   */
  readonly reportEarly?: (head: string) => boolean;
}

/** An over-long block as reported: its size and the ends of its data, from its first and last bytes. */
function overlongBlock(headBytes: Buffer, tailBytes: Buffer, bytes: number): SseEvent {
  return { raw: Buffer.alloc(0), data: [], comments: [], complete: true, overlong: { bytes, head: dataHead(headBytes), tail: dataTail(tailBytes) } };
}

interface Discard {
  bytes: number;
  readonly head: Buffer;
  tail: Buffer;
  /** Reported already, as it passed the bound (reportEarly): its end only ends the discarding. */
  readonly reported: boolean;
  /** Where the block ends (its line ends crossed by a native search, not byte by byte). */
  readonly scanner: BlockScanner;
}

interface Fields {
  id?: string;
  event?: string;
  retry?: number;
  data: string[];
  comments: string[];
}

function emptyFields(): Fields {
  return { data: [], comments: [] };
}

export class SseSplitter {
  /** The bytes of the block under way. */
  readonly #raw: HeldBytes;
  #lineParts: Buffer[] = [];
  /** Bytes of the line under way so far. */
  #lineBytes = 0;
  /** The block under way is past `sharedFrom`: its lines are not kept apart from its bytes, nor decoded. */
  #blockUnread = false;
  /** The block under way opens the stream (a byte-order mark before it is the stream's). */
  #atStart = true;
  #fields: Fields = emptyFields();
  /** The previous byte was CR: a following LF belongs to the same line end. */
  #afterCr = false;
  /** The previous CR dispatched a block: a following LF is a lone fragment of it. */
  #dispatchedAtCr = false;
  #firstLine = true;
  readonly #max: number;
  readonly #sharedFrom: number;
  readonly #reportEarly: ((head: string) => boolean) | undefined;
  #discard: Discard | undefined;

  constructor(options: SseSplitterOptions = {}) {
    this.#max = options.maxEventBytes ?? Infinity;
    this.#sharedFrom = options.sharedFrom ?? Infinity;
    this.#reportEarly = options.reportEarly;
    this.#raw = new HeldBytes(this.#sharedFrom, this.#max);
  }

  /** Feed one chunk; returns the blocks it completed. */
  push(chunk: Buffer): SseEvent[] {
    const out: SseEvent[] = [];
    let from = 0;
    if (this.#discard) {
      from = this.#discarding(chunk, 0, out);
      if (this.#discard) return out;
    }
    this.#split(from === 0 ? chunk : chunk.subarray(from), out);
    return out;
  }

  #split(chunk: Buffer, out: SseEvent[]): void {
    let rawStart = 0;
    let lineStart = 0;
    // The next LF and CR at or after the current byte (-1: none left in the chunk; -2: not looked for yet): a
    // line's bytes are crossed by a native search, not one at a time (a 20 MB data line is one line).
    let nextLf = -2;
    let nextCr = -2;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (this.#afterCr) {
        this.#afterCr = false;
        if (b === LF) {
          if (this.#dispatchedAtCr) {
            out.push({ raw: chunk.subarray(i, i + 1), data: [], comments: [], complete: false });
            rawStart = i + 1;
          }
          this.#dispatchedAtCr = false;
          lineStart = i + 1;
          continue;
        }
      }
      this.#dispatchedAtCr = false;
      if (b !== LF && b !== CR) {
        if (nextLf !== -1 && nextLf < i) nextLf = chunk.indexOf(LF, i);
        if (nextCr !== -1 && nextCr < i) nextCr = chunk.indexOf(CR, i);
        const next = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
        if (next === -1) break;
        i = next - 1;
        continue;
      }
      let end = i + 1;
      if (b === CR) {
        // Look ahead inside the chunk so a \r\n terminator stays with its block; at the chunk's end, remember.
        if (end < chunk.length) {
          if (chunk[end] === LF) end++;
        } else {
          this.#afterCr = true;
        }
      }
      const line = this.#lineEnded(chunk.subarray(lineStart, i), this.#raw.length + end - rawStart);
      lineStart = end;
      if (line === '') {
        this.#raw.push(chunk.subarray(rawStart, end));
        out.push(this.#dispatch(true));
        rawStart = end;
        if (this.#afterCr) this.#dispatchedAtCr = true;
      } else if (line !== undefined) {
        this.#field(line);
      }
      i = end - 1;
    }
    if (rawStart < chunk.length) this.#raw.push(chunk.subarray(rawStart));
    if (this.#raw.length > this.#sharedFrom) this.#unread();
    if (lineStart < chunk.length) this.#lineContinues(chunk.subarray(lineStart));
    if (this.#raw.length > this.#max) this.#startDiscard(out);
  }

  /** The block being assembled is over the bound: keep its first bytes, drop the rest as it comes. */
  #startDiscard(out: SseEvent[]): void {
    // The discard tracks line ends itself from here; the splitter's own state starts afresh after it.
    this.#afterCr = false;
    this.#dispatchedAtCr = false;
    const raw = this.#raw;
    const tail = Buffer.from(raw.tail(ENDS));
    const last = tail[tail.length - 1];
    const head = Buffer.from(raw.head(ENDS * 4));
    const reported = this.#reportEarly?.(dataHead(head)) === true;
    if (reported) out.push(overlongBlock(head, tail, raw.length));
    this.#discard = { bytes: raw.length, head, tail, reported, scanner: BlockScanner.inBlockAfter(last) };
    raw.clear();
    this.#resetLine();
    this.#blockUnread = false;
    this.#atStart = false;
    this.#fields = emptyFields();
  }

  #consume(piece: Buffer): void {
    const d = this.#discard!;
    d.bytes += piece.length;
    const joined = piece.length >= ENDS ? piece : Buffer.concat([d.tail, piece]);
    d.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - ENDS)));
  }

  /** Skip bytes of a discarded block up to its blank line; returns where normal splitting resumes. */
  #discarding(chunk: Buffer, start: number, out: SseEvent[]): number {
    const end = this.#discard!.scanner.end(chunk, start);
    if (end === -1) {
      this.#consume(chunk.subarray(start));
      return chunk.length;
    }
    // The block ends here (a \r\n terminator's \n taken with it when it is in this chunk).
    this.#consume(chunk.subarray(start, end));
    const overlong = this.#overlong();
    if (overlong) out.push(overlong);
    // A CR ending the chunk: a LF opening the next one belongs to it, a lone fragment of this block.
    if (end === chunk.length && chunk[end - 1] === CR) {
      this.#afterCr = true;
      this.#dispatchedAtCr = true;
    }
    return end;
  }

  /** The discarded block, ended: its report, unless it was reported early. */
  #overlong(): SseEvent | undefined {
    const d = this.#discard!;
    this.#discard = undefined;
    return d.reported ? undefined : overlongBlock(d.head, d.tail, d.bytes);
  }

  /** End of stream: an unterminated tail comes back as an incomplete block (never dispatched by clients). */
  end(): SseEvent[] {
    if (this.#discard) {
      this.#discard = undefined;
      return [];
    }
    if (this.#raw.length === 0) return [];
    this.#resetLine();
    return [this.#dispatch(false)];
  }

  /** More of the line under way (its end is in a later chunk). */
  #lineContinues(piece: Buffer): void {
    this.#lineBytes += piece.length;
    if (!this.#blockUnread) this.#lineParts.push(piece);
  }

  /** The block under way passed `sharedFrom`: it is read from its bytes when it ends (unreadBlock). */
  #unread(): void {
    this.#blockUnread = true;
    // Held once, in the block's bytes: parts kept here as well would keep their chunks alive beside the copy.
    this.#lineParts = [];
  }

  /**
   * The line under way ended with `tail`, its block `blockBytes` long with its line end: its text; in a block
   * past `sharedFrom`, '' for the blank line that ends it and undefined for any other (left unread).
   */
  #lineEnded(tail: Buffer, blockBytes: number): string | undefined {
    if (this.#blockUnread || blockBytes > this.#sharedFrom) {
      const blank = this.#lineBytes + tail.length === 0;
      this.#blockUnread = true;
      this.#resetLine();
      this.#firstLine = false;
      return blank ? '' : undefined;
    }
    return this.#takeLine(tail);
  }

  #resetLine(): void {
    this.#lineParts = [];
    this.#lineBytes = 0;
  }

  #takeLine(tail: Buffer): string {
    const parts = this.#lineParts;
    this.#resetLine();
    let text = (parts.length === 0 ? tail : Buffer.concat([...parts, tail])).toString('utf8');
    if (this.#firstLine) {
      this.#firstLine = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    return text;
  }

  #field(line: string): void {
    const f = this.#fields;
    if (line.startsWith(':')) {
      f.comments.push(line.slice(1));
      return;
    }
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (name) {
      case 'data':
        f.data.push(value);
        break;
      case 'event':
        f.event = value;
        break;
      case 'id':
        if (!value.includes('\u0000')) f.id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) f.retry = Number(value);
        break;
      default:
        break;
    }
  }

  #dispatch(complete: boolean): SseEvent {
    const raw = this.#raw.take();
    const f = this.#fields;
    const unread = this.#blockUnread;
    const atStart = this.#atStart;
    this.#fields = emptyFields();
    this.#blockUnread = false;
    if (atStart) this.#atStart = false;
    // Over the bound however the chunks fell (it may have completed inside one): over the bound.
    if (complete && raw.length > this.#max) return overlongBlock(raw.subarray(0, ENDS * 4), raw.subarray(-ENDS * 2), raw.length);
    if (unread) return unreadBlock(raw, complete, atStart);
    return {
      raw,
      data: f.data,
      comments: f.comments,
      complete,
      ...(f.id !== undefined && { id: f.id }),
      ...(f.event !== undefined && { event: f.event }),
      ...(f.retry !== undefined && { retry: f.retry }),
    };
  }
}

/**
 * A large block's data as bytes (the values of its data lines joined with "\n": ./data-bytes.ts), not decoded,
 * with its other fields parsed as parseBlock parses them (the event's `data` then empty). For large events,
 * whose data goes to a worker as it is. Undefined when the block has no data line, or is not one dispatched
 * block. `atStart`: the block opens its stream (as parseBlock takes any block it is given).
 */
export function parseLargeBlock(raw: Buffer, atStart = true): { readonly event: SseEvent; readonly data: Buffer } | undefined {
  const lines = dataLines(raw, atStart);
  if (!lines) return undefined;
  const rest = parseBlock(lines.rest);
  if (!rest.complete || rest.raw.length !== lines.rest.length || rest.data.length > 0) return undefined;
  return { event: { ...rest, raw }, data: joinedData(lines.values) };
}

/**
 * A block past `sharedFrom`: its data as bytes, or, without data, parsed whole (decoded, as every block once
 * was). An incomplete one (a tail cut short) has no fields anyone reads.
 */
function unreadBlock(raw: Buffer, complete: boolean, atStart: boolean): SseEvent {
  if (!complete) return { raw, data: [], comments: [], complete };
  const large = parseLargeBlock(raw, atStart);
  return large ? { ...large.event, dataBytes: large.data } : parseBlock(raw);
}

/** The fields of one complete block (its raw bytes, as a relay collected them). */
export function parseBlock(raw: Buffer): SseEvent {
  return new SseSplitter().push(raw)[0] ?? { raw, data: [], comments: [], complete: false };
}
