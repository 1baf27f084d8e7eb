/**
 * The link to a legacy HTTP+SSE upstream (the 2024-11-05 transport): one GET stream carries everything the
 * upstream sends; its first `endpoint` event names where to POST. Messages are `message` events (or events
 * without a type); anything else on the stream (comments, other event types) is handed on as it came, for a
 * legacy client's stream. Events are bounded by maxEventBytes: a longer one is dropped as it arrives (never
 * held whole) and reported with the id read from its ends; so is one nested deeper than MAX_DEPTH, refused
 * before anything recurses over it, and one whose handling throws (logged): one bad event never ends the
 * stream. An event past OFFLOAD_BYTES is gathered in shared memory and its data goes on as bytes (its data
 * lines joined, however many), undecoded and unchecked (LinkFrame: the session checks them in slices, and a worker takes them as they are). While the session is paused the stream is not read, so the upstream's connection backs up instead
 * of the gateway's memory. POSTs go through the link's own pool of at most POST_CONNECTIONS connections (a
 * client's batch of a thousand requests is a thousand POSTs: unbounded, each would open a socket), and the
 * body of a POST's answer is read up to ANSWER_BODY_BYTES (a 202 carries a word; the rest is not kept).
 */
import { Pool, request, type Dispatcher } from 'undici';
import { RetrofitError } from '../errors.js';
import { endsOf, headNamesAnswer, sniffResponseId } from '../jsonrpc/sniff.js';
import { nestedTooDeeply } from '../jsonrpc/strict.js';
import type { Logger } from '../log.js';
import { OFFLOAD_BYTES } from '../pipeline/offload/plan.js';
import { SseSplitter, type SseEvent } from '../stream/sse.js';
import { httpAnswer } from './answer-reader.js';
import { failureError, failureKind } from './errors.js';
import { decodedBody } from './exchange.js';
import { headerValue, mediaType, toUpstreamHeaders } from './headers.js';
import { ReadGate } from './gate.js';
import type { LinkClosed, LinkDropped, LinkFrame, LinkHttpAnswer, SendOptions, SendOutcome, UpstreamLink } from './link.js';

/** Connections one link may hold open for its POSTs at once; further POSTs queue in order behind them. */
export const POST_CONNECTIONS = 4;
export interface SseLinkOptions {
  readonly upstream: string;
  /** The upstream's SSE URL. */
  readonly url: URL;
  /** The headers of the client request that opened the session (forwarded, filtered). */
  readonly clientHeaders: Record<string, string | string[] | undefined>;
  /**
   * The upstream's configured headers, read for each request: after a reload that changes them (a rotated
   * credential), the session's next message carries the new ones. Its event stream, open already, keeps
   * those it was opened with.
   */
  readonly headers: () => Readonly<Record<string, string>>;
  /**
   * Drop the client's Authorization (it carries the gateway's own token), read for each request like
   * `headers`: a reload that turns on `auth` stops the token reaching the upstream at once.
   */
  readonly dropAuthorization: () => boolean;
  readonly timeoutMs: number;
  /** limits.maxResultBytes. */
  readonly maxEventBytes: number;
  readonly log: Logger;
}

/** The GET did not give an event stream: the upstream's answer, for the client that opened the session. */
export class LinkRefused extends Error {
  readonly answer: LinkHttpAnswer;

  constructor(answer: LinkHttpAnswer) {
    super(`the upstream answered ${answer.status} instead of an event stream`);
    this.name = 'LinkRefused';
    this.answer = answer;
  }
}

export class SseLink implements UpstreamLink {
  onframe: (frame: LinkFrame) => void = () => {};
  ondropped: (dropped: LinkDropped) => void = () => {};
  onpassthrough?: (raw: Buffer) => void;
  onclose: (closed: LinkClosed) => void = () => {};
  /** Resolves with the POST endpoint once announced; rejects (LinkRefused, or a connection error) otherwise. */
  readonly ready: Promise<URL>;
  readonly #options: SseLinkOptions;
  readonly #abort = new AbortController();
  #endpoint: URL | undefined;
  #endpointEvent: SseEvent | undefined;
  #streamHeaders: Record<string, string | string[]> = {};
  #closed: LinkClosed | undefined;
  readonly #paused = new ReadGate();
  /** The POST endpoint's pool, made once the endpoint is known (closed with the link). */
  #posts: Pool | undefined;
  #announce!: (url: URL) => void;
  #refuse!: (err: Error) => void;

