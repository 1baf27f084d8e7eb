/**
 * NDJSON framing for stdio upstreams: one JSON-RPC message per line. Pure and synchronous so it can be
 * unit-tested byte by byte. Lines are bounded: a line longer than `maxLineBytes` is dropped (never
 * truncated into invalid JSON) and reported with its first and last bytes, so the caller can still find
 * the JSON-RPC id of an over-long response (src/jsonrpc/sniff.ts) and fail the pending request. A line whose
 * head already names what the caller needs is reported as it passes the bound (`reportEarly`): a child may
 * never end it, and the request it answers should not wait its whole timeout for a terminator.
 */
import { OFFLOAD_BYTES } from '../pipeline/offload/plan.js';
import { HeldBytes } from '../stream/held.js';

/** A dropped over-long line: its size and bounded samples of both ends. */
export interface OverlongLine {
  /** Total bytes in the line (without the terminator); when not `complete`, the bytes that had come. */
  readonly bytes: number;
  /** The first bytes of the line (at most `sampleBytes`), decoded as UTF-8. */
  readonly head: string;
  /** The last bytes of the line (at most `sampleBytes`), decoded as UTF-8; when not `complete`, of those come so far. */
  readonly tail: string;
  /** False when reported as it passed the bound (`reportEarly`), before its terminator. */
  readonly complete: boolean;
}

export interface LineSplitterOptions {
  /** Longest accepted line in bytes. */
  readonly maxLineBytes: number;
  /** Called once per complete line (without `\n` or a trailing `\r`); empty lines are skipped. */
  readonly onLine: (line: string) => void;
  /** Called once per dropped over-long line: when its terminator arrives (or at `end`), or early (`reportEarly`). */
  readonly onOverlong: (line: OverlongLine) => void;
  /**
   * Asked once with the head of a line (`sampleBytes`, decoded) as it passes the bound. True: the head says all
   * the caller needs (the id of the answer it is), so the line is reported at once, not incomplete, and the rest
   * of it is still discarded up to its terminator without another report. Absent or false: reported at its end.
   */
  readonly reportEarly?: (head: string) => boolean;
  /** How many bytes of each end of an over-long line to keep; default 256. */
  readonly sampleBytes?: number;
  /** Bytes of a line past which it is gathered in shared memory (default OFFLOAD_BYTES; tests go lower). */
  readonly sharedFrom?: number;
  /**
   * When given, a line gathered in shared memory (longer than `sharedFrom`) comes here as its bytes, a view of
   * that memory, instead of to `onLine` decoded: a worker can take it without a copy, and no step on the event
   * loop decodes it whole. The view is the caller's: the splitter never writes to it again.
   */
  readonly onLargeLine?: (line: Buffer) => void;
}

export interface LineSplitter {
  /** Feed the next chunk of the stream. */
  push(chunk: Buffer): void;
  /** The stream ended: flush a final unterminated line. */
  end(): void;
}


const NL = 0x0a;
const CR = 0x0d;

/**
 * Create a splitter; it keeps at most `maxLineBytes` (plus one chunk) buffered at any time. A line past the
 * size at which a result goes to a worker is gathered in shared memory as it comes (src/stream/held.ts): never
 * joined in one step on the event loop.
 */
export function createLineSplitter(options: LineSplitterOptions): LineSplitter {
  const { maxLineBytes, onLine, onOverlong, onLargeLine, reportEarly } = options;
  const sample = options.sampleBytes ?? 256;
  const sharedFrom = options.sharedFrom ?? OFFLOAD_BYTES;
  // One byte of slack: a trailing \r may belong to a \r\n terminator.
  const line = new HeldBytes(sharedFrom, maxLineBytes + 1);
  // While discarding an over-long line we keep only its head, a rolling tail and the byte count, and whether
  // it was already reported (early): then its terminator only ends the discarding.
  let overlong: { bytes: number; head: Buffer; tail: Buffer; reported: boolean } | undefined;

  const emit = (line: Buffer): void => {
    const end = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
    if (end === 0) return;
    // Only a line in shared memory is the caller's to keep (a line of one chunk may be a view of that chunk).
    if (onLargeLine && end > sharedFrom && line.buffer instanceof SharedArrayBuffer) onLargeLine(line.subarray(0, end));
    else onLine(line.toString('utf8', 0, end));
  };

  const finishOverlong = (): void => {
    if (!overlong) return;
    if (overlong.reported) {
      overlong = undefined;
      return;
    }
    let tail = overlong.tail;
    let bytes = overlong.bytes;
    if (tail.length > 0 && tail[tail.length - 1] === CR) {
      tail = tail.subarray(0, tail.length - 1);
      bytes -= 1;
    }
    tail = tail.subarray(Math.max(0, tail.length - sample));
    const head = overlong.head.toString('utf8');
    overlong = undefined;
    onOverlong({ bytes, head, tail: tail.toString('utf8'), complete: true });
  };

  const discard = (piece: Buffer): void => {
    if (!overlong || overlong.reported) return;
    overlong.bytes += piece.length;
    const joined = piece.length > sample ? piece : Buffer.concat([overlong.tail, piece]);
    // One extra byte: a final \r is stripped before the tail is reported.
    overlong.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - sample - 1)));
  };

  const startOverlong = (): void => {
    // One extra byte of tail: a final \r is stripped before the tail is reported.
    const started = { bytes: line.length, head: Buffer.from(line.head(sample)), tail: Buffer.from(line.tail(sample + 1)), reported: false };
    overlong = started;
    line.clear();
    const head = started.head.toString('utf8');
    if (!reportEarly?.(head)) return;
    // Marked first: whatever the callback does, the terminator must not report the line again.
    started.reported = true;
    onOverlong({ bytes: started.bytes, head, tail: started.tail.subarray(Math.max(0, started.tail.length - sample)).toString('utf8'), complete: false });
  };

  /** Part of the line under way; `reused`: the caller's chunk may change after (it is copied). */
  const append = (piece: Buffer, reused: boolean): void => {
    if (piece.length === 0) return;
    if (overlong) return discard(piece);
    if (reused) line.pushCopy(piece);
    else line.push(piece);
    // A trailing \r may belong to a \r\n terminator, so allow one byte of slack before giving up.
    if (line.length > maxLineBytes + 1) startOverlong();
  };

  const completeLine = (): void => {
    if (overlong) return finishOverlong();
    const whole = line.take();
    const end = whole.length > 0 && whole[whole.length - 1] === CR ? whole.length - 1 : whole.length;
    if (end > maxLineBytes) {
      onOverlong({ bytes: end, head: whole.toString('utf8', 0, Math.min(sample, end)), tail: whole.toString('utf8', Math.max(0, end - sample), end), complete: true });
      return;
    }
    emit(whole);
  };

  return {
    push(chunk) {
      let start = 0;
      for (let nl = chunk.indexOf(NL, start); nl !== -1; nl = chunk.indexOf(NL, start)) {
        // Taken before this call returns: not copied unless held in shared memory.
        append(chunk.subarray(start, nl), false);
        completeLine();
        start = nl + 1;
      }
      // The remainder waits for a later chunk: the caller's chunk buffer may be reused.
      if (start < chunk.length) append(chunk.subarray(start), true);
    },
    end() {
      if (overlong || line.length > 0) completeLine();
    },
  };
}
