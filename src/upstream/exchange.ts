/**
 * One request to an upstream through undici's dispatcher, with the answer's body as a plain async iterable.
 * It replaces `Pool.request` on the proxy's hot path: that wraps every response in a Readable stream (plus an
 * async-iterator adapter when the proxy iterates it) and every request in an AbortSignal listener, which
 * together were a visible share of a passthrough exchange's CPU. Chunks are handed over as undici delivers
 * them; backpressure pauses the upstream connection while more than HIGH_WATER bytes wait unread.
 *
 * Every request asks for `Accept-Encoding: identity` (./headers.ts). An upstream that compresses anyway (one
 * `Content-Encoding` of gzip, deflate, br or zstd) has its body decoded here, as it streams, and the answer
 * loses `Content-Encoding` and `Content-Length`: every reader downstream (relays, rewrites, bounds) sees the
 * bytes it would have had, and a compression bomb is bounded like any other body (held only when it must be
 * rewritten, then by maxResultBytes; otherwise streamed at the client's pace). A body that does not decode is an
 * UpstreamDecodeError (a protocol failure of the upstream). Other codings pass through untouched.
 */
import { PassThrough, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createZstdDecompress } from 'node:zlib';
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

/** Code of UpstreamDecodeError (src/upstream/errors.ts counts it as the upstream's protocol failure). */
export const DECODE_ERROR_CODE = 'RETROFIT_UPSTREAM_DECODE';

/** A body compressed against `Accept-Encoding: identity` that does not decode. */
export class UpstreamDecodeError extends Error {
  readonly code = DECODE_ERROR_CODE;
  constructor(coding: string, cause: unknown) {
    super(`the upstream's ${coding} body does not decode`, { cause });
    this.name = 'UpstreamDecodeError';
  }
}

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
  zstd: createZstdDecompress,
};

/** The coding of an answer with these headers that is decoded here, else undefined (identity, several, unknown). */
export function decodedCoding(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  const coding = headers['content-encoding'];
  if (typeof coding !== 'string') return undefined;
  const name = coding.trim().toLowerCase();
  return Object.hasOwn(DECODERS, name) ? name : undefined;
}

/** The decoder of a single known coding, else undefined (identity, several codings, an unknown one). */
function decoderFor(coding: string | string[] | undefined): { name: string; decoder: Transform } | undefined {
  const name = decodedCoding({ 'content-encoding': coding });
  return name === undefined ? undefined : { name, decoder: DECODERS[name]!() };
}

/**
 * The body of a `Pool.request` answer as the readers need it: decoded when the upstream compressed it (the
 * answer's own body otherwise). A decoding failure is an UpstreamDecodeError; one of the upstream's body keeps
 * its own error; a reader leaving early destroys the answer's body (the request is aborted) as it would have.
 * The caller drops `Content-Encoding` and `Content-Length` if it passes the headers on.
 */
export function decodedBody(headers: Readonly<Record<string, string | string[] | undefined>>, body: Readable): Readable {
  const coded = headers['content-encoding'] === undefined ? undefined : decoderFor(headers['content-encoding']);
  if (!coded) return body;
  const { name, decoder } = coded;
  const out = new PassThrough();
  body.on('error', (err) => out.destroy(err));
  decoder.on('error', (err: Error) => out.destroy(new UpstreamDecodeError(name, err)));
  out.on('close', () => {
    body.destroy();
    decoder.destroy();
  });
  body.pipe(decoder).pipe(out);
  return out;
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

  /** Stop reading and abort the upstream request (no-op once the body is complete); a pending read fails with `err`. */
  destroy(err?: Error): void {
    this.#queue = [];
    this.#queued = 0;
    if (this.#ended || this.#error) return;
    const error = err ?? new errors.RequestAbortedError();
    this.#error = error;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    this.#abort(error);
    waiter?.reject(error);
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
  /** Set when the upstream compressed its body: undici's chunks go through it. */
  #decoder: Transform | undefined;

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
    const headers = util.parseHeaders(rawHeaders) as Record<string, string | string[]>;
    const coded = headers['content-encoding'] === undefined ? undefined : decoderFor(headers['content-encoding']);
    if (coded) return this.#decoded(statusCode, headers, coded.name, coded.decoder, resume);
    const body = new UpstreamBody(resume, (err) => this.#abort?.(err));
    this.#body = body;
    this.#resolve({ statusCode, headers, body });
    return true;
  }

  /** A compressed body: decoded as it comes, with backpressure through the decoder both ways. */
  #decoded(statusCode: number, headers: Record<string, string | string[]>, coding: string, decoder: Transform, resume: () => void): boolean {
    delete headers['content-encoding'];
    delete headers['content-length'];
    const body = new UpstreamBody(
      () => decoder.resume(),
      (err) => {
        decoder.destroy();
        this.#abort?.(err);
      },
    );
    this.#body = body;
    this.#decoder = decoder;
    decoder.on('data', (chunk: Buffer) => {
      if (!body.push(chunk)) decoder.pause();
    });
    decoder.on('drain', resume);
    decoder.on('end', () => body.end());
    decoder.on('error', (err: Error) => {
      body.fail(new UpstreamDecodeError(coding, err));
      this.#abort?.(err);
    });
    this.#resolve({ statusCode, headers, body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#decoder) return this.#decoder.write(chunk);
    return this.#body ? this.#body.push(chunk) : true;
  }

  onComplete(): void {
    this.#cancel?.clear();
    if (this.#decoder) this.#decoder.end();
    else this.#body?.end();
  }

  onError(err: Error): void {
    this.#cancel?.clear();
    this.#decoder?.destroy();
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
