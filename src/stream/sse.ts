/**
 * Server-Sent Events framing, incrementally. `SseSplitter` cuts a byte stream into blocks (each ending with
 * the blank line that dispatches it) and keeps every block's exact bytes, so a proxy can forward what it
 * does not rewrite byte for byte — ids, `event:`, `retry:`, comments, empty priming events, multi-line data,
 * `\n` / `\r\n` / `\r` line ends — whatever the chunk boundaries. Follows the WHATWG parsing rules.
 */

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
  #rawParts: Buffer[] = [];
  #lineParts: Buffer[] = [];
  #fields: Fields = emptyFields();
  /** The previous byte was CR: a following LF belongs to the same line end. */
  #afterCr = false;
  /** The previous CR dispatched a block: a following LF is a lone fragment of it. */
  #dispatchedAtCr = false;
  #firstLine = true;

  /** Feed one chunk; returns the blocks it completed. */
  push(chunk: Buffer): SseEvent[] {
    const out: SseEvent[] = [];
    let rawStart = 0;
    let lineStart = 0;
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
      if (b !== LF && b !== CR) continue;
      const line = this.#takeLine(chunk.subarray(lineStart, i));
      let end = i + 1;
      if (b === CR) {
        // Look ahead inside the chunk so a \r\n terminator stays with its block; at the chunk's end, remember.
        if (end < chunk.length) {
          if (chunk[end] === LF) end++;
        } else {
          this.#afterCr = true;
        }
      }
      lineStart = end;
      if (line.length === 0) {
        this.#rawParts.push(chunk.subarray(rawStart, end));
        out.push(this.#dispatch(true));
        rawStart = end;
        if (this.#afterCr) this.#dispatchedAtCr = true;
      } else {
        this.#field(line);
      }
      i = end - 1;
    }
    if (rawStart < chunk.length) this.#rawParts.push(chunk.subarray(rawStart));
    if (lineStart < chunk.length) this.#lineParts.push(chunk.subarray(lineStart));
    return out;
  }

  /** End of stream: an unterminated tail comes back as an incomplete block (never dispatched by clients). */
  end(): SseEvent[] {
    if (this.#rawParts.length === 0) return [];
    this.#lineParts = [];
    return [this.#dispatch(false)];
  }

  #takeLine(tail: Buffer): string {
    const parts = this.#lineParts;
    this.#lineParts = [];
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
    const raw = this.#rawParts.length === 1 ? this.#rawParts[0]! : Buffer.concat(this.#rawParts);
    const f = this.#fields;
    this.#rawParts = [];
    this.#fields = emptyFields();
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
 * Serialise an event with new data, keeping its comments, `event`, `id` and `retry`. Used only for events
 * the gateway rewrote; everything else is forwarded as `raw`.
 */
export function serializeEvent(event: Pick<SseEvent, 'id' | 'event' | 'retry' | 'comments'>, data: string): Buffer {
  let text = '';
  for (const comment of event.comments) text += `:${comment}\n`;
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`;
  for (const line of data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return Buffer.from(`${text}\n`, 'utf8');
}
