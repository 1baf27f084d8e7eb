/**
 * One request to an upstream through undici's dispatcher, with the answer's body as a plain async iterable.
 * It replaces `Pool.request` on the proxy's hot path: that wraps every response in a Readable stream (plus an
 * async-iterator adapter when the proxy iterates it) and every request in an AbortSignal listener, which
 * together were a visible share of a passthrough exchange's CPU. Chunks are handed over as undici delivers
 * them; backpressure pauses the upstream connection while more than HIGH_WATER bytes wait unread.
 */
import { errors, util, type Dispatcher } from 'undici';
import type { Cancel } from './cancel.js';

/** Bytes queued unread before the upstream connection is paused. */
export const HIGH_WATER = 64 * 1024;

/** An upstream answer: status and headers, then the body as it arrives. */
export interface UpstreamAnswer {
  readonly statusCode: number;
  /** Lower-case names; repeated headers as arrays. */
  readonly headers: Record<string, string | string[]>;
  readonly body: UpstreamBody;
}

type Waiter = { resolve: (r: IteratorResult<Buffer>) => void; reject: (err: Error) => void };
const DONE: IteratorResult<Buffer> = { value: undefined, done: true };

/**
 * The body of an answer. Iterate it once. Leaving the iteration early (break, throw) or calling destroy()
 * aborts the upstream request; an upstream failure mid-body rejects the pending `next()`.
 */
export class UpstreamBody implements AsyncIterableIterator<Buffer> {
  readonly #resume: () => void;
  readonly #abort: (err: Error) => void;
  #queue: Buffer[] = [];
  #queued = 0;
  #paused = false;
  #ended = false;
  #error: Error | undefined;
  #waiter: Waiter | undefined;

  constructor(resume: () => void, abort: (err: Error) => void) {
    this.#resume = resume;
    this.#abort = abort;
  }

  /** From undici: a chunk arrived. False pauses the connection until the reader catches up. */
  push(chunk: Buffer): boolean {
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      waiter.resolve({ value: chunk, done: false });
      return true;
    }
    this.#queue.push(chunk);
    this.#queued += chunk.length;
    if (this.#queued < HIGH_WATER) return true;
    this.#paused = true;
    return false;
  }

  /** From undici: the body is complete. */
  end(): void {
    this.#ended = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve(DONE);
  }

  /** From undici: the exchange failed mid-body. */
  fail(err: Error): void {
    if (this.#ended || this.#error) return;
    this.#error = err;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(err);
  }

  next(): Promise<IteratorResult<Buffer>> {
    const chunk = this.#queue.shift();
    if (chunk !== undefined) {
      this.#queued -= chunk.length;
      if (this.#paused && this.#queue.length === 0) {
        this.#paused = false;
        this.#resume();
      }
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.#error) return Promise.reject(this.#error);
    if (this.#ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  /** The reader left early: the rest is not wanted. */
  return(): Promise<IteratorResult<Buffer>> {
    this.destroy();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** True when chunks are waiting to be read (e.g. the first SSE event arrived with the headers). */
  get buffered(): boolean {
    return this.#queue.length > 0;
  }

  /**
   * The whole body at once, when it is already complete (a small answer arrives with its headers): its
   * chunks, consumed as if iterated. Undefined while more may come (or after a failure): iterate then.
   */
  takeComplete(): Buffer[] | undefined {
    if (!this.#ended || this.#error) return undefined;
    const chunks = this.#queue;
    this.#queue = [];
    this.#queued = 0;
    return chunks;
  }

  /** Stop reading and abort the upstream request (no-op once the body is complete). */
  destroy(err?: Error): void {
    this.#queue = [];
    this.#queued = 0;
    if (this.#ended || this.#error) return;
    this.#error = err ?? new errors.RequestAbortedError();
    this.#abort(this.#error);
  }

  /** Read and discard the rest. */
  async dump(): Promise<void> {
    for await (const chunk of this) void chunk;
  }
}

/**
 * undici's handler for one exchange, as a class: its methods live on the prototype, so a request allocates one
 * object instead of a closure per callback.
 */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  readonly #resolve: (answer: UpstreamAnswer) => void;
  readonly #reject: (err: Error) => void;
  readonly #cancel: Cancel | undefined;
  #abort: ((err: Error) => void) | undefined;
  #cancelled: Error | undefined;
  #body: UpstreamBody | undefined;

  constructor(resolve: (answer: UpstreamAnswer) => void, reject: (err: Error) => void, cancel: Cancel | undefined) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#cancel = cancel;
    // Listening from the start: a request queued behind others is cancellable before undici connects it.
    cancel?.onAbort(() => {
      this.#cancelled = new errors.RequestAbortedError();
      this.#abort?.(this.#cancelled);
    });
  }

  onConnect(abortRequest: (err: Error) => void): void {
    if (this.#cancelled) abortRequest(this.#cancelled);
    else this.#abort = abortRequest;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    const body = new UpstreamBody(resume, (err) => this.#abort?.(err));
    this.#body = body;
    this.#resolve({ statusCode, headers: util.parseHeaders(rawHeaders) as Record<string, string | string[]>, body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    return this.#body ? this.#body.push(chunk) : true;
  }

  onComplete(): void {
    this.#cancel?.clear();
    this.#body?.end();
  }

  onError(err: Error): void {
    this.#cancel?.clear();
    if (this.#body) this.#body.fail(err);
    else this.#reject(err);
  }
}

/**
 * Send one request. Resolves at the response headers (1xx are skipped); rejects when the request fails before
 * them, including when `cancel` fires (an undici RequestAbortedError, code UND_ERR_ABORTED).
 */
export function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, cancel?: Cancel): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(options, new ExchangeHandler(resolve, reject, cancel));
  });
}
