/**
 * The pooled upstream sessions that serve 2026-07-28 clients of an upstream that holds sessions (a stdio
 * child, a legacy SSE connection). Those clients have no session: each request stands alone, with its
 * capabilities in `_meta`. The gateway initializes upstream sessions itself and lends each to one request at
 * a time (a server→client request of the upstream then belongs to that request, with nothing to guess):
 * - sessions are kept apart by `key` (the capabilities a session was initialized with decide which requests
 *   its upstream may send, and, for an HTTP-carried link, the credentials it was opened with: every forwarded
 *   header that may carry an identity, Authorization, Cookie and API-key headers alike);
 * - at most `size()` sessions exist; a request finding none free waits in line (at most MAX_WAITERS) until
 *   one is, or its deadline passes (RETROFIT_ERR_UPSTREAM_BUSY). An idle session of another key gives way;
 * - a session unused for `idleTimeoutMs()` is closed; one whose link ended is dropped, and the next request
 *   that needs it starts a new one (its requests were answered with the link's error by the session core);
 *   one whose request was given up (cancelled, timed out) is closed rather than lent again;
 * - a message of a pooled session that belongs to no request (a list change, a resource update) goes to
 *   `onNotification`; a server→client request outside any request is refused (ping is answered).
 */
import { PACKAGE_VERSION } from '../version.js';
import type { IncomingHttpHeaders } from 'node:http';
import { ERRORS, RetrofitError, type ErrorCode } from '../errors.js';
import { isJsonObject, type JsonObject } from '../json.js';
import { classifyMessage, type JsonRpcId } from '../jsonrpc/classify.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { Rewriter } from '../pipeline/rewrite.js';
import { LATEST_STATEFUL_REVISION } from '../protocol/era.js';
import { initializeCapabilities } from '../protocol/modern.js';
import type { LinkHttpAnswer, UpstreamLink } from '../upstream/link.js';
import { deliveryMessage, deliveryText, type Delivery } from './client-side.js';
import { OwnedSession } from './owned.js';
import { PooledSession, type PoolStream } from './pooled-session.js';
import { SessionState } from './state.js';

/** Requests waiting for a free session, per pool; beyond it a request is refused at once. */
export const MAX_WAITERS = 256;
/** The identity the gateway initializes pooled sessions with when the client gave none. */
export const GATEWAY_CLIENT_INFO: JsonObject = Object.freeze({ name: 'mcp-retrofit', version: PACKAGE_VERSION }) as JsonObject;

export interface PoolOptions {
  readonly upstream: string;
  readonly size: () => number;
  readonly idleTimeoutMs: () => number;
  readonly timeoutMs: () => number;
  readonly maxResultBytes: () => number;
  /** A link for a new session; `headers`: of the request that needed it. */
  readonly link: (headers: IncomingHttpHeaders, log: Logger) => UpstreamLink;
  readonly rewriter: Rewriter;
  readonly metrics: Metrics;
  readonly log: Logger;
  /**
   * A notification of a pooled session that belongs to no request (the pool's listeners take it); `scope`: the
   * key of the session that sent it, when that session holds resource subscriptions for its key.
   */
  readonly onNotification: (method: string, json: string, scope?: string) => void;
  /** A session's link ended (whoever holds it for longer than a request hears of it). */
  readonly onEnded?: (session: PooledSession) => void;
  /**
   * A request must wait for a session: free one held for something that can give way (a request waiting for
   * its client's retry); true if one will come back.
   */
  readonly reclaim?: () => boolean;
}

/** What a request needs of the pool. */
export interface LeaseRequest {
  /** Sessions of the same key are interchangeable. */
  readonly key: string;
  /** The client's declared capabilities (`_meta`), for a new session's initialize. */
  readonly capabilities: JsonObject;
  readonly clientInfo: JsonObject | undefined;
  readonly headers: IncomingHttpHeaders;
  /** Date.now() past which the request stops waiting for a session. */
  readonly deadline: number;
  /** Aborted when the request's client leaves: it leaves the line then (its place is another's). */
  readonly signal?: AbortSignal;
}

