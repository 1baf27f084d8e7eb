/**
 * One request of a 2026-07-28 client, served on a pooled upstream session (src/session/pool.ts) — and, when
 * the upstream asks the client something on the way, the retries that carry the answers.
 *
 * - The request goes upstream under the session's own id; its answer comes back under the client's, as a
 *   complete result (`resultType`, the caching fields, the server's identity: src/protocol/modern.ts).
 * - Progress and log messages of the request stream to the client (the answer turns into an SSE stream).
 * - A server→client request of the upstream (sampling, elicitation, roots) ends the HTTP answer with an
 *   `input_required` result whose `requestState` names this exchange. The upstream request stays in flight
 *   on its session; the client's retry (a new request carrying `inputResponses` and that `requestState`)
 *   finds the exchange, and each answer goes upstream as the response to the request it answers. A request
 *   the client has no capability for is refused upstream at once (the tool sees an error, never a hang).
 * - The client closing the response stream before the answer cancels the upstream request
 *   (`notifications/cancelled`); so does a retry that never comes (within timeoutMs).
 * - Whatever way it ends, the session goes back to the pool exactly once.
 */
import type { ServerResponse } from 'node:http';
import { RetrofitError } from '../../errors.js';
import { stringifyKept, trailOf, trailUnder, type LiteralTrail } from '../../json-literals.js';
import { isJsonObject, type JsonObject } from '../../json.js';
import { classifyMessage, type JsonRpcId } from '../../jsonrpc/classify.js';
import type { Logger } from '../../log.js';
import { completeResult, INPUT_CAPABILITY, INPUT_REQUIRED_METHODS, inputRequest } from '../../protocol/modern.js';
import { deliveryMessage, deliveryText, type Delivery } from '../../session/client-side.js';
import type { Pending } from '../../session/pending.js';
import type { PooledSession, PoolStream } from '../../session/pooled-session.js';
import { messageEvent } from '../../stream/sse-encode.js';
import { SSE_HEADERS } from '../write.js';
import type { HeldExchanges } from './held.js';

/** Notifications that belong to listeners (subscriptions/listen), not to the request they arrived during. */
const LISTENED: ReadonlySet<string> = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
]);

/** How long the upstream's requests of one round are collected before the client is asked (ms). */
export const INPUT_WINDOW_MS = 10;
/**
 * The upstream's requests one exchange holds for its client's answers, at most: the upstream may ask on while
 * the client is away (between input_required and the retry), and nothing else bounds what it asks.
 */
export const MAX_INPUT_REQUESTS = 64;

export interface ExchangeOptions {
  readonly session: PooledSession;
  /** The client's request as it came. */
  readonly method: string;
  /** `params.name` / `params.uri`, for matching a retry to it. */
  readonly target: string | undefined;
  readonly capabilities: JsonObject;
  /** The request's `_meta` logLevel: log messages below it (all, without one) are not the client's. */
  readonly logLevel: string | undefined;
  readonly timeoutMs: number;
  readonly held: HeldExchanges<ModernExchange>;
  readonly log: Logger;
  /**
   * The pool takes the session back; `reusable` false when the upstream request was given up (cancelled, or
   * not answered in time): the upstream may still be working on it, so the session is lent to nobody else.
   */
  readonly release: (session: PooledSession, reusable: boolean) => void;
  /**
   * It now waits for its client's retry, holding its session: a request already waiting for a session may take
   * it (the pool decides; see HeldExchanges.reclaimOldest).
   */
  readonly onHeld: () => void;
  /** A list change or resource update that arrived during the request (for listeners). */
  readonly onNotification: (method: string, json: string) => void;
  /** What the client got, for the exchange's log line. */
  readonly outcome: { rpcError?: number | undefined; errorCode?: string | undefined };
}

interface Outstanding {
  /** The upstream's id of its request. */
  readonly id: JsonRpcId;
  readonly request: JsonObject;
  /** Sent to the client in an input_required result already. */
  asked: boolean;
}

