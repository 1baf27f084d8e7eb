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
 * Send one request. Resolves at the response headers (1xx are skipped); rejects when the request fails before
 * them, including when `cancel` fires (an undici RequestAbortedError, code UND_ERR_ABORTED).
 */
export function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, cancel?: Cancel): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    let abort: ((err: Error) => void) | undefined;
    let cancelled: Error | undefined;
    let body: UpstreamBody | undefined;
    // Listening from the start: a request queued behind others is cancellable before undici connects it.
    cancel?.onAbort(() => {
      cancelled = new errors.RequestAbortedError();
      abort?.(cancelled);
    });
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest) {
        if (cancelled) abortRequest(cancelled);
        else abort = abortRequest;
      },
      onHeaders(statusCode, rawHeaders, resume) {
        if (statusCode < 200) return true;
        body = new UpstreamBody(resume, (err) => abort?.(err));
        resolve({ statusCode, headers: util.parseHeaders(rawHeaders) as Record<string, string | string[]>, body });
        return true;
      },
      onData(chunk) {
        return body ? body.push(chunk) : true;
      },
      onComplete() {
        cancel?.clear();
        body?.end();
      },
      onError(err) {
        cancel?.clear();
        if (body) body.fail(err);
        else reject(err);
      },
    };
    dispatcher.dispatch(options, handler);
  });
}
