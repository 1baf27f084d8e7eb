/**
 * One gateway-owned session as its Streamable HTTP client sees it: the answer streams of its POSTs, its
 * standalone GET stream, the events kept for resumption, and the session's owned core (src/session/owned.ts)
 * behind them. This is the client side the core delivers to.
 */
import type { ServerResponse } from 'node:http';
import type { JsonRpcId } from '../../jsonrpc/classify.js';
import type { Logger } from '../../log.js';
import { DEFAULT_REVISION, isResumable, takesPrimingEvent } from '../../protocol/era.js';
import type { ClientSide, Delivery, OwnedSession } from '../../session/owned.js';
import { messageEventBytes, type EventBytes } from '../../stream/sse-encode.js';
import { SSE_HEADERS, writeEvent } from '../write.js';
import { EventStore, parseEventId } from './events.js';
import { PostStream } from './post-stream.js';

/** What became of a GET. */
export type GetOutcome = { readonly ok: true } | { readonly ok: false; readonly status: 400 | 409; readonly message: string };

export class FrontSession implements ClientSide<PostStream> {
  readonly id: string;
  readonly owned: OwnedSession<PostStream>;
  readonly log: Logger;
  readonly #live = new Map<number, PostStream>();
  #events: EventStore | undefined;
  #standalone: ServerResponse | undefined;
  /** The standalone response a 'drain' listener is on, if any. */
  #watching: ServerResponse | undefined;
  #nextStream = 1;
  #closed = false;

  /** `log` is already bound to the session. */
  constructor(id: string, owned: OwnedSession<PostStream>, log: Logger) {
    this.id = id;
    this.owned = owned;
    this.log = log;
    owned.attach(this, this.log);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Answer streams not yet finished. */
  get streams(): number {
    return this.#live.size;
  }

  /** The revision the client speaks on this exchange: its header, else what it was answered at initialize. */
  revision(header: string | undefined): string {
    return header ?? this.owned.state.clientRevision ?? DEFAULT_REVISION;
  }

  /** A new answer stream for a POST carrying the requests `ids`, framed for `revision`. */
  openStream(res: ServerResponse, ids: readonly JsonRpcId[], revision: string): PostStream {
    const resumable = isResumable(revision);
    if (resumable) this.#events ??= new EventStore();
    const stream = new PostStream(res, {
      no: this.#nextStream++,
      sessionId: this.id,
      ids,
      ...(resumable && this.#events && { events: this.#events }),
      priming: resumable && takesPrimingEvent(revision),
      onPressure: () => this.owned.pressureChanged(),
    });
    this.#live.set(stream.no, stream);
    return stream;
  }

  /** Forget a stream once it finished (its events stay in the store for replays). */
  settleStream(stream: PostStream): void {
    if (stream.finished) this.#live.delete(stream.no);
  }

  deliver(stream: PostStream | undefined, delivery: Delivery): void {
    if (stream) {
      stream.deliver(delivery.json, delivery.answers, delivery.error);
      this.settleStream(stream);
      return;
    }
    this.#toStandalone(delivery.json);
  }

  /** Asked by the session after each delivery and on each drain: is any of its responses backed up now? */
  backedUp(): boolean {
    for (const stream of this.#live.values()) if (stream.backedUp) return true;
    return this.#standaloneOpen() && this.#standalone!.writableNeedDrain;
  }

  abandon(stream: PostStream | undefined, id: JsonRpcId): void {
    stream?.abandon(id);
    if (stream) this.settleStream(stream);
  }

  /** A message of the gateway's own for the client's server stream (tools/list_changed after a reload). */
  notify(json: string): void {
    this.#toStandalone(json);
  }

  /** GET: the standalone stream, or — with Last-Event-ID — the resumption of a dropped one. */
  get(res: ServerResponse, lastEventId: string | undefined): GetOutcome {
    if (lastEventId !== undefined && this.#events) {
      const cursor = parseEventId(lastEventId);
      if (!cursor || (cursor.stream !== 0 && !this.#live.has(cursor.stream) && !this.#events.knows(cursor.stream))) return { ok: false, status: 400, message: 'invalid event ID' };
      const live = cursor.stream === 0 ? undefined : this.#live.get(cursor.stream);
      if ((cursor.stream === 0 && this.#standaloneOpen()) || live?.attached) return { ok: false, status: 409, message: 'the stream already has an active connection' };
      this.#sse(res);
      for (const bytes of this.#events.after(cursor)) writeEvent(res, bytes);
      if (cursor.stream === 0) this.#attachStandalone(res);
      else if (live) live.resume(res);
      else res.end();
      return { ok: true };
    }
    if (this.#standaloneOpen()) return { ok: false, status: 409, message: 'only one GET stream is allowed per session' };
    this.#sse(res);
    this.#attachStandalone(res);
    return { ok: true };
  }

  /** A keep-alive tick (every 15 s): comments on open streams, long waits turned into streams. */
  tick(): void {
    for (const stream of this.#live.values()) stream.tick();
    if (this.#standaloneOpen()) this.#standalone!.write(': keepalive\n\n');
  }

  /** Graceful shutdown: the GET stream (which never ends by itself) ends now; resolves once nothing is pending. */
  settled(): Promise<void> {
    this.#standalone?.end();
    return this.owned.settled();
  }

  /** End everything: what waits gets `reason`'s error, streams end, the link closes. Idempotent. */
  async close(reason = 'session closed'): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const done = this.owned.close('RETROFIT_ERR_UPSTREAM_EXITED', reason);
    for (const stream of this.#live.values()) stream.close();
    this.#live.clear();
    this.#standalone?.end();
    await done;
  }

  #sse(res: ServerResponse): void {
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.id });
    res.flushHeaders();
  }

  #attachStandalone(res: ServerResponse): void {
    this.#standalone = res;
    res.once('close', () => {
      if (this.#standalone === res) this.#standalone = undefined;
    });
  }

  #standaloneOpen(): boolean {
    const res = this.#standalone;
    return res !== undefined && !res.destroyed && !res.writableEnded;
  }

  #toStandalone(json: string | Buffer): void {
    const events = this.#events;
    let bytes: EventBytes;
    if (events) {
      const { id, seq } = events.nextId(0);
      bytes = messageEventBytes(json, id);
      events.store(0, seq, bytes);
    } else {
      bytes = messageEventBytes(json);
    }
    const res = this.#standalone;
    if (!res || !this.#standaloneOpen()) {
      if (!events) this.log.debug('server message for a session without an open GET stream; dropped');
      return;
    }
    if (writeEvent(res, bytes) || this.#watching === res) return;
    this.#watching = res;
    const relieve = (): void => {
      res.off('drain', relieve);
      res.off('close', relieve);
      if (this.#watching === res) this.#watching = undefined;
      this.owned.pressureChanged();
    };
    res.once('drain', relieve).once('close', relieve);
  }
}
