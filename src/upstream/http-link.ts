/**
 * What the links that speak Streamable HTTP to a `url:` upstream themselves share (./http-session-link.ts: a
 * session the gateway holds; ./modern-link.ts: 2026-07-28 for an older client): their options, the answer
 * bodies being read (each through ./answer-reader.ts, paused with the session, destroyed when the link
 * closes), the guarded hand-over of each message and each dropped one, and the one end of the link.
 */
import type { Readable } from 'node:stream';
import { RetrofitError } from '../errors.js';
import { endsOf, sniffResponseId } from '../jsonrpc/sniff.js';
import type { Logger } from '../log.js';
import type { readJsonAnswer, AnswerReaderOptions } from './answer-reader.js';
import { ReadGate } from './gate.js';
import { toUpstreamHeaders, type HeaderMap } from './headers.js';
import type { HttpUpstream } from './http.js';
import type { LinkClosed, LinkDropped, LinkFrame, SendOptions, SendOutcome, UpstreamLink } from './link.js';

/** What a link that speaks Streamable HTTP to a `url:` upstream itself needs. */
export interface HttpLinkOptions {
  readonly upstream: string;
  readonly http: HttpUpstream;
  /** The headers of the client request that opened the session (forwarded, filtered). */
  readonly clientHeaders: HeaderMap;
  /** The upstream's configured headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** Drop the client's Authorization (it carried the gateway's own token). */
  readonly dropAuthorization: boolean;
  readonly timeoutMs: number;
  /** limits.maxResultBytes. */
  readonly maxEventBytes: number;
  readonly log: Logger;
}

