/**
 * The last lines a child wrote to stderr, bounded in lines and characters, for error messages ("exited (code 1):
 * Error: REDIS_URL is not set"). Each line is passed through the caller's redaction before it is kept, so a
 * secret the child echoes never reaches an error, a log line or a terminal. The unterminated last line counts
 * too: a child that hangs on a prompt (`Password: `) says so without a newline.
 */
import { StringDecoder } from 'node:string_decoder';

/** Bounds and redaction of a StderrTail. */
export interface StderrTailOptions {
  /** Most lines kept (default 20). */
  readonly maxLines?: number;
  /** Most characters kept, all lines together (default 4096: 4 KiB of ASCII). */
  readonly maxChars?: number;
  /** Applied to every line before it is kept (e.g. the config's secret scrubber). */
  readonly redact?: (line: string) => string;
}

/** Lines kept by default: enough for an error message and a few lines of context before it. */
export const DEFAULT_TAIL_LINES = 20;
/** Characters kept by default, all lines together. */
export const DEFAULT_TAIL_CHARS = 4096;

/** Collects a stream's text and keeps only its end. */
export class StderrTail {
  readonly #maxLines: number;
  readonly #maxChars: number;
  readonly #redact: (line: string) => string;
  readonly #decoder = new StringDecoder('utf8');
  #lines: string[] = [];
  #chars = 0;
  /** The text after the last newline, raw (redacted when read, as a secret may still be arriving). */
  #partial = '';

  constructor(options: StderrTailOptions = {}) {
    this.#maxLines = Math.max(1, options.maxLines ?? DEFAULT_TAIL_LINES);
    this.#maxChars = Math.max(1, options.maxChars ?? DEFAULT_TAIL_CHARS);
    this.#redact = options.redact ?? ((line) => line);
  }

  /** Feed a chunk; returns the complete lines it finished (redacted), for callers that also log them. */
  push(chunk: Buffer | string): string[] {
    const text = this.#partial + (typeof chunk === 'string' ? chunk : this.#decoder.write(chunk));
    const pieces = text.split('\n');
    // Bounded even without a newline: a child writing megabytes on one line keeps only its end.
    this.#partial = (pieces.pop() ?? '').slice(-this.#maxChars * 2);
    const done: string[] = [];
    for (const piece of pieces) {
      const line = this.#redact(piece.endsWith('\r') ? piece.slice(0, -1) : piece);
      if (line.trim() === '') continue;
      done.push(line);
      this.#keep(line);
    }
    return done;
  }

  /** The stream ended: the unterminated last line becomes a line of its own. */
  end(): string[] {
    const rest = this.#decoder.end();
    const out = rest === '' ? [] : this.push(rest);
    const last = this.#partial;
    this.#partial = '';
    if (last.trim() === '') return out;
    const line = this.#redact(last);
    this.#keep(line);
    return [...out, line];
  }

  /** The kept lines (and the unterminated one), oldest first, joined by `\n`; empty when nothing was written. */
  text(): string {
    const partial = this.#partial.trim() === '' ? [] : [this.#redact(this.#partial)];
    const all = [...this.#lines, ...partial].join('\n');
    return all.length > this.#maxChars ? all.slice(-this.#maxChars) : all;
  }

  #keep(line: string): void {
    const kept = line.length > this.#maxChars ? line.slice(-this.#maxChars) : line;
    this.#lines.push(kept);
    this.#chars += kept.length + 1;
    while (this.#lines.length > this.#maxLines || (this.#chars > this.#maxChars + 1 && this.#lines.length > 1)) {
      this.#chars -= (this.#lines.shift() ?? '').length + 1;
    }
  }
}
