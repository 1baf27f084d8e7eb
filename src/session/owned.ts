/**
 * A session the gateway owns: its client talks to the gateway (src/http/front/, src/http/legacy/edge.ts) and the
 * gateway talks to the upstream over one link (a stdio child, a legacy SSE connection). This is where the
 * two meet, the same for every kind of link:
 * - client requests are registered (SessionState) with a deadline and sent; their answers, rewritten where
 *   they may change (src/session/inbound.ts), go back to the stream the request came on;
 * - notifications and server→client requests go to the stream of the request they concern (its progress
 *   token, else the only request in flight), else to the session's own stream;
 * - messages leave in the upstream's order, even while one waits for a worker thread;
 * - a request past its deadline (timeoutMs, moved on by each progress notification) gets a -32001 error and
 *   the upstream gets notifications/cancelled; a message over the size bound fails its request with
 *   RESULT_TOO_LARGE; a link that ends fails everything still waiting, with the cause.
 * - the client side holds the link back (backpressure) while one of its streams is backed up: the session
 *   asks it after each delivery and whenever a stream drains, so the pause lasts exactly as long as that.
 */
import { RetrofitError, type ErrorCode } from '../errors.js';
import { isJsonObject, type JsonObject } from '../json.js';
import { classifyMessage, type ClassifiedMessage, type JsonRpcId } from '../jsonrpc/classify.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { Rewriter } from '../pipeline/rewrite.js';
import type { LinkClosed, LinkFrame, LinkOverlong, SendOptions, SendOutcome, UpstreamLink } from '../upstream/link.js';
import { inbound, type InboundMessage } from './inbound.js';
import { InOrder } from './in-order.js';
import type { Pending } from './pending.js';
import type { RequestContext, Registered, SessionState } from './state.js';

/** One message for the client. */
export interface Delivery {
  /** Its JSON text (or UTF-8 bytes, from a worker). */
  readonly json: string | Buffer;
  /** The SSE event it arrived in, when it came framed and is unchanged (legacy clients get it byte for byte). */
  readonly raw?: Buffer;
  /** It is the answer to the request the stream waits for (the stream may end once all are answered). */
  readonly answers?: JsonRpcId;
  /** It is an error answer: its code, and `data.code` when it is one of the gateway's own (request logs). */
  readonly error?: { readonly code: number; readonly data?: string };
}

/** The error part of an answer, for Delivery.error. */
function errorOf(message: JsonObject): Delivery['error'] {
  const error = message.error;
  if (!isJsonObject(error) || typeof error.code !== 'number') return undefined;
  const data = isJsonObject(error.data) && typeof error.data.code === 'string' ? error.data.code : undefined;
  return { code: error.code, ...(data !== undefined && { data }) };
}

/**
 * The client side of an owned session: its streams. `S` identifies one (the stream a request came on).
 * Backpressure is a state the session asks for, never an order of events: after each delivery, and whenever
 * the client side calls OwnedSession.pressureChanged() (a stream drained or closed), the session reads
 * backedUp() and holds the link back exactly while it is true.
 */
export interface ClientSide<S> {
  /** Put a message on `stream`, or on the session's own stream when undefined. */
  deliver(stream: S | undefined, delivery: Delivery): void;
  /** True while one of its streams cannot take more now (its response waits for 'drain'). */
  backedUp(): boolean;
  /** No answer will come for request `id` on `stream` (the client cancelled it). */
  abandon(stream: S | undefined, id: JsonRpcId): void;
  /** Something that is not a message, for a legacy client's stream only (upstream SSE comments). */
  passthrough?(raw: Buffer): void;
}

export interface OwnedSessionOptions<S> {
  readonly upstream: string;
  readonly link: UpstreamLink;
  readonly state: SessionState<S>;
  readonly rewriter: Rewriter;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** The upstream's timeoutMs, read when a request is sent (a reload may change it). */
  readonly timeoutMs: () => number;
  /** limits.maxResultBytes, for the RESULT_TOO_LARGE error's text. */
  readonly maxResultBytes: () => number;
  /** Called once when the link closed (the owner removes the session). */
  readonly onclose: (closed: LinkClosed) => void;
}