export class ModernExchange implements PoolStream {
  readonly #o: ExchangeOptions;
  #res: ServerResponse | undefined;
  #clientId: JsonRpcId = null;
  #mode: 'unsent' | 'sse' = 'unsent';
  /** The session's entry of the upstream request. */
  #pending: Pending<PoolStream> | undefined;
  readonly #outstanding = new Map<string, Outstanding>();
  #inputs = 0;
  /** It refused a request past MAX_INPUT_REQUESTS (logged once). */
  #overAsked = false;
  #flushing = false;
  /** The retry's requestState while one is awaited. */
  #token: string | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  /** The upstream's answer when it came while no response was attached (between input_required and retry). */
  #answer: Delivery | undefined;
  #released = false;
  #done = false;

  constructor(options: ExchangeOptions) {
    this.#o = options;
  }

  get method(): string {
    return this.#o.method;
  }

  get target(): string | undefined {
    return this.#o.target;
  }

  get backedUp(): boolean {
    return this.#attached() && this.#res!.writableNeedDrain;
  }

  /** Serve the client's request: it goes upstream as `message` (under the session's id). */
  start(res: ServerResponse, clientId: JsonRpcId, send: (stream: PoolStream) => Pending<PoolStream> | undefined): void {
    this.#attach(res, clientId);
    this.#pending = send(this);
  }

  /**
   * The request never reached the upstream (the pooled session it was sent on was gone): the exchange ends
   * without a word to its client, whose response the caller serves again on another session.
   */
  withdraw(): void {
    this.#res = undefined;
    this.#end(false);
  }

