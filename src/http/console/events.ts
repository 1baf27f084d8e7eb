/**
 * `GET /ui/api/events`: the console's live updates. One `tick` event at most once a TICK_MS, and only when
 * the console's sequence number moved since the last one sent; a keep-alive comment every KEEP_ALIVE_MS. At
 * most MAX_STREAMS streams; one timer for all of them, running only while one is open. Every stream, its
 * listener and the timer are freed when the client goes or close() ends them (the app's shutdown).
 */
import type { ServerResponse } from 'node:http';
import { RetrofitError } from '../../errors.js';
import { encodeEvent, KEEP_ALIVE } from '../../stream/sse-encode.js';
import { SSE_HEADERS, writeError } from '../write.js';

/** Most event streams open at once. */
export const MAX_STREAMS = 16;
/** Fastest ticks (ms). */
export const TICK_MS = 1_000;
/** Keep-alive comment interval (ms). */
export const KEEP_ALIVE_MS = 15_000;

/** A client stops writing to the stream: past this many bytes waiting, it gets nothing more until it reads. */
const MAX_BACKLOG = 64 * 1024;

export interface EventOptions {
  /** The number that moves when anything shown changed. */
  readonly seq: () => number;
  readonly now?: () => number;
  readonly tickMs?: number;
  readonly keepAliveMs?: number;
}

export class ConsoleEvents {
  readonly #options: EventOptions;
  readonly #streams = new Set<ServerResponse>();
  #timer: NodeJS.Timeout | undefined;
  #sent = -1;
  #quiet = 0;
  #closed = false;

  constructor(options: EventOptions) {
    this.#options = options;
  }

  /** Open streams. */
  get size(): number {
    return this.#streams.size;
  }

  /** Serve one stream on `res` (or refuse it: at the bound, or closing). */
  open(res: ServerResponse): void {
    if (this.#closed) return writeError(res, new RetrofitError('RETROFIT_ERR_SHUTTING_DOWN'));
    if (this.#streams.size >= MAX_STREAMS) return writeError(res, new RetrofitError('RETROFIT_ERR_UI_BUSY', [`${MAX_STREAMS} event streams are open`]));
    res.writeHead(200, SSE_HEADERS);
    // The page learns where things stand at once; later ticks only on change.
    res.write(this.#frame());
    this.#streams.add(res);
    res.once('close', () => this.#remove(res));
    const tickMs = this.#options.tickMs ?? TICK_MS;
    this.#timer ??= setInterval(() => this.#tick(), tickMs);
  }

  #frame(): Buffer {
    const seq = this.#options.seq();
    return encodeEvent({ event: 'tick' }, JSON.stringify({ at: (this.#options.now ?? Date.now)(), seq }));
  }

  #tick(): void {
    const seq = this.#options.seq();
    const tickMs = this.#options.tickMs ?? TICK_MS;
    this.#quiet += tickMs;
    let frame: Buffer | undefined;
    if (seq !== this.#sent) {
      this.#sent = seq;
      this.#quiet = 0;
      frame = this.#frame();
    } else if (this.#quiet >= (this.#options.keepAliveMs ?? KEEP_ALIVE_MS)) {
      this.#quiet = 0;
      frame = KEEP_ALIVE;
    }
    if (!frame) return;
    for (const res of this.#streams) if (res.writableLength <= MAX_BACKLOG) res.write(frame);
  }

  #remove(res: ServerResponse): void {
    this.#streams.delete(res);
    if (this.#streams.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** End every stream and refuse new ones (the gateway shuts down). */
  close(): void {
    this.#closed = true;
    for (const res of [...this.#streams]) {
      res.end();
      this.#remove(res);
    }
  }
}