export class OwnedSession<S> {
  readonly state: SessionState<S>;
  readonly link: UpstreamLink;
  #client: ClientSide<S> | undefined;
  readonly #options: OwnedSessionOptions<S>;
  readonly #order: InOrder;
  #log: Logger;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  #closed: LinkClosed | undefined;
  #paused = false;

  constructor(options: OwnedSessionOptions<S>) {
    this.#options = options;
    this.state = options.state;
    this.link = options.link;
    this.#log = options.log;
    this.#order = new InOrder((err) => this.#log.error({ err }, 'message from the upstream could not be handled'));
    this.link.onframe = (frame) => this.#order.run(() => this.#fromUpstream(frame));
    this.link.onoverlong = (overlong) =>
      this.#order.run(() => {
        this.#overlong(overlong);
        return undefined;
      });
    this.link.onclose = (closed) =>
      this.#order.run(() => {
        this.#linkClosed(closed);
        return undefined;
      });
    this.link.onpassthrough = (raw) => {
      this.#client?.passthrough?.(raw);
      this.pressureChanged();
    };
  }

  /** Attach the client side (once the edge has made it). */
  attach(client: ClientSide<S>, log?: Logger): void {
    this.#client = client;
    if (log) this.#log = log;
  }

  /** Why the session's link ended, once it did. */
  get closed(): LinkClosed | undefined {
    return this.#closed;
  }

  /**
   * A client request: registered (routed to `ctx.stream`, deadlined) and sent. A failed send has nothing left
   * pending; its outcome says what the client gets.
   */
  request(c: ClassifiedMessage, json: string, ctx: RequestContext<S>, send?: SendOptions): { registered: Registered<S>; sent: SendOutcome | Promise<SendOutcome> } {
    const registered = this.expect(c, ctx);
    return { registered, sent: this.send(json, registered.pending ? [registered.pending] : [], send) };
  }

  /** Register a client request without sending it (a batch goes upstream as one message: see send). */
  expect(c: ClassifiedMessage, ctx: RequestContext<S>): Registered<S> {
    return this.state.expect(c, { ...ctx, routeAll: true, deadline: Date.now() + this.#options.timeoutMs() });
  }

  /** Send JSON text carrying the registered `requests`; when it fails, they are no longer pending. */
  send(json: string, requests: readonly Pending<S>[], options?: SendOptions): SendOutcome | Promise<SendOutcome> {
    const sent = this.#closed ? this.#refused() : this.link.send(json, options);
    const settle = (outcome: SendOutcome): SendOutcome => {
      for (const pending of requests) {
        if (!outcome.ok) this.state.pending.release(pending.id);
        else this.#arm(pending.deadline);
      }
      return outcome;
    };
    return sent instanceof Promise ? sent.then(settle) : settle(sent);
  }

  /** A client notification or response (to a server→client request): observed, then forwarded as is. */
  notify(c: ClassifiedMessage, json: string, send?: SendOptions): SendOutcome | Promise<SendOutcome> {
    this.observe(c);
    return this.#closed ? this.#refused() : this.link.send(json, send);
  }

  /** What a client notification means to the session (a cancellation releases its request), without sending it. */
  observe(c: ClassifiedMessage): void {
    if (c.method === 'notifications/cancelled') this.#cancelled(c.message);
  }

  /**
   * The client side's pressure may have changed (a stream drained, or closed): ask it, and hold the link back
   * exactly while it is backed up. Asked again after every delivery, so no order of 'drain' and deliveries
   * can leave the link paused while nothing is backed up.
   */
  pressureChanged(): void {
    const backedUp = this.#client?.backedUp() ?? false;
    if (backedUp === this.#paused) return;
    this.#paused = backedUp;
    if (backedUp) this.link.pause();
    else this.link.resume();
  }

  /** Resolves once no request waits for its answer (graceful shutdown). */
  settled(): Promise<void> {
    return this.state.pending.settled();
  }

  /** End the session: what still waits is failed with `code`, then the link is closed. */
  async close(code: ErrorCode = 'RETROFIT_ERR_UPSTREAM_EXITED', reason = 'session closed'): Promise<void> {
    clearTimeout(this.#timer);
    this.#failAll(code, reason);
    await this.link.close();
  }

  #refused(): SendOutcome {
    return { ok: false, error: this.#exitError(this.#closed!) };
  }

  #exitError(closed: LinkClosed): RetrofitError {
    const why = closed.stderr ? `${closed.reason}; stderr: ${closed.stderr}` : closed.reason;
    const code: ErrorCode = closed.kind === 'unreachable' ? 'RETROFIT_ERR_UPSTREAM_UNREACHABLE' : closed.kind === 'protocol' ? 'RETROFIT_ERR_UPSTREAM_PROTOCOL' : 'RETROFIT_ERR_UPSTREAM_EXITED';
    return new RetrofitError(code, code === 'RETROFIT_ERR_UPSTREAM_EXITED' ? [this.#options.upstream, why] : [this.#options.upstream], closed.error ? { cause: closed.error } : undefined);
  }

  #fromUpstream(frame: LinkFrame): Promise<void> | undefined {
    const handled = inbound(this.state, this.#options.rewriter, frame.data, this.#log, { always: true });
    if (handled instanceof Promise) return handled.then((h) => this.#route(h.messages, h.out, frame, h.invalid));
    this.#route(handled.messages, handled.out, frame, handled.invalid);
    return undefined;
  }

  #route(messages: readonly InboundMessage<S>[], out: string | Buffer | undefined, frame: LinkFrame, invalid?: boolean): void {
    if (invalid) {
      this.#log.warn({ line: frame.data.slice(0, 200), bytes: frame.data.length }, 'upstream sent something that is not JSON; skipped');
      return;
    }
    if (messages.length === 0 || messages.some((m) => classifyMessage(m.message).kind === 'invalid')) {
      this.#log.warn({ line: frame.data.slice(0, 200) }, 'upstream sent something that is not a JSON-RPC message; skipped');
      return;
    }
    if (messages.length > 1) {
      // A batch from the upstream (2025-03-26 allows them): each message on its own way.
      for (const m of messages) this.#routeOne(m, m.replaced ?? JSON.stringify(m.message));
      return;
    }
    const only = messages[0]!;
    this.#routeOne(only, out ?? frame.data, out === undefined ? frame.raw : undefined);
  }

  #routeOne(m: InboundMessage<S>, json: string | Buffer | JsonObject, raw?: Buffer): void {
    const text = Buffer.isBuffer(json) || typeof json === 'string' ? json : JSON.stringify(json);
    const message = m.message;
    const isAnswer = message.method === undefined && ('result' in message || 'error' in message);
    if (isAnswer) {
      const pending = m.pending;
      if (!pending) {
        this.#log.debug({ id: message.id }, 'upstream answered a request nobody waits for; dropped');
        return;
      }
      this.#options.metrics.latency.observe(this.#options.upstream, pending.method, (performance.now() - pending.started) / 1000);
      const error = errorOf(m.replaced !== undefined && !Buffer.isBuffer(m.replaced) ? m.replaced : message);
      this.#deliver(pending.stream, { json: text, answers: pending.id, ...(raw && { raw }), ...(error && { error }) });
      return;
    }
    const related = this.#relatedTo(message);
    if (related && message.method === 'notifications/progress') {
      // Progress shows the request is alive: its deadline moves on.
      related.deadline = Date.now() + this.#options.timeoutMs();
    }
    this.#deliver(related?.stream, { json: text, ...(raw && { raw }) });
  }

  #deliver(stream: S | undefined, delivery: Delivery): void {
    const client = this.#client;
    if (!client) return;
    client.deliver(stream, delivery);
    this.pressureChanged();
  }

  /** The request a notification or server→client request belongs to (see the module comment). */
  #relatedTo(message: JsonObject): Pending<S> | undefined {
    const params = isJsonObject(message.params) ? message.params : undefined;
    const token = message.method === 'notifications/progress' ? params?.progressToken : isJsonObject(params?._meta) ? params._meta.progressToken : undefined;
    if (typeof token === 'string' || typeof token === 'number') {
      const owner = this.state.pending.find((p) => p.progressToken === token);
      if (owner) return owner;
    }
    return this.state.pending.single();
  }

  #overlong(overlong: LinkOverlong): void {
    this.#options.metrics.upstreamErrors.inc({ upstream: this.#options.upstream, kind: 'too_large' });
    const pending = overlong.id === undefined ? undefined : this.state.pending.answer(overlong.id);
    this.#log.warn({ bytes: overlong.bytes, id: overlong.id, answered: pending !== undefined }, 'upstream message over maxResultBytes dropped');
    if (pending) this.#fail(pending, new RetrofitError('RETROFIT_ERR_RESULT_TOO_LARGE', [this.#options.upstream, this.#options.maxResultBytes()]));
  }

  /** The client gave up on a request: no answer will be routed for it. */
  #cancelled(message: unknown): void {
    const params = isJsonObject(message) && isJsonObject(message.params) ? message.params : undefined;
    const id = params?.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const pending = this.state.pending.peek(id);
    if (!pending || pending.answered) return;
    this.state.pending.release(id);
    this.#client?.abandon(pending.stream, id);
    this.#log.debug({ id }, 'request cancelled by the client; its stream released');
  }

  #fail(pending: Pending<S>, error: RetrofitError): void {
    this.state.pending.release(pending.id);
    this.#deliver(pending.stream, { json: JSON.stringify(error.toJsonRpc(pending.id)), answers: pending.id, error: { code: error.rpcCode, data: error.code } });
  }

  #failAll(code: ErrorCode, reason: string): void {
    for (const pending of this.state.pending.open()) this.#fail(pending, new RetrofitError(code, [this.#options.upstream, reason]));
  }

  #linkClosed(closed: LinkClosed): void {
    if (this.#closed) return;
    this.#closed = closed;
    clearTimeout(this.#timer);
    const error = this.#exitError(closed);
    if (closed.kind !== 'requested') {
      this.#options.metrics.upstreamErrors.inc({ upstream: this.#options.upstream, kind: closed.kind === 'spawn' ? 'spawn' : closed.kind === 'exited' ? 'exited' : closed.kind });
      const what = { spawn: 'upstream child failed to spawn', exited: 'upstream child exited', unreachable: 'upstream connection ended', protocol: 'upstream sent something that is not MCP' } as const;
      this.#log.warn({ reason: closed.reason, ...(closed.stderr !== undefined && { stderr: closed.stderr }), err: closed.error }, what[closed.kind]);
    }
    for (const pending of this.state.pending.open()) this.#fail(pending, error);
    this.#options.onclose(closed);
  }

  /** Keep one timer, at the earliest deadline. */
  #arm(deadline: number): void {
    if (deadline >= this.#timerAt || !Number.isFinite(deadline)) return;
    clearTimeout(this.#timer);
    this.#timerAt = deadline;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, deadline - Date.now()));
    this.#timer.unref();
  }

  #expire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const pending of this.state.pending.open()) {
      if (pending.deadline > now) {
        next = Math.min(next, pending.deadline);
        continue;
      }
      const timeoutMs = this.#options.timeoutMs();
      this.#log.warn({ id: pending.id, method: pending.method, timeoutMs }, 'upstream did not answer within timeoutMs; request cancelled');
      this.#options.metrics.upstreamErrors.inc({ upstream: this.#options.upstream, kind: 'timeout' });
      this.#fail(pending, new RetrofitError('RETROFIT_ERR_UPSTREAM_TIMEOUT', [this.#options.upstream, timeoutMs]));
      const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: pending.id, reason: `no answer within ${timeoutMs} ms` } };
      if (!this.#closed) void this.link.send(JSON.stringify(cancel));
    }
    this.#arm(next);
  }
}
