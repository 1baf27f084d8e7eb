/**
 * A session the gateway owns: its client talks to the gateway (src/http/front/, src/http/legacy/edge.ts) and the
 * gateway talks to the upstream over one link (a stdio child, a legacy SSE connection). This is where the
 * two meet, the same for every kind of link:
 * - client requests are registered (SessionState) with a deadline and sent; their answers, rewritten where
 *   they may change (src/session/inbound.ts), go back to the stream the request came on;
 * - notifications and server→client requests go to the stream of the request they concern (its progress
 *   token, else the only request in flight: ./related.ts), else to the session's own stream; a batch's
 *   messages each as its own JSON, in order, one before an answer in it on that answer's request's stream;
 * - messages leave in the upstream's order, even while one waits for a worker thread;
 * - every request waiting gets exactly one answer: its own, or an error — past its deadline (timeoutMs, moved
 *   on by each progress notification) -32001; an answer a strict client would drop, or one nested too deeply,
 *   UPSTREAM_PROTOCOL; one over the size bound RESULT_TOO_LARGE; one whose handling failed INTERNAL (nothing
 *   thrown while handling the upstream's messages escapes: it is logged with its cause); evicted from the
 *   pending table, UPSTREAM_BUSY; the link ending, its cause. The upstream gets notifications/cancelled for a
 *   request the session gave up on — never for initialize, which the link is told of instead (share mode);
 * - the client side holds the link back (backpressure) while one of its streams is backed up: the session
 *   asks it after each delivery and whenever a stream drains, so the pause lasts exactly as long as that.
 */
import { RetrofitError, type ErrorCode } from '../errors.js';
import { isJsonObject, type JsonObject } from '../json.js';
import { classifyMessage, type ClassifiedMessage } from '../jsonrpc/classify.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { methodLabel } from '../protocol/methods.js';
import type { Rewriter } from '../pipeline/rewrite.js';
import { endsOf, sniffResponseId, textHead } from '../jsonrpc/sniff.js';
import { nestedTooDeeplyInSlices } from '../jsonrpc/strict.js';
import type { LinkClosed, LinkDropped, LinkFrame, SendOptions, SendOutcome, UpstreamLink } from '../upstream/link.js';
import { inbound, type Inbound, type InboundMessage } from './inbound.js';
import { InOrder } from './in-order.js';
import type { DropReason, Pending } from './pending.js';
import type { RequestContext, Registered, SessionState } from './state.js';
import { errorOf, type ClientSide, type Delivery } from './client-side.js';
import { DeadlineTimer } from './deadline-timer.js';
import { relatedRequest } from './related.js';
import { CLOSED_MESSAGE, dropFailure, exitError, internalError } from './link-failures.js';

