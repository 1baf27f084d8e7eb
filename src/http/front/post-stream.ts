/**
 * The answer to one POST that carried requests, on a gateway-owned session: JSON when the client cannot
 * resume a stream anyway and the answer is the first thing to send (the commonest exchange, one write); an
 * SSE stream otherwise — with an id on every event (and, for 2025-11-25 clients, a priming event with
 * `retry:`) when the client can resume it. A resumable stream starts when it is opened: its headers and
 * priming event go out at once, not with the first message, which a slow upstream may send only minutes later
 * (a client or proxy with a header timeout gave up meanwhile, and a connection dropped before it left nothing
 * to resume from). It survives its HTTP response: when the client's connection drops, what follows is kept
 * (./events.ts) and sent on the GET that resumes it.
 */
import type { ServerResponse } from 'node:http';
import { idKey } from '../../session/pending.js';
import type { JsonRpcId } from '../../jsonrpc/classify.js';
import { KEEP_ALIVE, messageEventBytes, primingEvent, type EventBytes } from '../../stream/sse-encode.js';
import { SSE_HEADERS, writeEvent } from '../write.js';
import type { EventStore } from './events.js';

/** How long a client waits before resuming a dropped stream (the priming event's `retry:`, ms). */
export const RESUME_RETRY_MS = 1000;

export interface PostStreamOptions {
  /** Its number in the session (event ids are `<no>-<seq>`). */
  readonly no: number;
  readonly sessionId: string;
  /** The ids of the requests it carries. */
  readonly ids: readonly JsonRpcId[];
  /** Events get ids and are kept for resumption (the client's revision resumes: 2025-03-26 and later, the revisions of Streamable HTTP). */
  readonly events?: EventStore;
  /** Start with a priming event (2025-11-25 and later). */
  readonly priming: boolean;
  /** Called when its response drained or closed: whether it is backed up (see `backedUp`) may have changed. */
  readonly onPressure: () => void;
}

/** What the client got, for the request log line. */
export interface StreamOutcome {
  /** The first JSON-RPC error code among its answers, if any. */
  rpcError?: number;
  /** That error's `data.code`, when it is one of the gateway's own. */
  errorCode?: string;
}

export class PostStream {
  readonly no: number;
  readonly outcome: StreamOutcome = {};
  readonly #options: PostStreamOptions;
  readonly #waiting = new Set<string>();
  #res: ServerResponse | undefined;
  #mode: 'unsent' | 'json' | 'sse' = 'unsent';
  /** One keep-alive tick went by while it waited: at the next, a JSON answer turns into a stream. */
  #aged = false;
  /** The response a 'drain' listener is on, if any. */
  #watching: ServerResponse | undefined;
  #finished = false;