/**
 * Why no session was lent: the JSON-RPC error for the request, and its HTTP status; `answer` when the upstream
 * itself refused the session's initialize over HTTP (a 401 with its challenge): the client gets that answer.
 */
export interface PoolRefusal {
  readonly refused: true;
  readonly status: number;
  readonly error: JsonObject;
  readonly answer?: LinkHttpAnswer;
}

function refusal(error: RetrofitError, answer?: LinkHttpAnswer): PoolRefusal {
  const { error: body } = error.toJsonRpc();
  return { refused: true, status: error.status, error: body as unknown as JsonObject, ...(answer && { answer }) };
}

interface Waiter {
  readonly request: LeaseRequest;
  readonly resolve: (lent: PooledSession | PoolRefusal) => void;
  readonly timer: NodeJS.Timeout;
}

/** The initialize exchange of a new session: its answer, as a stream of its own. */
class InitStream implements PoolStream {
  readonly backedUp = false;
  readonly answer: Promise<Delivery>;
  #resolve!: (delivery: Delivery) => void;

  constructor() {
    this.answer = new Promise((resolve) => (this.#resolve = resolve));
  }

  deliver(delivery: Delivery): void {
    if (delivery.answers !== undefined) this.#resolve(delivery);
  }

  abandon(): void {
    this.#resolve({ json: JSON.stringify(new RetrofitError('RETROFIT_ERR_INTERNAL', ['initialize of a pooled session was abandoned']).toJsonRpc()) });
  }
}

export class SessionPool {
  readonly #options: PoolOptions;
  readonly #sessions = new Set<PooledSession>();
  #starting = 0;
  #waiters: Waiter[] = [];
  #closed = false;

  constructor(options: PoolOptions) {
    this.#options = options;
  }

  /** Sessions (busy and idle), sessions starting, requests waiting. */
  counts(): { pooled: number; pooledBusy: number; poolStarting: number; poolWaiting: number } {
    let busy = 0;
    for (const s of this.#sessions) if (s.busy) busy += 1;
    return { pooled: this.#sessions.size, pooledBusy: busy, poolStarting: this.#starting, poolWaiting: this.#waiters.length };
  }

  /** Pids of the pooled sessions' children (stdio). */
  pids(): number[] {
    return [...this.#sessions].flatMap((s) => (s.owned.link.pid === undefined ? [] : [s.owned.link.pid]));
  }

  /**
   * The InitializeResult a session of `key` got, if one is open: what server/discover answers. Only a session of
   * the same key (the same credentials) will do: an upstream may tell each user something else.
   */
  initializeResultOf(key: string): JsonObject | undefined {
    for (const s of this.#sessions) if (s.key === key && s.initialize !== undefined && s.alive) return s.initialize;
    return undefined;
  }

  /** Requests waiting in line for a session. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** A session for `request`, lent to it until release(); or why not. */
  lease(request: LeaseRequest): Promise<PooledSession | PoolRefusal> | PooledSession | PoolRefusal {
    if (this.#closed) return refusal(new RetrofitError('RETROFIT_ERR_SHUTTING_DOWN'));
    const now = this.#grant(request);
    if (now) return now;
    if (this.#waiters.length >= MAX_WAITERS) return this.#busy();
    const signal = request.signal;
    if (signal?.aborted) return this.#left();
    return new Promise((resolve) => {
      const out = (reason: () => PoolRefusal): void => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        clearTimeout(waiter.timer);
        waiter.resolve(reason());
      };
      // Only while in line: one granted a session that is still starting takes it (and releases it) as any other.
      const leave = (): void => {
        if (this.#waiters.includes(waiter)) out(() => this.#left());
      };
      const waiter: Waiter = {
        request,
        // Granted, timed out or left: the wait removes what it added.
        resolve: (lent) => {
          signal?.removeEventListener('abort', leave);
          resolve(lent);
        },
        timer: setTimeout(() => out(() => this.#busy()), Math.max(0, request.deadline - Date.now())),
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.#waiters.push(waiter);
      this.#options.reclaim?.();
    });
  }

  /**
   * The request is done with `session`: the next in line gets it, or it rests. Not `reusable` (its request was
   * cancelled or timed out, and the upstream may still send messages about it, which the next request would
   * take for its own): it is closed instead, and the next in line gets a new one.
   */
  release(session: PooledSession, reusable = true): void {
    if (!this.#sessions.has(session)) return;
    if (!session.alive) {
      this.#drop(session);
      return;
    }
    if (!reusable) {
      void this.#close(session, 'its request was given up: what the upstream still sends about it is for nobody');
      this.#wake();
      return;
    }
    session.rest(this.#options.idleTimeoutMs(), () => {
      if (!session.busy) void this.#close(session, 'idle');
    });
    this.#wake();
  }

  /** A session's link ended (the session core answered what it held): it leaves the pool. */
  #drop(session: PooledSession): void {
    if (!this.#sessions.delete(session)) return;
    session.stopTimer();
    this.#options.onEnded?.(session);
    this.#wake();
  }

  /** Close every session; later leases are refused. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    for (const w of this.#waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(refusal(new RetrofitError('RETROFIT_ERR_SHUTTING_DOWN')));
    }
    await Promise.all([...this.#sessions].map((s) => this.#close(s, 'shutting down')));
  }

  /** A message of a session that no request waits for (see the module comment). */
  unrouted(session: PooledSession, delivery: Delivery, scope?: string): void {
    const text = deliveryText(delivery);
    const message = deliveryMessage(text);
    if (typeof message.method !== 'string') return;
    if (message.id === undefined) {
      this.#options.onNotification(message.method, text, scope);
      return;
    }
    // A request of the upstream with no client request to carry it (2026-07-28 has no server stream).
    const id = message.id as JsonRpcId;
    const answer = message.method === 'ping'
      ? { jsonrpc: '2.0', id, result: {} }
      : { jsonrpc: '2.0', id, error: { code: -32601, message: `${message.method} cannot reach the client: no request of it is in flight (mcp-retrofit serves a 2026-07-28 client here)` } };
    if (message.method !== 'ping') this.#options.log.debug({ method: message.method }, 'upstream request outside any client request refused');
    const json = JSON.stringify(answer);
    void session.owned.notify(classifyMessage(answer), json);
  }

  /** A waiter whose client left: nobody reads it, but the exchange's log line says why. */
  #left(): PoolRefusal {
    return refusal(new RetrofitError('RETROFIT_ERR_UPSTREAM_BUSY', [this.#options.upstream, 'the client left while its request waited for a pooled session']));
  }

  #busy(): PoolRefusal {
    return refusal(new RetrofitError('RETROFIT_ERR_UPSTREAM_BUSY', [this.#options.upstream, `all ${this.#options.size()} pooled sessions for 2026-07-28 clients are busy (stateless.poolSize)`]));
  }

  /** A session for `request` now — free, or started — else undefined (it must wait). */
  #grant(request: LeaseRequest): PooledSession | Promise<PooledSession | PoolRefusal> | undefined {
    for (const s of this.#sessions) {
      if (!s.busy && s.key === request.key && s.alive) {
        s.use(PLACEHOLDER);
        return s;
      }
    }
    if (this.#sessions.size + this.#starting < this.#options.size()) return this.#open(request);
    // Full: an idle session of another kind gives way.
    for (const s of this.#sessions) {
      if (!s.busy) {
        void this.#close(s, 'room for another kind of client');
        return this.#open(request);
      }
    }
    return undefined;
  }

  #wake(): void {
    while (this.#waiters.length > 0) {
      const waiter = this.#waiters[0]!;
      const granted = this.#grant(waiter.request);
      if (!granted) return;
      this.#waiters.shift();
      clearTimeout(waiter.timer);
      if (granted instanceof Promise) void granted.then(waiter.resolve);
      else waiter.resolve(granted);
    }
  }

  async #open(request: LeaseRequest): Promise<PooledSession | PoolRefusal> {
    this.#starting += 1;
    const o = this.#options;
    const log = o.log.child({ pooled: true });
    let session: PooledSession | undefined;
    try {
      const state = new SessionState<PoolStream>({ upstream: o.upstream, bridge: false });
      const holder: { session?: PooledSession } = {};
      const owned = new OwnedSession<PoolStream>({
        upstream: o.upstream,
        link: o.link(request.headers, log),
        state,
        rewriter: o.rewriter,
        metrics: o.metrics,
        log,
        timeoutMs: o.timeoutMs,
        maxResultBytes: o.maxResultBytes,
        onclose: () => {
          if (holder.session) this.#drop(holder.session);
        },
      });
      session = new PooledSession((from, delivery, scope) => this.unrouted(from, delivery, scope), request.key, owned);
      holder.session = session;
      const init = new InitStream();
      session.use(init);
      const message = {
        jsonrpc: '2.0',
        id: session.nextId(),
        method: 'initialize',
        params: { protocolVersion: LATEST_STATEFUL_REVISION, capabilities: initializeCapabilities(request.capabilities), clientInfo: request.clientInfo ?? GATEWAY_CLIENT_INFO },
      };
      const { sent } = owned.request(classifyMessage(message), JSON.stringify(message), { header: undefined, policy: undefined, stream: init }, { headers: request.headers });
      // A send that failed left nothing pending (no deadline, no answer to wait for): the request is refused now,
      // with the upstream's own answer when it gave one (a 401 and its challenge).
      const outcome = sent instanceof Promise ? await sent : sent;
      if (!outcome.ok) {
        void owned.close('RETROFIT_ERR_UPSTREAM_EXITED', 'initialize could not be sent');
        log.warn({ err: outcome.error, status: outcome.answer?.status }, 'pooled session: the upstream refused initialize');
        return refusal(outcome.error, outcome.answer);
      }
      const answer = await init.answer;
      const parsed = deliveryMessage(deliveryText(answer));
      const result = isJsonObject(parsed) && isJsonObject(parsed.result) ? parsed.result : undefined;
      if (!result) {
        void owned.close('RETROFIT_ERR_UPSTREAM_EXITED', 'initialize failed');
        const error = isJsonObject(parsed) && isJsonObject(parsed.error) ? parsed.error : undefined;
        log.warn({ error }, 'pooled session: the upstream did not initialize');
        return { refused: true, status: statusOf(error), error: error ?? { code: -32603, message: 'initialize failed' } };
      }
      session.initialize = result;
      const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
      await owned.notify(classifyMessage(initialized), JSON.stringify(initialized), { headers: request.headers });
      if (this.#closed || !session.alive) {
        void owned.close('RETROFIT_ERR_SHUTTING_DOWN', 'shutting down');
        return refusal(new RetrofitError(this.#closed ? 'RETROFIT_ERR_SHUTTING_DOWN' : 'RETROFIT_ERR_UPSTREAM_EXITED', [o.upstream, 'ended after initialize']));
      }
      this.#sessions.add(session);
      session.use(PLACEHOLDER);
      log.info({ key: request.key, upstreamRevision: result.protocolVersion }, 'pooled session started for 2026-07-28 clients');
      return session;
    } catch (err) {
      log.error({ err }, 'pooled session could not be started');
      if (session) void session.owned.close();
      return refusal(new RetrofitError('RETROFIT_ERR_INTERNAL', [`a pooled session of upstream "${o.upstream}" could not be started`], { cause: err }));
    } finally {
      this.#starting -= 1;
      // A failed start made room: the next in line may start one.
      if (!session || !this.#sessions.has(session)) this.#wake();
    }
  }

  async #close(session: PooledSession, reason: string): Promise<void> {
    this.#sessions.delete(session);
    session.stopTimer();
    this.#options.log.debug({ reason }, 'pooled session closed');
    await session.owned.close('RETROFIT_ERR_UPSTREAM_EXITED', reason);
  }
}

/** A stream that takes nothing: a lent session's until the request attaches its own. */
const PLACEHOLDER: PoolStream = Object.freeze({ backedUp: false, deliver: () => undefined, abandon: () => undefined });

/** The HTTP status for an upstream's initialize error: the gateway's own codes keep theirs. */
function statusOf(error: JsonObject | undefined): number {
  const data = isJsonObject(error?.data) ? error.data : undefined;
  const code = typeof data?.code === 'string' ? data.code : undefined;
  return code !== undefined && code in ERRORS ? ERRORS[code as ErrorCode].status : 502;
}