export type { ClientSide, Delivery } from './client-side.js';

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
  readonly #deadlines = new DeadlineTimer((now) => this.#expire(now));
  #closed: LinkClosed | undefined;
  #paused = false;

  constructor(options: OwnedSessionOptions<S>) {
    this.#options = options;
    this.state = options.state;
    this.link = options.link;
    this.#log = options.log;
    this.#order = new InOrder((err) => this.#log.error({ err }, 'message from the upstream could not be handled'));
    this.state.pending.onDropped = (pending, why) => this.#evicted(pending, why);
    this.link.onframe = (frame) => this.#order.run(() => this.#fromUpstream(frame), (err) => this.#unhandled(frame, err));
    this.link.ondropped = (dropped) => this.#order.run(() => void this.#dropped(dropped));
    this.link.onclose = (closed) => this.#order.run(() => void this.#linkClosed(closed));
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
    const registered = this.state.expect(c, { ...ctx, routeAll: true, deadline: Date.now() + this.#options.timeoutMs() });
    // The deadline runs from now, not from when the send settles: a send that waits (a legacy upstream's
    // POSTs queued behind a batch's thousand others, a child's full stdin) counts against it.
    if (registered.pending) this.#deadlines.arm(registered.pending.deadline);
    return registered;
  }

  /** Send JSON text carrying the registered `requests`; when it fails, they are no longer pending. */
  send(json: string, requests: readonly Pending<S>[], options?: SendOptions): SendOutcome | Promise<SendOutcome> {
    const sent = this.#closed ? this.#refused() : this.link.send(json, { ...options, ids: requests.map((p) => p.id) });
    const settle = (outcome: SendOutcome): SendOutcome => {
      // An upstream that stopped reading what it was sent is an upstream fault the operator should see.
      if (!outcome.ok && outcome.error.code === 'RETROFIT_ERR_UPSTREAM_BUSY') this.#options.metrics.upstreamErrors.inc({ upstream: this.#options.upstream, kind: 'busy' });
      for (const pending of requests) {
        // Only this request's entry: past its deadline it was answered, and its id may be in use again.
        if (!outcome.ok && this.state.pending.peek(pending.id) === pending) this.state.pending.release(pending.id);
        else this.#deadlines.arm(pending.deadline);
      }
      return outcome;
    };
    return sent instanceof Promise ? sent.then(settle) : settle(sent);
  }

  /**
   * A client notification or response (to a server→client request): observed, then forwarded as is — but
   * never a cancellation of a pending initialize, which the spec forbids (and which in share mode would cancel
   * the initialize other sessions wait for).
   */
  notify(c: ClassifiedMessage, json: string, send?: SendOptions): SendOutcome | Promise<SendOutcome> {
    if (!this.observe(c)) return ACCEPTED;
    return this.#closed ? this.#refused() : this.link.send(json, { ...send, ids: NO_IDS });
  }

  /**
   * What a client notification means to the session (a cancellation releases its request), without sending
   * it. False when it must not reach the upstream: a cancellation of a pending initialize (logged).
   */
  observe(c: ClassifiedMessage): boolean {
    if (this.#cancelsInitialize(c)) {
      this.#log.warn({ id: cancelledId(c.message) }, 'a client cancelled its initialize request; not forwarded (initialize is never cancelled)');
      return false;
    }
    if (c.method === 'notifications/cancelled') this.#cancelled(c.message);
    return true;
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
    this.#deadlines.clear();
    this.#failAll(code, reason);
    await this.link.close();
  }

  #refused(): SendOutcome {
    return { ok: false, error: exitError(this.#options.upstream, this.#closed!) };
  }

  #fromUpstream(frame: LinkFrame): Promise<void> | undefined {
    const data = frame.data;
    if (typeof data === 'string') return this.#handle(frame);
    // Bytes the link did not check (LinkFrame): read in slices past a mebibyte, the frames after it waiting.
    const deep = nestedTooDeeplyInSlices(data);
    if (deep instanceof Promise) return deep.then((found) => (found ? this.#tooDeep(data) : this.#handle(frame)));
    return deep ? this.#tooDeep(data) : this.#handle(frame);
  }

  /** Bytes nested deeper than MAX_DEPTH: dropped as the link drops such text. */
  #tooDeep(data: Buffer): undefined {
    const id = sniffResponseId(endsOf(data));
    this.#dropped({ reason: 'depth', bytes: data.length, ...(id !== undefined && { id }) });
    return undefined;
  }

  #handle(frame: LinkFrame): Promise<void> | undefined {
    const handled = inbound(this.state, this.#options.rewriter, frame.data, this.#log, ROUTE_ALL);
    if (handled instanceof Promise) return handled.then((h) => this.#route(h, frame));
    this.#route(handled, frame);
    return undefined;
  }

  #route(handled: Inbound<S>, frame: LinkFrame): void {
    if (handled.invalid) {
      this.#log.warn({ line: textHead(frame.data), bytes: frame.data.length }, 'upstream sent something that is not JSON; skipped');
      return;
    }
    if (handled.messages.length === 0) this.#log.warn({ line: textHead(frame.data) }, 'upstream sent something that is not a JSON-RPC message; skipped');
    // A batch from the upstream (2025-03-26 allows them): each message on its own way, in order, as its own JSON
    // (InboundMessage.json: never a worker's stub); one before an answer goes with that answer's request.
    const alone = !handled.batch;
    const answeredLater = alone ? [] : handled.messages.flatMap((m) => (m.pending ? [m.pending] : []));
    for (const m of handled.messages) {
      if (m.pending && answeredLater[0] === m.pending) answeredLater.shift();
      try {
        if (alone) this.#routeOne(m, frame, handled.out ?? frame.data, handled.out === undefined ? frame.raw : undefined);
        else this.#routeOne(m, frame, m.json ?? m.replaced ?? m.message, undefined, answeredLater);
      } catch (err) {
        // A request whose answer was in hand is still owed one.
        this.#log.error({ err, id: m.message.id, answered: m.pending !== undefined }, 'message from the upstream could not be handled; dropped');
        if (m.pending) this.#fail(m.pending, this.#internal(err));
      }
    }
  }

  #routeOne(m: InboundMessage<S>, frame: LinkFrame, json: string | Buffer | JsonObject, raw?: Buffer, answeredLater: readonly Pending<S>[] = NONE): void {
    const message = m.message;
    if (m.problem !== undefined && m.pending) return this.#invalidAnswer(m.pending, m.problem, frame);
    if (classifyMessage(message).kind === 'invalid') {
      this.#log.warn({ line: textHead(frame.data) }, 'upstream sent something that is not a JSON-RPC message; skipped');
      return;
    }
    const text = Buffer.isBuffer(json) || typeof json === 'string' ? json : JSON.stringify(json);
    const isAnswer = message.method === undefined && ('result' in message || 'error' in message);
    if (isAnswer) {
      const pending = m.pending;
      if (!pending) {
        this.#log.debug({ id: message.id }, 'upstream answered a request nobody waits for; dropped');
        return;
      }
      this.#options.metrics.latency.observe(this.#options.upstream, methodLabel(pending.method), (performance.now() - pending.started) / 1000);
      const error = errorOf(m.replaced !== undefined && !Buffer.isBuffer(m.replaced) ? m.replaced : message);
      this.#deliver(pending.stream, { json: text, answers: pending.id, ...(raw && { raw }), ...(error && { error }) });
      // Nothing waiting any more: the timer has nothing to do (it would linger up to timeoutMs).
      if (this.state.pending.size === 0) this.#deadlines.clear();
      return;
    }
    const related = relatedRequest(this.state.pending, message, frame.related, answeredLater);
    if (related && message.method === 'notifications/progress' && related.progressToken !== undefined && isJsonObject(message.params) && message.params.progressToken === related.progressToken) {
      // Progress on the request's own token shows it is alive: its deadline moves on. Progress for no request
      // in flight (a call that timed out, say) moves nobody's: a request that asked for none keeps its deadline.
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

  /** The upstream answered `pending` with something a strict client would drop: the client gets an error instead. */
  #invalidAnswer(pending: Pending<S>, problem: string, frame: LinkFrame): void {
    this.#options.metrics.upstreamErrors.inc({ upstream: this.#options.upstream, kind: 'protocol' });
    this.#log.warn({ id: pending.id, method: pending.method, problem, line: textHead(frame.data) }, 'upstream answered with an invalid JSON-RPC response; the client gets an error');
    this.#fail(pending, new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [this.#options.upstream], { cause: new Error(problem) }));
  }

  /** A message the link did not pass on (see LinkDropped): the request it answers, if any, gets the error. */
  #dropped(dropped: LinkDropped): void {
    const upstream = this.#options.upstream;
    const failure = dropFailure(upstream, dropped, this.#options.maxResultBytes());
    // A report about a request that may have been answered already (reset, unanswered): only one still waiting.
    if (failure.onlyIfAwaited && (dropped.id === undefined || !this.state.pending.has(dropped.id))) return;
    const pending = dropped.id === undefined ? undefined : this.state.pending.answer(dropped.id);
    if (failure.kind !== undefined) this.#options.metrics.upstreamErrors.inc({ upstream, kind: failure.kind });
    this.#log.warn({ bytes: dropped.bytes, id: dropped.id, answered: pending !== undefined }, failure.message);
    if (pending) this.#fail(pending, failure.error);
  }

  /** Handling a message threw (the step's own failure handler): logged, and the request it answers is answered. */
  #unhandled(frame: LinkFrame, err: unknown): void {
    const id = sniffResponseId(endsOf(frame.data));
    const pending = id === undefined ? undefined : this.state.pending.answer(id);
    this.#log.error({ err, id, answered: pending !== undefined, bytes: frame.data.length }, 'message from the upstream could not be handled; dropped');
    if (pending) this.#fail(pending, this.#internal(err));
  }

  #internal(cause: unknown): RetrofitError {
    return internalError(this.#options.upstream, cause);
  }

  /** The pending table let a request go unanswered (evicted past its bound): its client hears, the upstream too. */
  #evicted(pending: Pending<S>, why: DropReason): void {
    try {
      this.#log.warn({ id: pending.id, method: pending.method, why }, 'request dropped from the pending table unanswered; the client gets an error');
      const error = new RetrofitError('RETROFIT_ERR_UPSTREAM_BUSY', [this.#options.upstream, `more requests in flight in this session than the gateway keeps; request ${JSON.stringify(pending.id)} was ${why}`]);
      this.#fail(pending, error);
      this.#abandon(pending, `${why} by the gateway`, error);
    } catch (err) {
      // Called from the pending table while a new request registers: that request must not fail for it.
      this.#log.error({ err, id: pending.id }, 'an evicted request could not be answered');
    }
  }

  /** The session gave up on `pending`: the upstream is told (a cancellation), or the link for initialize. */
  #abandon(pending: Pending<S>, reason: string, error: RetrofitError): void {
    if (this.#closed) return;
    this.link.abandoned?.(pending.id, pending.method, error);
    // The spec forbids cancelling initialize: the link decides what a lost one means (share mode restarts).
    if (pending.method === 'initialize' || this.#closed) return;
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: pending.id, reason } };
    void this.link.send(JSON.stringify(cancel), { ids: NO_IDS });
  }

  #cancelsInitialize(c: ClassifiedMessage): boolean {
    if (c.method !== 'notifications/cancelled') return false;
    const id = cancelledId(c.message);
    return id !== undefined && this.state.pending.peek(id)?.method === 'initialize';
  }

  /** The client gave up on a request: no answer will be routed for it. */
  #cancelled(message: unknown): void {
    const id = cancelledId(message);
    if (id === undefined) return;
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
    this.#deadlines.stop();
    const error = exitError(this.#options.upstream, closed);
    if (closed.kind !== 'requested') {
      this.#options.metrics.upstreamErrors.inc({ upstream: this.#options.upstream, kind: closed.kind === 'spawn' ? 'spawn' : closed.kind === 'exited' ? 'exited' : closed.kind });
      this.#log.warn({ reason: closed.reason, ...(closed.stderr !== undefined && { stderr: closed.stderr }), err: closed.error }, CLOSED_MESSAGE[closed.kind]);
    }
    for (const pending of this.state.pending.open()) this.#fail(pending, error);
    this.#options.onclose(closed);
  }

  /** The deadline timer went off: what is due fails with a timeout; returns the next deadline. */
  #expire(now: number): number {
    let next = Infinity;
    for (const pending of this.state.pending.open()) {
      if (pending.deadline > now) {
        next = Math.min(next, pending.deadline);
        continue;
      }
      const timeoutMs = this.#options.timeoutMs();
      this.#log.warn({ id: pending.id, method: pending.method, timeoutMs }, pending.method === 'initialize' ? 'upstream did not answer initialize within timeoutMs' : 'upstream did not answer within timeoutMs; request cancelled');
      this.#options.metrics.upstreamErrors.inc({ upstream: this.#options.upstream, kind: 'timeout' });
      const error = new RetrofitError('RETROFIT_ERR_UPSTREAM_TIMEOUT', [this.#options.upstream, timeoutMs]);
      this.#fail(pending, error);
      this.#abandon(pending, `no answer within ${timeoutMs} ms`, error);
    }
    return next;
  }
}

/** What every upstream message is read with: parsed always (every message is routed, a batch's apart), answers held strictly. */
const ROUTE_ALL = Object.freeze({ always: true, strict: true, split: true });
const ACCEPTED: SendOutcome = Object.freeze({ ok: true });
const NONE: readonly never[] = Object.freeze([]);
/** A notification or a response carries no request of ours (SendOptions.ids). */
const NO_IDS: readonly (string | number)[] = Object.freeze([]);

/** The `requestId` a notifications/cancelled names, if it is one. */
function cancelledId(message: unknown): string | number | undefined {
  const params = isJsonObject(message) && isJsonObject(message.params) ? message.params : undefined;
  const id = params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