/** Client headers that belong to the client's own exchange, never to the link's. */
const NOT_FORWARDED = ['mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'last-event-id', 'accept', 'content-type'];

/** How one answer body is read (./answer-reader.ts). */
type ReadAnswer = typeof readJsonAnswer;

export abstract class HttpLink implements UpstreamLink {
  onframe: (frame: LinkFrame) => void = () => {};
  ondropped: (dropped: LinkDropped) => void = () => {};
  onclose: (closed: LinkClosed) => void = () => {};
  protected readonly o: HttpLinkOptions;
  /** Aborted when the link closes: every request of the link carries its signal. */
  protected readonly abort = new AbortController();
  readonly #bodies = new Set<Readable>();
  readonly #paused = new ReadGate();
  #closed: LinkClosed | undefined;

  constructor(options: HttpLinkOptions) {
    this.o = options;
  }

  abstract send(json: string, options?: SendOptions): Promise<SendOutcome>;
  abstract close(): Promise<void>;

  get alive(): boolean {
    return this.#closed === undefined;
  }

  pause(): void {
    this.#paused.close();
  }

  resume(): void {
    this.#paused.open();
  }

  /** Something a message shows the link before it goes on (the session link learns its revision). */
  protected observe(_data: string): void {}

  /**
   * Hand one message on (`related`: the client's request it came with, LinkFrame); whatever handling it throws
   * is logged and the message reported as dropped.
   */
  protected frame(data: string | Buffer, related?: string | number): void {
    try {
      // Bytes are a large message (past OFFLOAD_BYTES): never one the link learns from.
      if (typeof data === 'string') this.observe(data);
      this.onframe(related === undefined ? { data } : { data, related });
    } catch (err) {
      this.o.log.error({ err, bytes: data.length }, 'upstream message could not be handled; dropped');
      const id = sniffResponseId(endsOf(data));
      this.dropped({ reason: 'failed', bytes: data.length, ...(id !== undefined && { id }) });
    }
  }

  protected dropped(dropped: LinkDropped): void {
    try {
      this.ondropped(dropped);
    } catch (err) {
      this.o.log.error({ err, reason: dropped.reason }, 'a dropped upstream message could not be reported');
    }
  }

  /**
   * The headers of a request to the upstream: the client's, filtered as the proxy filters them, less those that
   * belong to the client's own exchange (its session, its revision, its Mcp-Method / Mcp-Name), which name
   * another conversation than the link's; JSON in, JSON or SSE back.
   */
  protected headersFrom(client: HeaderMap): Record<string, string | string[]> {
    const out = toUpstreamHeaders(client, { host: this.o.http.host, configured: this.o.headers, dropAuthorization: this.o.dropAuthorization });
    for (const name of NOT_FORWARDED) delete out[name];
    out['content-type'] = 'application/json';
    out.accept = 'application/json, text/event-stream';
    return out;
  }

  /** The client's error once the link is gone. */
  protected error(): RetrofitError {
    return new RetrofitError('RETROFIT_ERR_UPSTREAM_UNREACHABLE', [this.o.upstream], this.#closed?.error ? { cause: this.#closed.error } : undefined);
  }

  /** How an answer's messages are read, each as text to `message`, paused with the link. */
  protected reader(message: (data: string) => void): AnswerReaderOptions {
    return { maxBytes: this.o.maxEventBytes, message, dropped: (d) => this.dropped(d), paused: () => this.#paused.wait };
  }

  /**
   * The same for messages handed on as they are (default: framed): a large one as its bytes, unchecked, as
   * LinkFrame allows (the session checks them, and a worker reads them without a copy).
   */
  protected frames(message: (data: string | Buffer) => void = (data) => this.frame(data)): AnswerReaderOptions {
    return { maxBytes: this.o.maxEventBytes, message, bytes: true, dropped: (d) => this.dropped(d), paused: () => this.#paused.wait };
  }

  /**
   * Read one answer body, tracked so that closing the link stops it; a body that breaks is logged at `level`,
   * and false returned (the caller reports what it still owed: see brokeFor).
   */
  protected async read(body: Readable, how: ReadAnswer, reader: AnswerReaderOptions, level: 'warn' | 'debug'): Promise<boolean> {
    this.#bodies.add(body);
    try {
      await how(body, reader);
      return true;
    } catch (err) {
      if (!this.abort.signal.aborted) this.o.log[level]({ err }, 'an answer stream of the upstream ended early');
      return this.abort.signal.aborted;
    } finally {
      this.#bodies.delete(body);
    }
  }

  /**
   * The answer stream of the POST that carried `json` broke (`reset`), or its JSON body is over (`unanswered`):
   * each request it carried is reported, so the session answers the ones still waiting at once
   * (UPSTREAM_RESET, UPSTREAM_PROTOCOL), not at their deadline; those answered are not its concern. The ids are
   * the sender's (SendOptions.ids); only a sender that did not give them has the JSON read back here.
   */
  protected brokeFor(json: string, ids: readonly (string | number)[] | undefined, reason: 'reset' | 'unanswered' = 'reset'): void {
    for (const id of ids ?? requestIds(json)) this.dropped({ reason, bytes: 0, id });
  }

  /** Stop everything the link reads (it is closing). */
  protected stopReading(): void {
    this.abort.abort();
    this.resume();
    for (const body of this.#bodies) body.destroy();
  }

  /** The link is gone, for `closed`: once. */
  protected end(closed: LinkClosed): void {
    if (this.#closed) return;
    this.#closed = closed;
    try {
      this.onclose(closed);
    } catch (err) {
      this.o.log.error({ err }, 'the end of an upstream link could not be handled');
    }
  }
}

/** The ids of the requests in a message's JSON text (a batch's too); none when it does not parse. */
export function requestIds(json: string): (string | number)[] {
  let sent: unknown;
  try {
    sent = JSON.parse(json);
  } catch {
    return [];
  }
  const ids: (string | number)[] = [];
  for (const m of Array.isArray(sent) ? sent : [sent]) {
    if (m === null || typeof m !== 'object' || typeof (m as { method?: unknown }).method !== 'string') continue;
    const id = (m as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') ids.push(id);
  }
  return ids;
}
