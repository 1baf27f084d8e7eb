/**
 * The fault clients' SSE reader: events as they complete, each with the exact bytes it arrived in (for the
 * byte-exact comparison of proxied streams) and its fields. Lines end in LF, CRLF or CR, as the SSE standard
 * allows (a CR that ends a chunk may be half of a CRLF). Bounded: an event past MAX_EVENT_BYTES is read to
 * its end but kept only as its size (`overlong`), so an upstream's endless event passed on by the gateway
 * cannot exhaust the suite.
 */

export interface SseEvent {
  /** The event's bytes as received, its blank line included (empty when overlong). */
  readonly raw: Buffer;
  readonly event?: string;
  readonly id?: string;
  /** The data lines joined with LF; undefined when the event had none (comments, `retry:` only) or was overlong. */
  readonly data?: string;
  /** Its size, when it was too large to keep. */
  readonly overlong?: number;
}

/** Largest event kept whole. */
const MAX_EVENT_BYTES = 8 * 1024 * 1024;

export class SseReader {
  /** The current event's bytes so far (up to MAX_EVENT_BYTES), and its size. */
  #raw: Buffer[] = [];
  #size = 0;
  /** The current line's bytes so far. */
  #line: Buffer[] = [];
  #lineSize = 0;
  /** The last chunk ended in CR: an LF first in the next one belongs to it. */
  #cr = false;
  #fields: { event?: string; id?: string; data?: string[] } = {};

  /** Feed bytes; returns the events they completed. */
  push(chunk: Buffer): SseEvent[] {
    const out: SseEvent[] = [];
    let start = 0;
    if (this.#cr && chunk[0] === 0x0a) {
      this.#keep(chunk.subarray(0, 1));
      start = 1;
    }
    this.#cr = false;
    while (start < chunk.length) {
      let end = start;
      while (end < chunk.length && chunk[end] !== 0x0a && chunk[end] !== 0x0d) end++;
      if (end === chunk.length) {
        this.#keep(chunk.subarray(start));
        this.#addToLine(chunk.subarray(start));
        break;
      }
      // A line ends at `end`: CRLF, CR or LF.
      let next = end + 1;
      if (chunk[end] === 0x0d) {
        if (next < chunk.length && chunk[next] === 0x0a) next++;
        else if (next === chunk.length) this.#cr = true;
      }
      this.#keep(chunk.subarray(start, next));
      this.#addToLine(chunk.subarray(start, end));
      const event = this.#endLine();
      if (event) out.push(event);
      start = next;
    }
    return out;
  }

  #keep(bytes: Buffer): void {
    if (this.#size + bytes.length <= MAX_EVENT_BYTES) this.#raw.push(Buffer.from(bytes));
    this.#size += bytes.length;
  }

  #addToLine(bytes: Buffer): void {
    if (this.#lineSize + bytes.length <= MAX_EVENT_BYTES) this.#line.push(Buffer.from(bytes));
    this.#lineSize += bytes.length;
  }

  #endLine(): SseEvent | undefined {
    const overlong = this.#size > MAX_EVENT_BYTES;
    const line = this.#lineSize > MAX_EVENT_BYTES ? undefined : Buffer.concat(this.#line).toString('utf8');
    this.#line = [];
    this.#lineSize = 0;
    if (line !== '') {
      if (line !== undefined && !overlong) this.#field(line);
      return undefined;
    }
    const { event, id, data } = this.#fields;
    const done: SseEvent = overlong
      ? { raw: Buffer.alloc(0), overlong: this.#size }
      : { raw: Buffer.concat(this.#raw), ...(event !== undefined && { event }), ...(id !== undefined && { id }), ...(data && { data: data.join('\n') }) };
    this.#fields = {};
    this.#raw = [];
    this.#size = 0;
    return done;
  }

  #field(line: string): void {
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') (this.#fields.data ??= []).push(value);
    else if (name === 'event') this.#fields.event = value;
    else if (name === 'id') this.#fields.id = value;
  }
}

/** Every JSON-RPC message in a complete body of the given content type (JSON, or SSE events' data). */
export function parseJsonMessages(text: string): Record<string, unknown>[] {
  try {
    const value: unknown = JSON.parse(text);
    const list = Array.isArray(value) ? value : [value];
    return list.filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null && !Array.isArray(m));
  } catch {
    return [];
  }
}
