/**
 * Framing of the fault upstreams' SSE events and NDJSON lines, and the writes under backpressure that
 * every upstream transport shares.
 */
import type { Writable } from 'node:stream';
import type { Framing } from './directive.js';

const PLAIN: Framing = Object.freeze({ ids: false, preamble: false, multiline: false, crlf: false });

/** Byte offsets just after each `,` outside JSON strings: where a line break is plain whitespace. */
function breakpoints(json: Buffer): number[] {
  const out: number[] = [];
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x2c) out.push(i + 1);
  }
  return out;
}

/** SSE events framed as `framing` asks: `event: message`, maybe `id:`, one or more `data:` lines. */
export class SseFramer {
  readonly #framing: Framing;
  readonly #eol: string;
  #seq = 0;

  constructor(framing: Framing = PLAIN) {
    this.#framing = framing;
    this.#eol = framing.crlf ? '\r\n' : '\n';
  }

  /** What goes before the first event (a comment and `retry:`), if anything. */
  preamble(): Buffer {
    return this.#framing.preamble ? Buffer.from(`: fault upstream${this.#eol}retry: 1500${this.#eol}${this.#eol}`) : Buffer.alloc(0);
  }

  get opening(): Buffer {
    return Buffer.from(`event: message${this.#eol}data: `);
  }

  get closing(): Buffer {
    return Buffer.from(`${this.#eol}${this.#eol}`);
  }

  frame(json: Buffer): Buffer {
    const eol = this.#eol;
    const head = `event: message${eol}${this.#framing.ids ? `id: ${++this.#seq}${eol}` : ''}`;
    const parts: Buffer[] = [Buffer.from(head)];
    let start = 0;
    if (this.#framing.multiline) {
      // A break every third comma outside strings: several data lines that join back into the same JSON value.
      const points = breakpoints(json).filter((_, i) => i % 3 === 2);
      for (const at of points) {
        parts.push(Buffer.from('data: '), json.subarray(start, at), Buffer.from(eol));
        start = at;
      }
    }
    parts.push(Buffer.from('data: '), json.subarray(start), Buffer.from(`${eol}${eol}`));
    return Buffer.concat(parts);
  }
}

/** One NDJSON line. */
export function ndjsonLine(json: Buffer): Buffer {
  return Buffer.concat([json, Buffer.from('\n')]);
}

/** Write, and resolve once the bytes are taken (after a drain when backed up) or the stream is gone. */
export function writeWithPressure(stream: Writable, bytes: Buffer): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve();
  if (stream.write(bytes)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/** Read a request body whole (the upstreams trust the gateway to bound it; this bounds it again). */
export function readBody(stream: NodeJS.ReadableStream, limit = 16 * 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
    // A peer that went away mid-body: 'close' without 'end' (after 'end' this is a no-op).
    stream.once('close', () => reject(new Error('the body ended early')));
  });
}
