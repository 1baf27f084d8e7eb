/**
 * NDJSON framing for stdio upstreams: one JSON-RPC message per line. Pure and synchronous so it can be
 * unit-tested byte by byte. Lines are bounded: a line longer than `maxLineBytes` is dropped (never
 * truncated into invalid JSON) and reported with its first and last bytes, so the caller can still find
 * the JSON-RPC id of an over-long response (src/jsonrpc/sniff.ts) and fail the pending request.
 */

/** A dropped over-long line: its total size and bounded samples of both ends. */
export interface OverlongLine {
  /** Total bytes in the line (without the terminator). */
  readonly bytes: number;
  /** The first bytes of the line (at most `sampleBytes`), decoded as UTF-8. */
  readonly head: string;
  /** The last bytes of the line (at most `sampleBytes`), decoded as UTF-8. */
  readonly tail: string;
}

export interface LineSplitterOptions {
  /** Longest accepted line in bytes. */
  readonly maxLineBytes: number;
  /** Called once per complete line (without `\n` or a trailing `\r`); empty lines are skipped. */
  readonly onLine: (line: string) => void;
  /** Called once per dropped over-long line, when its terminator arrives (or at `end`). */
  readonly onOverlong: (line: OverlongLine) => void;
  /** How many bytes of each end of an over-long line to keep; default 256. */
  readonly sampleBytes?: number;
}

export interface LineSplitter {
  /** Feed the next chunk of the stream. */
  push(chunk: Buffer): void;
  /** The stream ended: flush a final unterminated line. */
  end(): void;
}

const NL = 0x0a;
const CR = 0x0d;

/** Create a splitter; it keeps at most `maxLineBytes` (plus one chunk) buffered at any time. */
export function createLineSplitter(options: LineSplitterOptions): LineSplitter {
  const { maxLineBytes, onLine, onOverlong } = options;
  const sample = options.sampleBytes ?? 256;
  let parts: Buffer[] = [];
  let size = 0;
  // While discarding an over-long line we keep only its head, a rolling tail and the byte count.
  let overlong: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  const emit = (line: Buffer): void => {
    const end = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
    if (end === 0) return;
    onLine(line.toString('utf8', 0, end));
  };

  const finishOverlong = (): void => {
    if (!overlong) return;
    let tail = overlong.tail;
    let bytes = overlong.bytes;
    if (tail.length > 0 && tail[tail.length - 1] === CR) {
      tail = tail.subarray(0, tail.length - 1);
      bytes -= 1;
    }
    tail = tail.subarray(Math.max(0, tail.length - sample));
    onOverlong({ bytes, head: overlong.head.toString('utf8'), tail: tail.toString('utf8') });
    overlong = undefined;
  };

  const discard = (piece: Buffer): void => {
    if (!overlong) return;
    overlong.bytes += piece.length;
    const joined = piece.length > sample ? piece : Buffer.concat([overlong.tail, piece]);
    // One extra byte: a final \r is stripped before the tail is reported.
    overlong.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - sample - 1)));
  };

  const startOverlong = (): void => {
    const all = Buffer.concat(parts, size);
    overlong = { bytes: 0, head: Buffer.from(all.subarray(0, sample)), tail: Buffer.alloc(0) };
    discard(all);
    parts = [];
    size = 0;
  };

  const append = (piece: Buffer): void => {
    if (piece.length === 0) return;
    if (overlong) return discard(piece);
    parts.push(piece);
    size += piece.length;
    // A trailing \r may belong to a \r\n terminator, so allow one byte of slack before giving up.
    if (size > maxLineBytes + 1) startOverlong();
  };

  const completeLine = (): void => {
    if (overlong) return finishOverlong();
    const line = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    const end = line.length > 0 && line[line.length - 1] === CR ? line.length - 1 : line.length;
    if (end > maxLineBytes) {
      onOverlong({ bytes: end, head: line.toString('utf8', 0, Math.min(sample, end)), tail: line.toString('utf8', Math.max(0, end - sample), end) });
      return;
    }
    emit(line);
  };

  return {
    push(chunk) {
      let start = 0;
      for (let nl = chunk.indexOf(NL, start); nl !== -1; nl = chunk.indexOf(NL, start)) {
        append(chunk.subarray(start, nl));
        completeLine();
        start = nl + 1;
      }
      // Copy the remainder: the caller's chunk buffer may be reused.
      if (start < chunk.length) append(Buffer.from(chunk.subarray(start)));
    },
    end() {
      if (overlong || size > 0) completeLine();
    },
  };
}