  constructor(options: SseLinkOptions) {
    this.#options = options;
    this.ready = new Promise<URL>((resolve, reject) => {
      this.#announce = resolve;
      this.#refuse = reject;
    });
    // Nobody may wait for it (a session that closes first): never an unhandled rejection.
    this.ready.catch(() => {});
    void this.#run();
  }

  get alive(): boolean {
    return this.#closed === undefined;
  }

  /** The upstream's response headers of its event stream (a legacy client's stream carries them on). */
  get streamHeaders(): Record<string, string | string[]> {
    return this.#streamHeaders;
  }

  /** The `endpoint` event as the upstream sent it (a legacy client gets it with the gateway's endpoint). */
  get endpointEvent(): SseEvent | undefined {
    return this.#endpointEvent;
  }

  #headers(client: Record<string, string | string[] | undefined>, host: string): Record<string, string | string[]> {
    return toUpstreamHeaders(client, { host, configured: this.#options.headers(), dropAuthorization: this.#options.dropAuthorization() });
  }

  async #run(): Promise<void> {
    const { url, timeoutMs, log } = this.#options;
    let res: Dispatcher.ResponseData;
    try {
      const headers = { ...this.#headers(this.#options.clientHeaders, url.host), accept: 'text/event-stream' };
      res = await request(url, { method: 'GET', headers, signal: this.#abort.signal, headersTimeout: timeoutMs, bodyTimeout: 0 });
    } catch (err) {
      return this.#end({ kind: this.#abort.signal.aborted ? 'requested' : 'unreachable', reason: err instanceof Error ? err.message : String(err), ...(err instanceof Error && { error: err }) });
    }
    if (res.statusCode !== 200 || mediaType(headerValue(res.headers, 'content-type')) !== 'text/event-stream') {
      const refused = new LinkRefused(await httpAnswer(res));
      return this.#end({ kind: 'unreachable', reason: refused.message, error: refused });
    }
    this.#streamHeaders = res.headers as Record<string, string | string[]>;
    // A stream that never names its endpoint is no MCP stream: give up after timeoutMs.
    const silent = setTimeout(() => {
      if (this.#endpoint) return;
      this.#end({ kind: 'protocol', reason: `no endpoint event within ${timeoutMs}ms` });
      this.#abort.abort();
    }, timeoutMs);
    silent.unref();
    // An over-long event that names its answer's id up front is reported at once: the upstream may never end it.
    const splitter = new SseSplitter({ maxEventBytes: this.#options.maxEventBytes, sharedFrom: OFFLOAD_BYTES, reportEarly: headNamesAnswer });
    try {
      for await (const chunk of decodedBody(res.headers, res.body) as AsyncIterable<Buffer>) {
        for (const event of splitter.push(chunk)) this.#guarded(event);
        if (this.#paused.wait) await this.#paused.wait;
      }
      for (const event of splitter.end()) this.#guarded(event);
      clearTimeout(silent);
      this.#end({ kind: this.#abort.signal.aborted ? 'requested' : 'unreachable', reason: 'the upstream ended its event stream' });
    } catch (err) {
      clearTimeout(silent);
      if (!this.#abort.signal.aborted) log.warn({ err }, 'legacy SSE stream from the upstream failed');
      this.#end({ kind: this.#abort.signal.aborted ? 'requested' : 'unreachable', reason: err instanceof Error ? err.message : String(err), ...(err instanceof Error && { error: err }) });
    }
  }

  /** One event, whatever its handling throws: logged, and the event reported as dropped. */
  #guarded(event: SseEvent): void {
    try {
      this.#event(event);
    } catch (err) {
      this.#options.log.error({ err, bytes: event.raw.length }, 'upstream event could not be handled; dropped');
      const data = event.dataBytes ?? event.data.join('\n');
      this.#dropped({ reason: 'failed', bytes: data.length }, sniffResponseId(endsOf(data)));
    }
  }

  #dropped(dropped: LinkDropped, id: string | number | undefined): void {
    try {
      this.ondropped({ ...dropped, ...(id !== undefined && { id }) });
    } catch (err) {
      this.#options.log.error({ err, reason: dropped.reason, id }, 'a dropped upstream message could not be reported');
    }
  }

  #event(event: SseEvent): void {
    if (event.overlong) return this.#dropped({ reason: 'size', bytes: event.overlong.bytes }, sniffResponseId({ head: event.overlong.head, tail: event.overlong.tail }));
    if (!event.complete) {
      if (event.raw.length > 0) this.onpassthrough?.(event.raw);
      return;
    }
    if (event.event === 'endpoint') return this.#announced(event);
    if ((event.event !== undefined && event.event !== 'message') || (event.data.length === 0 && !event.dataBytes)) {
      this.onpassthrough?.(event.raw);
      return;
    }
    // Bytes go on unchecked: whoever takes the frame checks them in order (LinkFrame).
    if (event.dataBytes) return this.onframe({ data: event.dataBytes, raw: event.raw });
    const data = event.data.join('\n');
    if (nestedTooDeeply(data)) return this.#dropped({ reason: 'depth', bytes: data.length }, sniffResponseId(endsOf(data)));
    this.onframe({ data, raw: event.raw });
  }

  #announced(event: SseEvent): void {
    let endpoint: URL;
    try {
      endpoint = new URL((event.dataBytes?.toString('utf8') ?? event.data.join('\n')).trim(), this.#options.url);
    } catch (err) {
      this.#options.log.warn({ err, data: event.data }, 'upstream announced an invalid endpoint');
      return;
    }
    // Messages carry the upstream's configured headers (its credentials) and the client's: they go to the
    // origin the gateway was configured with, never to one the upstream names (as the SDK clients refuse it).
    if (endpoint.origin !== this.#options.url.origin) {
      this.#options.log.warn({ endpoint: endpoint.origin, upstream: this.#options.url.origin }, 'upstream announced an endpoint on another origin; its stream is closed');
      this.#end({ kind: 'protocol', reason: `the upstream announced an endpoint on another origin (${endpoint.origin}, not ${this.#options.url.origin})` });
      this.#abort.abort();
      return;
    }
    // The first endpoint stays: posts already under way went there, and a session lives at one address.
    if (this.#endpoint !== undefined) {
      if (endpoint.href !== this.#endpoint.href) this.#options.log.warn({ endpoint: endpoint.href, kept: this.#endpoint.href }, 'upstream announced a second endpoint; the first is kept');
      return;
    }
    this.#endpoint = endpoint;
    this.#endpointEvent = event;
    this.#announce(endpoint);
  }

  async send(json: string, options: SendOptions = {}): Promise<SendOutcome> {
    let endpoint: URL;
    try {
      endpoint = this.#endpoint ?? (await this.ready);
    } catch {
      return { ok: false, error: this.#error() };
    }
    if (this.#closed || this.#abort.signal.aborted) return { ok: false, error: this.#error() };
    try {
      const headers = { ...this.#headers(options.headers ?? {}, endpoint.host), 'content-type': 'application/json' };
      this.#posts ??= new Pool(endpoint.origin, { connections: POST_CONNECTIONS, keepAliveTimeout: 10_000 });
      const res = await this.#posts.request({ path: `${endpoint.pathname}${endpoint.search}`, method: 'POST', headers, body: json, headersTimeout: this.#options.timeoutMs });
      const answer = await httpAnswer(res);
      if (res.statusCode < 300) return { ok: true, answer };
      return { ok: false, answer, error: new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [this.#options.upstream]) };
    } catch (err) {
      // Nobody aborts a send: an abort (or the pool destroyed) here is the link closing under it.
      const kind = this.#abort.signal.aborted ? 'aborted' : failureKind(err);
      const error = failureError(err, kind === 'aborted' ? 'unreachable' : kind, this.#options.upstream, this.#options.timeoutMs)!;
      return { ok: false, error };
    }
  }

  #error(): RetrofitError {
    return new RetrofitError('RETROFIT_ERR_UPSTREAM_UNREACHABLE', [this.#options.upstream], this.#closed?.error ? { cause: this.#closed.error } : undefined);
  }

  pause(): void {
    this.#paused.close();
  }

  resume(): void {
    this.#paused.open();
  }

  async close(): Promise<void> {
    this.#abort.abort();
    this.resume();
    const posts = this.#posts;
    this.#posts = undefined;
    // POSTs still in flight are the closing session's: nobody waits for their answers.
    void posts?.destroy().catch(() => {});
    await this.ready.then(
      () => undefined,
      () => undefined,
    );
  }

  #end(closed: LinkClosed): void {
    if (this.#closed) return;
    this.#closed = closed;
    this.#refuse(closed.error ?? new Error(closed.reason));
    try {
      this.onclose(closed);
    } catch (err) {
      // Called from the stream's async loop: a throw here would be an unhandled rejection.
      this.#options.log.error({ err }, 'the end of an upstream event stream could not be handled');
    }
  }
}