  constructor(res: ServerResponse, options: PostStreamOptions) {
    this.no = options.no;
    this.#options = options;
    this.#res = res;
    for (const id of options.ids) this.#waiting.add(idKey(id));
    res.once('close', () => this.#detached(res));
    if (this.resumable) {
      // Headers and priming event in one write.
      res.cork();
      try {
        this.#start();
      } finally {
        res.uncork();
      }
    }
  }

  /** All its requests were answered (or abandoned). */
  get finished(): boolean {
    return this.#finished;
  }

  /** Resumable streams outlive their response; others are gone with it. */
  get resumable(): boolean {
    return this.#options.events !== undefined;
  }

  /** True while its response cannot take more now (a write returned false and 'drain' has not come). */
  get backedUp(): boolean {
    return this.attached && this.#res!.writableNeedDrain;
  }

  /** True while a response is attached to it. */
  get attached(): boolean {
    return this.#res !== undefined && !this.#res.destroyed && !this.#res.writableEnded;
  }

  /** Put one message on it; `answers` when it is the answer to one of its requests. False: backed up. */
  deliver(json: string | Buffer, answers?: JsonRpcId, error?: { readonly code: number; readonly data?: string }): boolean {
    if (error && this.outcome.rpcError === undefined) {
      this.outcome.rpcError = error.code;
      if (error.data !== undefined) this.outcome.errorCode = error.data;
    }
    if (this.#finished) return true;
    const last = answers !== undefined && this.#waiting.delete(idKey(answers)) && this.#waiting.size === 0;
    if (this.#mode === 'unsent' && last && !this.resumable && this.attached) return this.#json(json);
    // Headers, the priming event, this event and the stream's end leave in one write, not four.
    const res = this.attached ? this.#res : undefined;
    res?.cork();
    try {
      this.#start();
      const ok = this.#event(json);
      if (last) this.#finish();
      return ok;
    } finally {
      res?.uncork();
    }
  }

  /** No answer will come for `id` (the client cancelled it). */
  abandon(id: JsonRpcId): void {
    if (this.#waiting.delete(idKey(id)) && this.#waiting.size === 0) {
      this.#start();
      this.#finish();
    }
  }

  /** A keep-alive tick: streams get a comment; a JSON answer still waiting becomes a stream at its second tick. */
  tick(): void {
    if (this.#finished || !this.attached) return;
    if (this.#mode === 'unsent') {
      if (!this.#aged) {
        this.#aged = true;
        return;
      }
      this.#start();
    }
    this.#write(KEEP_ALIVE);
  }

  /** A client resuming with Last-Event-ID (`sent` already replayed by the caller) takes the stream over. */
  resume(res: ServerResponse): void {
    this.#res?.destroy();
    this.#res = res;
    this.#mode = 'sse';
    res.once('close', () => this.#detached(res));
    if (this.#finished) this.#end(res);
  }

  /** End it now (the session closed). */
  close(): void {
    if (!this.#finished) {
      this.#start();
      this.#finish();
    }
  }

  #json(json: string | Buffer): boolean {
    const res = this.#res!;
    this.#mode = 'json';
    this.#finished = true;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), 'mcp-session-id': this.#options.sessionId });
    res.end(json);
    return true;
  }

  #start(): void {
    if (this.#mode !== 'unsent') return;
    this.#mode = 'sse';
    const res = this.#res;
    if (res && this.attached) {
      res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.#options.sessionId });
      res.flushHeaders();
    }
    const events = this.#options.events;
    if (events && this.#options.priming) {
      const { id, seq } = events.nextId(this.no);
      const bytes = primingEvent(id, RESUME_RETRY_MS);
      events.store(this.no, seq, bytes);
      this.#write(bytes);
    }
  }

  #event(json: string | Buffer): boolean {
    const events = this.#options.events;
    if (!events) return this.#write(messageEventBytes(json));
    const { id, seq } = events.nextId(this.no);
    const bytes = messageEventBytes(json, id);
    events.store(this.no, seq, bytes);
    return this.#write(bytes);
  }

  #write(bytes: EventBytes): boolean {
    const res = this.#res;
    if (!res || !this.attached) return true;
    if (writeEvent(res, bytes)) return true;
    if (this.#watching !== res) {
      this.#watching = res;
      // 'drain' may come at once (uncork emits it): the session asks backedUp after the delivery anyway.
      res.once('drain', () => {
        if (this.#watching === res) this.#watching = undefined;
        this.#options.onPressure();
      });
    }
    return false;
  }

  #finish(): void {
    this.#finished = true;
    this.#options.events?.finish(this.no);
    if (this.attached) this.#end(this.#res!);
  }

  /** End the response; once it is all written, its events are no longer needed for a resumption. */
  #end(res: ServerResponse): void {
    res.end((err?: Error | null) => {
      if (!err) this.#options.events?.forget(this.no);
    });
  }

  #detached(res: ServerResponse): void {
    if (this.#res !== res) return;
    this.#res = undefined;
    this.#options.onPressure();
    // Not resumable: nothing can reach the client any more.
    if (!this.resumable) this.#finished = true;
  }
}
