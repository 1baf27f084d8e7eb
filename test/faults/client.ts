/**
 * A raw HTTP exchange with the gateway (node:http, on the session's keep-alive agent), driven the way a fault needs:
 * a body trickled or stalled (slowloris), `Expect: 100-continue`, a response read slowly, a client that
 * vanishes mid-stream. It records everything: status, headers, the body's bytes, SSE events with their
 * raw bytes, every JSON-RPC message, and how the exchange ended.
 */
import { request, type Agent, type IncomingHttpHeaders } from 'node:http';
import { parseJsonMessages, SseReader, type SseEvent } from './sse-parse.js';

export type Message = Record<string, unknown>;

/** How an exchange ended. */
export type Ending =
  /** The response ended normally. */
  | 'complete'
  /** Headers came, then the connection was cut before the response ended. */
  | 'cut'
  /** The connection ended before any response headers. */
  | 'no-response'
  /** The client left on purpose. */
  | 'vanished'
  /** The client's deadline passed with the exchange still open. */
  | 'hung';

export interface ExchangeOptions {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly url: string;
  /** The session's keep-alive agent (default: a connection of its own). */
  readonly agent?: Agent;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  /** Send the body in pieces of `chunk` bytes every `gapMs`; with `stallAfter`, stop sending after that many bytes. */
  readonly trickle?: { readonly chunk: number; readonly gapMs: number; readonly stallAfter?: number };
  /** Send `Expect: 100-continue` and the body only once the server says continue (or answers). */
  readonly expectContinue?: boolean;
  /** Read nothing for `pauseMs` after the headers, then take one chunk every `gapMs`. */
  readonly slowRead?: { readonly pauseMs: number; readonly gapMs: number };
  /** Leave (destroy the connection) once the request is sent, at the first SSE event, after `bytes` of body, or `ms` after the headers. */
  readonly vanish?: { readonly at: 'sent' | 'first-event' | 'bytes' | 'time'; readonly bytes?: number; readonly ms?: number };
  /** Give up after this long (ms): the exchange ends `hung`. */
  readonly deadlineMs: number;
  /** Called with each SSE event as it completes (a legacy stream's endpoint, answers). */
  readonly onEvent?: (event: SseEvent, exchange: Exchange) => void;
  /** Read the body and let it go (only its size is kept; events only reach `onEvent`): a stream nobody compares. */
  readonly discard?: boolean;
}

/** Most body bytes an exchange keeps (what comes after is counted, not kept). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export class Exchange {
  status: number | undefined;
  headers: IncomingHttpHeaders | undefined;
  readonly body: Buffer[] = [];
  /** Body bytes received (kept or not). */
  received = 0;
  readonly events: SseEvent[] = [];
  /** Every JSON-RPC message received (a JSON body's, or each SSE event's data). */
  readonly messages: Message[] = [];
  ending: Ending | undefined;
  error: string | undefined;
  /** performance.now() when it started. */
  readonly startedAt = performance.now();
  /** Resolves when the exchange ended, however. */
  readonly done: Promise<Ending>;
  /** Resolves once the response's headers came (or the exchange ended without them). */
  readonly responded: Promise<void>;
  #leave: () => void = () => {};
  #responded: () => void = () => {};

  constructor(options: ExchangeOptions) {
    this.responded = new Promise((resolve) => (this.#responded = resolve));
    this.done = new Promise((resolve) => this.#run(options, resolve));
    void this.done.then(() => this.#responded());
  }

  get sse(): boolean {
    return (this.headers?.['content-type'] ?? '').startsWith('text/event-stream');
  }

  /** The whole body as text. */
  text(): string {
    return Buffer.concat(this.body).toString('utf8');
  }

  /** End it from this side (a legacy client closing its stream). */
  close(): void {
    this.#leave();
  }

  #run(options: ExchangeOptions, resolve: (ending: Ending) => void): void {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body) headers['content-length'] = String(options.body.length);
    if (options.expectContinue) headers.expect = '100-continue';
    const req = request(options.url, { method: options.method, headers, agent: options.agent ?? false });
    const timers = new Set<NodeJS.Timeout>();
    const later = (ms: number, fn: () => void): void => {
      const t = setTimeout(() => (timers.delete(t), fn()), ms);
      timers.add(t);
    };
    const finish = (ending: Ending, error?: string): void => {
      if (this.ending !== undefined) return;
      this.ending = ending;
      if (error !== undefined) this.error = error;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      // A connection is kept for the session's next exchange only after a whole exchange (body sent, answer read).
      if (ending !== 'complete' || !req.writableFinished) req.destroy();
      if (!this.sse && this.body.length > 0) this.messages.push(...parseJsonMessages(this.text()));
      resolve(ending);
    };
    this.#leave = () => finish('vanished');
    later(options.deadlineMs, () => finish('hung'));

    const sendBody = (): void => {
      const body = options.body;
      if (!body) return void req.end();
      const trickle = options.trickle;
      if (!trickle) {
        req.end(body);
        if (options.vanish?.at === 'sent') later(5, () => finish('vanished'));
        return;
      }
      let sent = 0;
      const next = (): void => {
        if (this.ending !== undefined) return;
        if (trickle.stallAfter !== undefined && sent >= trickle.stallAfter) return; // stalled: nothing more, ever
        const piece = body.subarray(sent, sent + trickle.chunk);
        sent += piece.length;
        if (sent >= body.length) return void req.end(piece);
        req.write(piece);
        later(trickle.gapMs, next);
      };
      next();
    };
    if (options.expectContinue) {
      req.once('continue', sendBody);
      req.flushHeaders();
    } else {
      sendBody();
    }

    req.once('error', (err) => finish(this.status === undefined ? 'no-response' : 'cut', err.message));
    req.once('response', (res) => {
      this.status = res.statusCode;
      this.headers = res.headers;
      this.#responded();
      // A discarded stream is still read event by event for `onEvent` (the reader keeps at most one event).
      const reader = this.sse && (!options.discard || options.onEvent) ? new SseReader() : undefined;
      const slow = options.slowRead;
      res.on('data', (chunk: Buffer) => {
        if (!options.discard && this.received + chunk.length <= MAX_BODY_BYTES) this.body.push(chunk);
        this.received += chunk.length;
        for (const event of reader?.push(chunk) ?? []) {
          if (!options.discard) this.events.push(event);
          if (event.data !== undefined && !options.discard) this.messages.push(...parseJsonMessages(event.data));
          options.onEvent?.(event, this);
          if (options.vanish?.at === 'first-event' && event.data !== undefined && event.data !== '') return finish('vanished');
        }
        if (options.vanish?.at === 'bytes' && this.received >= (options.vanish.bytes ?? 1)) return finish('vanished');
        if (slow) {
          res.pause();
          later(slow.gapMs, () => res.resume());
        }
      });
      if (slow) {
        res.pause();
        later(slow.pauseMs, () => res.resume());
      }
      if (options.vanish?.at === 'time') later(options.vanish.ms ?? 0, () => finish('vanished'));
      res.once('end', () => finish('complete'));
      res.once('aborted', () => finish('cut', 'aborted'));
      res.once('error', (err) => finish('cut', err.message));
      res.once('close', () => finish(res.complete ? 'complete' : 'cut'));
    });
  }
}

/** Start an exchange (it runs until it ends; await `done`). */
export function exchange(options: ExchangeOptions): Exchange {
  return new Exchange(options);
}