  /**
   * A retry of the client's request with the answers to what it was asked (see the module comment); `literals`:
   * the number literals a double cannot hold of the retry's `inputResponses`, by key.
   */
  resume(res: ServerResponse, clientId: JsonRpcId, responses: JsonObject, literals?: LiteralTrail): void {
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#token = undefined;
    this.#attach(res, clientId);
    for (const [key, item] of this.#outstanding) {
      if (!item.asked || !(key in responses)) continue;
      this.#outstanding.delete(key);
      this.#toUpstream({ jsonrpc: '2.0', id: item.id, result: responses[key]! }, trailUnder('result', literals?.children.get(key)));
    }
    this.#extendDeadline();
    if (this.#answer) {
      const answer = this.#answer;
      this.#answer = undefined;
      this.#finish(answer);
      return;
    }
    // Asked and not answered: asked again (the revision's way of insisting), with anything newer.
    for (const item of this.#outstanding.values()) item.asked = false;
    if (this.#outstanding.size > 0) this.#scheduleInputRequired();
  }

  deliver(delivery: Delivery): void {
    if (delivery.answers !== undefined) {
      if (this.#attached()) this.#finish(delivery);
      else if (!this.#done) this.#answer = delivery;
      return;
    }
    const text = deliveryText(delivery);
    const message = deliveryMessage(text);
    if (typeof message.method !== 'string') return;
    if (message.id !== undefined) return this.#upstreamRequest(message);
    if (LISTENED.has(message.method)) return this.#o.onNotification(message.method, text);
    // Its ids are the upstream session's, which the client never saw: the question it withdraws is not asked again.
    if (message.method === 'notifications/cancelled') return this.#withdrawn(isJsonObject(message.params) ? message.params.requestId : undefined);
    if (message.method === 'notifications/message' && !logPasses(isJsonObject(message.params) ? message.params.level : undefined, this.#o.logLevel)) return;
    // Progress and log messages of this request, while the client listens.
    if (this.#attached()) this.#event(text);
  }

  /**
   * Answer the client with `write` instead of a message (the upstream's own HTTP refusal), when nothing was sent
   * to it yet; the exchange ends. False when it cannot (the response is streaming, or gone).
   */
  answerInstead(write: (res: ServerResponse) => boolean): boolean {
    if (this.#done || this.#mode !== 'unsent' || !this.#attached()) return false;
    if (!write(this.#res!)) return false;
    this.#end();
    return true;
  }

  abandon(): void {
    // Only the exchange itself cancels its upstream request; the cancellation path released it already.
  }

  #attach(res: ServerResponse, clientId: JsonRpcId): void {
    this.#res = res;
    this.#clientId = clientId;
    this.#mode = 'unsent';
    res.once('close', () => {
      if (this.#res !== res) return;
      this.#res = undefined;
      // The client closed the stream before its answer: that is a cancellation (2026-07-28).
      if (!this.#done && this.#token === undefined) this.#cancel('the client closed the response stream');
      else this.#o.session.owned.pressureChanged();
    });
    res.on('drain', () => this.#o.session.owned.pressureChanged());
  }

  #attached(): boolean {
    const res = this.#res;
    return res !== undefined && !res.destroyed && !res.writableEnded;
  }

  /** The upstream cancelled its request `id` to the client: it leaves the questions not yet answered. */
  #withdrawn(id: unknown): void {
    for (const [key, item] of this.#outstanding) if (item.id === id) this.#outstanding.delete(key);
  }

  #upstreamRequest(message: JsonObject): void {
    const id = message.id as JsonRpcId;
    const method = message.method as string;
    if (method === 'ping') return this.#toUpstream({ jsonrpc: '2.0', id, result: {} });
    const capability = INPUT_CAPABILITY[method];
    const why = capability === undefined
      ? `${method} is not a request a 2026-07-28 client can be asked`
      : !INPUT_REQUIRED_METHODS.has(this.#o.method)
        ? `a 2026-07-28 client cannot be asked ${method} during ${this.#o.method}`
        : !isJsonObject(this.#o.capabilities[capability])
          ? `the client did not declare the ${capability} capability`
          : undefined;
    if (why !== undefined) {
      this.#o.log.info({ method, why }, 'upstream request refused: the 2026-07-28 client cannot be asked it');
      return this.#toUpstream({ jsonrpc: '2.0', id, error: { code: -32601, message: `${why} (via mcp-retrofit)` } });
    }
    if (this.#outstanding.size >= MAX_INPUT_REQUESTS) {
      if (!this.#overAsked) this.#o.log.warn({ method, max: MAX_INPUT_REQUESTS }, 'the upstream asks more of a 2026-07-28 client than it may hold for it; refused');
      this.#overAsked = true;
      return this.#toUpstream({ jsonrpc: '2.0', id, error: { code: -32000, message: `${MAX_INPUT_REQUESTS} requests to the client already wait for its answers (via mcp-retrofit)` } });
    }
    this.#inputs += 1;
    this.#outstanding.set(`input-${this.#inputs}`, { id, request: inputRequest(message), asked: false });
    if (this.#attached()) this.#scheduleInputRequired();
  }

  /**
   * The upstream's requests that arrive together go to the client in one input_required result: those within
   * INPUT_WINDOW_MS of the first (a child's stdout splits requests written at once over several reads).
   */
  #scheduleInputRequired(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    setTimeout(() => {
      this.#flushing = false;
      if (!this.#attached() || this.#done) return;
      const inputRequests: JsonObject = {};
      for (const [key, item] of this.#outstanding) {
        if (item.asked) continue;
        item.asked = true;
        inputRequests[key] = item.request;
      }
      if (Object.keys(inputRequests).length === 0) return;
      this.#token = this.#o.held.hold(this);
      const token = this.#token;
      this.#write({ jsonrpc: '2.0', id: this.#clientId, result: { resultType: 'input_required', inputRequests, requestState: token } }, 200);
      this.#res = undefined;
      // The upstream request waits for the retry, which waits for a human: neither may time it out early.
      this.#extendDeadline();
      this.#retryTimer = setTimeout(() => {
        if (this.#token !== token) return;
        this.#o.held.forget(token);
        this.#token = undefined;
        this.#o.log.info({ method: this.#o.method }, 'no retry of an input_required request within timeoutMs; the upstream request is cancelled');
        this.#cancel('the client did not retry with the input it was asked for');
      }, this.#o.timeoutMs);
      this.#retryTimer.unref();
      this.#o.onHeld();
    }, INPUT_WINDOW_MS);
  }

  /** Cancel it while it waits for the client's retry (the pool needs its session); true if it did. */
  reclaim(reason: string): boolean {
    if (this.#done || this.#token === undefined) return false;
    this.#o.held.forget(this.#token);
    this.#token = undefined;
    this.#o.log.info({ method: this.#o.method }, `an input_required request waiting for its retry was cancelled: ${reason}`);
    this.#cancel(reason);
    return true;
  }

  /**
   * The answer of the upstream request: the client's, as a complete result, under its id, with the number
   * literals a double cannot hold as the upstream wrote them.
   */
  #finish(delivery: Delivery): void {
    const text = deliveryText(delivery);
    const message = deliveryMessage(text);
    let status = 200;
    let out: JsonObject;
    if (isJsonObject(message.result)) {
      out = { jsonrpc: '2.0', id: this.#clientId, result: completeResult(this.#o.method, message.result, serverInfo(this.#o.session)) };
    } else if (isJsonObject(message.error)) {
      out = { jsonrpc: '2.0', id: this.#clientId, error: message.error };
      const error = message.error;
      this.#o.outcome.rpcError ??= typeof error.code === 'number' ? error.code : undefined;
      const data = isJsonObject(error.data) && typeof error.data.code === 'string' ? error.data.code : undefined;
      if (data !== undefined) this.#o.outcome.errorCode ??= data;
      // The revision's statuses: a method the server does not have, and what its transport refuses with 400.
      status = statusOfError(error.code);
    } else {
      const error = new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [this.#o.session.owned.state.upstream]);
      out = error.toJsonRpc(this.#clientId) as unknown as JsonObject;
      status = error.status;
    }
    this.#write(out, status, trailOf(text));
    // The gateway's own timeout answered it: the upstream was told to cancel, but may still be at work on it.
    this.#end(delivery.error?.data !== 'RETROFIT_ERR_UPSTREAM_TIMEOUT');
  }

  /** Write the final message: a JSON answer when nothing was streamed, else the stream's last event. */
  #write(message: JsonObject, status: number, literals?: LiteralTrail): void {
    const res = this.#res;
    if (!res || !this.#attached()) return;
    const json = stringifyKept(message, literals);
    if (this.#mode === 'unsent') {
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      res.end(json);
      return;
    }
    res.end(messageEvent(json));
  }

  #event(json: string): void {
    const res = this.#res!;
    if (this.#mode === 'unsent') {
      this.#mode = 'sse';
      res.writeHead(200, SSE_HEADERS);
    }
    res.write(messageEvent(json));
  }

  /** A response of the client's (or the gateway's) to the upstream, the client's literals (`literals`) as it wrote them. */
  #toUpstream(message: JsonObject, literals?: LiteralTrail): void {
    const owned = this.#o.session.owned;
    void owned.notify(classifyMessage(message), stringifyKept(message, literals));
  }

  #extendDeadline(): void {
    if (this.#pending) this.#pending.deadline = Date.now() + this.#o.timeoutMs * 2;
  }

  /** Give up on the upstream request: it is cancelled, what it asked is refused, the session goes back. */
  #cancel(reason: string): void {
    if (this.#done) return;
    const id = this.#pending?.id;
    for (const item of this.#outstanding.values()) this.#toUpstream({ jsonrpc: '2.0', id: item.id, error: { code: -32603, message: `request cancelled: ${reason}` } });
    this.#outstanding.clear();
    if (id !== undefined && this.#o.session.owned.state.pending.peek(id) === this.#pending) {
      const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } };
      this.#toUpstream(cancel);
    }
    this.#end(false);
  }

  /** The exchange is over; `reusable` false when its upstream request was given up (see ExchangeOptions.release). */
  #end(reusable = true): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    if (this.#token !== undefined) this.#o.held.forget(this.#token);
    if (this.#released) return;
    this.#released = true;
    this.#o.release(this.#o.session, reusable);
  }
}

/** HTTP statuses the revision gives its own error codes (basic/transports/streamable-http). */
const ERROR_STATUS: ReadonlyMap<unknown, number> = new Map([
  [-32601, 404],
  [-32020, 400],
  [-32021, 400],
  [-32022, 400],
]);

function statusOfError(code: unknown): number {
  return ERROR_STATUS.get(code) ?? 200;
}

/** Log levels of the revision, least severe first (RFC 5424's order). */
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** A log message reaches a request's client only at or above the level its `_meta` asked for; none without one. */
export function logPasses(level: unknown, wanted: string | undefined): boolean {
  if (wanted === undefined) return false;
  const at = LOG_LEVELS.indexOf(typeof level === 'string' ? level : '');
  const min = LOG_LEVELS.indexOf(wanted);
  return min === -1 || at === -1 || at >= min;
}

function serverInfo(session: PooledSession): JsonObject | undefined {
  const info = session.initialize?.serverInfo;
  return isJsonObject(info) ? info : undefined;
}
