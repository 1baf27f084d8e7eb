/**
 * 2026-07-28 clients of an upstream whose sessions the gateway holds (command, sse). The request is checked
 * as the revision's Streamable HTTP transport requires (the mirrored headers, the `_meta` envelope: 400 with
 * -32020 / -32022 / -32602, removed methods 404 / -32601), then:
 * - `server/discover` is answered from the upstream's InitializeResult (src/protocol/modern.ts);
 * - `subscriptions/listen` opens a listener (./listen.ts);
 * - a retry carrying `requestState` resumes the exchange that asked for input (./modern-exchange.ts);
 * - anything else is served on a pooled upstream session (src/session/pool.ts), one request per session.
 * Notifications a client sends are accepted (202) and go nowhere: no upstream session is the client's.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import type { StatelessServing, UpstreamConfig } from '../../config/types.js';
import { RetrofitError } from '../../errors.js';
import { isJsonObject, type JsonObject } from '../../json.js';
import { lazyTrail, stringifyKept, trailAt, type LiteralTrail } from '../../json-literals.js';
import { classifyMessage, type JsonRpcId } from '../../jsonrpc/classify.js';
import type { Logger } from '../../log.js';
import {
  capabilityKey,
  logLevelOf,
  checkModernRequest,
  clientCapabilities,
  clientInfo,
  discoverResult,
  MODERN_REVISION,
  refusesSessions,
  SERVED_REVISIONS,
  upstreamRequest,
  type ModernHeaders,
  type ModernProblem,
} from '../../protocol/modern.js';
import { SessionPool, type PoolRefusal } from '../../session/pool.js';
import type { PooledSession } from '../../session/pooled-session.js';
import { headerValue, toClientHeaders } from '../../upstream/headers.js';
import type { LinkHttpAnswer, UpstreamLink } from '../../upstream/link.js';
import { withTraceMeta, type RequestTrace } from '../../telemetry/spans.js';
import { traceRequest } from '../trace.js';
import { snapshot, type GatewayContext, type Snapshot } from '../context.js';
import { countRevision } from '../server/exchange-log.js';
import type { ParsedBody } from '../server/body.js';
import type { GatewayRequest } from '../server/gate.js';
import { rewriteChallenge } from '../oauth/challenge.js';
import { writeBody, writeError, writeJson } from '../write.js';
import { honouredFilter, Listeners, MAX_LISTENERS, urisOf } from './listen.js';
import { MAX_URIS_PER_LISTENER, ResourceSubscriptions, type SubscriptionOwner } from './resource-subscriptions.js';
import { HeldExchanges } from './held.js';
import { ModernExchange } from './modern-exchange.js';

export interface ModernTarget {
  readonly name: string;
  /** A link for a new pooled session, opened for the request that needed it. */
  link(snap: Snapshot, headers: IncomingHttpHeaders, log: Logger): UpstreamLink;
  /**
   * What keeps pooled sessions of different credentials apart (an HTTP-carried link forwards the client's
   * headers: src/upstream/headers.ts credentialKey): undefined when the link carries none of the client's.
   */
  credentials?(headers: IncomingHttpHeaders): string | undefined;
  /** The upstream's `stateless:` settings. */
  stateless(snap: Snapshot): StatelessServing;
  /**
   * A pooled session's initialize was refused as a server of session-less revisions only refuses it (the
   * upstream serves 2026-07-28 itself now: upgraded since it was found to speak session ones): serve `req`
   * another way (true), else the refusal is its answer.
   */
  handOver?(req: GatewayRequest, res: ServerResponse): boolean;
}

/**
 * Why a retry's `inputResponses` cannot be answers, or undefined: each is the result of the request its key
 * names (a sampling, elicitation or roots result), so an object; anything else would reach the upstream as a
 * result its SDK never accepts, and its request would wait for timeoutMs.
 */
function inputResponsesProblem(responses: unknown): string | undefined {
  if (responses === undefined) return undefined;
  if (!isJsonObject(responses)) return 'must be an object of results by input key';
  for (const [key, value] of Object.entries(responses)) if (!isJsonObject(value)) return `${JSON.stringify(key.slice(0, 64))} must be an object: the result of the request it answers`;
  return undefined;
}

/** Why a request waiting for its client's retry was cancelled to free its pooled session. */
const RECLAIMED = 'its pooled session was needed by another request (stateless.poolSize)';

/** What the exchange's log line learns. */
export interface ModernFacts {
  revision?: string | undefined;
  revisionSource?: string | undefined;
  rpcError?: number | undefined;
  errorCode?: string | undefined;
  profile?: string | undefined;
}

export interface ModernFront {
  /** Serve one POST whose body (`read`: parsed, and its text) claims 2026-07-28 (see claimsModern). */
  post(req: GatewayRequest, res: ServerResponse, read: Pick<ParsedBody, 'body' | 'text'>, facts: ModernFacts): Promise<void> | void;
  /** A notification of the gateway's own (tools/list_changed after a reload) for listeners. */
  notifyAll(json: string): number;
  counts(): Record<string, number>;
  pids(): number[];
  close(): Promise<void>;
}

/** The headers a 2026-07-28 request mirrors its body in. */
export function modernHeaders(headers: IncomingHttpHeaders): ModernHeaders {
  return { protocolVersion: headerValue(headers, 'mcp-protocol-version'), method: headerValue(headers, 'mcp-method'), name: headerValue(headers, 'mcp-name') };
}

function problemError(problem: ModernProblem): RetrofitError {
  switch (problem.kind) {
    case 'header':
      return new RetrofitError('RETROFIT_ERR_HEADER_MISMATCH', [problem.detail]);
    case 'version':
      return new RetrofitError('RETROFIT_ERR_UNSUPPORTED_VERSION', [problem.requested, SERVED_REVISIONS.join(', ')], { data: { supported: [...SERVED_REVISIONS], requested: problem.requested } });
    case 'meta':
      return new RetrofitError('RETROFIT_ERR_MISSING_META', [problem.detail]);
    case 'removed':
      return new RetrofitError('RETROFIT_ERR_METHOD_NOT_FOUND', [`${problem.method} (not part of ${MODERN_REVISION})`]);
  }
}

function isRefusal(lent: PooledSession | PoolRefusal | JsonObject): lent is PoolRefusal {
  return 'refused' in lent && lent.refused === true;
}

const SETTINGS_KEYS = new WeakMap<UpstreamConfig, string>();

/**
 * The upstream's settings a pooled session's link keeps from when it opened, as a short key: the upstream's
 * config less what is read per request (`tools`, `record`, `stateless`), the limits and whether the gateway
 * has its own `auth`. Memoized per config generation (its objects are frozen): no work per request.
 */
function settingsKey(snap: Snapshot): string {
  const upstream = snap.upstream;
  let key = SETTINGS_KEYS.get(upstream);
  if (key === undefined) {
    const { tools: _tools, record: _record, stateless: _stateless, ...kept } = upstream as UpstreamConfig & { record?: unknown };
    const text = JSON.stringify([kept, snap.loaded.config.limits, snap.loaded.config.auth !== undefined]);
    key = createHash('sha256').update(text).digest('hex').slice(0, 12);
    SETTINGS_KEYS.set(upstream, key);
  }
  return key;
}

export function createModernFront(target: ModernTarget, ctx: GatewayContext, options: { keepAliveMs?: number } = {}): ModernFront {
  const name = target.name;
  const log = ctx.logger.child({ upstream: name, revision: MODERN_REVISION });
  const listeners = new Listeners(options.keepAliveMs);
  const held = new HeldExchanges<ModernExchange>();
  const subscriptions: { current?: ResourceSubscriptions } = {};
  const pool = new SessionPool({
    upstream: name,
    size: () => target.stateless(snapshot(ctx, name)).poolSize,
    idleTimeoutMs: () => target.stateless(snapshot(ctx, name)).idleTimeoutMs,
    timeoutMs: () => snapshot(ctx, name).upstream.timeoutMs,
    maxResultBytes: () => ctx.generations.current.config.limits.maxResultBytes,
    link: (headers, linkLog) => target.link(snapshot(ctx, name), headers, linkLog),
    rewriter: ctx.rewriter,
    metrics: ctx.metrics,
    log,
    onNotification: (method, json, scope) => listeners.publish(method, json, scope),
    onEnded: (session) => subscriptions.current?.lost(session),
    // Requests waiting for their client's retry give way to requests that cannot be served otherwise.
    reclaim: () => held.reclaimOldest(RECLAIMED),
  });
  subscriptions.current = new ResourceSubscriptions(pool, log);
  const resources = subscriptions.current;

  /**
   * What sessions of a request's kind share: the upstream's settings a link takes when it opens (a reload that
   * changes its `headers:`, `timeoutMs` or the limits makes sessions opened before it never lent again: they
   * give way or idle out), the client's capabilities, and its credentials.
   */
  const keyOf = (caps: JsonObject, headers: IncomingHttpHeaders, snap: Snapshot): string => {
    const credentials = target.credentials?.(headers);
    const key = `${settingsKey(snap)}/${capabilityKey(caps)}`;
    return credentials === undefined ? key : `${key}@${createHash('sha256').update(credentials).digest('hex').slice(0, 16)}`;
  };

  /** A session for the request; a client that leaves (closes `res`) while it waits in line leaves the line. */
  const lease = (message: JsonObject, req: GatewayRequest, res: ServerResponse, snap: Snapshot): Promise<PooledSession | PoolRefusal> | PooledSession | PoolRefusal => {
    const capabilities = clientCapabilities(message);
    const left = new AbortController();
    const leave = (): void => left.abort();
    res.once('close', leave);
    const lent = pool.lease({ key: keyOf(capabilities, req.headers, snap), capabilities, clientInfo: clientInfo(message), headers: req.headers, deadline: Date.now() + snap.upstream.timeoutMs, signal: left.signal });
    if (!(lent instanceof Promise)) {
      res.off('close', leave);
      return lent;
    }
    return lent.finally(() => res.off('close', leave));
  };

  function refuse(res: ServerResponse, facts: ModernFacts, error: RetrofitError, id: JsonRpcId): void {
    facts.rpcError = error.rpcCode;
    facts.errorCode = error.code;
    writeError(res, error, id);
  }

  /**
   * No session for the request. When the upstream itself refused the session's initialize over HTTP (a 401 and
   * its challenge), the client gets that answer, its challenge naming the gateway's metadata (as a proxied
   * exchange's would); else the JSON-RPC error.
   */
  function refused(res: ServerResponse, facts: ModernFacts, refusal: PoolRefusal, id: JsonRpcId, req: GatewayRequest, snap: Snapshot): void {
    if (refusesSessions(refusal.error) && target.handOver?.(req, res) === true) return;
    const error = refusal.error;
    facts.rpcError = typeof error.code === 'number' ? error.code : undefined;
    if (isJsonObject(error.data) && typeof error.data.code === 'string') facts.errorCode = error.data.code;
    if (!relayAnswer(res, refusal.answer, req, snap)) writeJson(res, refusal.status, { jsonrpc: '2.0', id, error });
  }

  /**
   * The upstream's own HTTP answer to a request it refused (a 401 or 403 and its challenge, named the gateway's
   * metadata as a proxied exchange's would be), written on `res`: false when there is none to relay.
   */
  function relayAnswer(res: ServerResponse, answer: LinkHttpAnswer | undefined, req: GatewayRequest, snap: Snapshot): boolean {
    if (!answer || snap.upstream.kind !== 'http') return false;
    const headers = { ...answer.headers };
    rewriteChallenge(req, snap.upstream, answer.status, headers);
    writeBody(res, answer.status, toClientHeaders(headers, { dropLength: true }), answer.body);
    return true;
  }

  /**
   * The upstream's InitializeResult for this request's key (its credentials and capabilities): an open session
   * of that key's, else one started for it. Never another key's: an upstream may tell each user something else,
   * and a client without credentials must meet the upstream's challenge, not another user's answer.
   */
  async function initializeResult(message: JsonObject, req: GatewayRequest, res: ServerResponse, snap: Snapshot): Promise<JsonObject | PoolRefusal> {
    const known = pool.initializeResultOf(keyOf(clientCapabilities(message), req.headers, snap));
    if (known) return known;
    const lent = await lease(message, req, res, snap);
    if (isRefusal(lent)) return lent;
    pool.release(lent);
    return lent.initialize ?? {};
  }

  async function discover(req: GatewayRequest, res: ServerResponse, message: JsonObject, id: JsonRpcId, facts: ModernFacts, snap: Snapshot): Promise<void> {
    const init = await initializeResult(message, req, res, snap);
    if (isRefusal(init)) return refused(res, facts, init, id, req, snap);
    log.info({ serverInfo: init?.serverInfo, upstreamRevision: init?.protocolVersion }, 'server/discover answered for a 2026-07-28 client from the upstream\'s InitializeResult');
    writeJson(res, 200, { jsonrpc: '2.0', id, result: discoverResult(init) });
  }

  async function listen(req: GatewayRequest, res: ServerResponse, message: JsonObject, id: JsonRpcId, facts: ModernFacts, snap: Snapshot): Promise<void> {
    const params = isJsonObject(message.params) ? message.params : {};
    const asked = isJsonObject(params.notifications) ? params.notifications : undefined;
    if (!asked) return refuse(res, facts, new RetrofitError('RETROFIT_ERR_MISSING_META', ['params.notifications (the filter) is required']), id);
    if (listeners.full) return refuse(res, facts, new RetrofitError('RETROFIT_ERR_UPSTREAM_BUSY', [name, `${MAX_LISTENERS} subscriptions/listen streams are open`]), id);
    const init = await initializeResult(message, req, res, snap);
    if (isRefusal(init)) return refused(res, facts, init, id, req, snap);
    if (res.destroyed) return;
    let filter = honouredFilter(asked, isJsonObject(init.capabilities) ? init.capabilities : undefined, MAX_URIS_PER_LISTENER);
    const owner: SubscriptionOwner = { uris: urisOf(filter), lost: () => res.destroy() };
    const capabilities = clientCapabilities(message);
    // Its subscriptions are held, and its updates delivered, under its own key (credentials, capabilities).
    const key = keyOf(capabilities, req.headers, snap);
    if (owner.uris.length > 0) {
      const subscribed = await resources.add(owner, { key, capabilities, clientInfo: clientInfo(message), headers: req.headers, timeoutMs: snap.upstream.timeoutMs });
      if (!subscribed) {
        const { resourceSubscriptions: _none, ...rest } = filter;
        filter = rest;
      }
    }
    if (res.destroyed) return resources.remove(owner);
    listeners.listen(res, id, filter, () => resources.remove(owner), key);
  }

  function retry(res: ServerResponse, message: JsonObject, literals: () => LiteralTrail | undefined, id: JsonRpcId, facts: ModernFacts, token: string): void {
    const params = isJsonObject(message.params) ? message.params : {};
    // Checked before the requestState is taken: a corrected retry may still use it.
    const problem = inputResponsesProblem(params.inputResponses);
    if (problem !== undefined) return refuse(res, facts, new RetrofitError('RETROFIT_ERR_INPUT_RESPONSES', [problem]), id);
    const exchange = held.peek(token);
    const targetOf = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
    if (!exchange) return refuse(res, facts, new RetrofitError('RETROFIT_ERR_REQUEST_STATE', ['is unknown or expired: it is good for one retry, within timeoutMs, on the gateway that issued it']), id);
    // Checked before it is taken too: a retry of another request cannot use it, and the right one still may.
    if (exchange.method !== message.method || exchange.target !== targetOf) {
      return refuse(res, facts, new RetrofitError('RETROFIT_ERR_REQUEST_STATE', [`belongs to another request (${exchange.method} ${exchange.target ?? ''})`]), id);
    }
    held.take(token);
    // Each answer goes upstream with the client's number literals a double cannot hold as it wrote them.
    exchange.resume(res, id, isJsonObject(params.inputResponses) ? params.inputResponses : {}, trailAt(literals(), 'params', 'inputResponses'));
  }

  /**
   * Serve a 2026-07-28 call on a pooled session. `again`: the call's first session turned out gone at the
   * upstream (it forgot the session: 404) before the request reached it, so it goes once more, on a new one,
   * with the first attempt's trace.
   */
  async function call(req: GatewayRequest, res: ServerResponse, message: JsonObject, literals: () => LiteralTrail | undefined, id: JsonRpcId, facts: ModernFacts, snap: Snapshot, again?: { readonly trace: RequestTrace | undefined }): Promise<void> {
    const timeoutMs = snap.upstream.timeoutMs;
    const lent = await lease(message, req, res, snap);
    if (isRefusal(lent)) return refused(res, facts, lent, id, req, snap);
    if (res.destroyed) {
      pool.release(lent);
      return;
    }
    const method = message.method as string;
    const params = isJsonObject(message.params) ? message.params : {};
    const exchange = new ModernExchange({
      session: lent,
      method,
      target: typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined,
      capabilities: clientCapabilities(message),
      logLevel: logLevelOf(message),
      timeoutMs,
      held,
      log,
      release: (s, reusable) => pool.release(s, reusable),
      // Requests already in line for a session take one that now only waits for its client (the oldest such).
      onHeld: () => {
        if (pool.waiting > 0) held.reclaimOldest(RECLAIMED);
      },
      // A resource update that arrives during the request is its key's (credentials): only that key's listeners hear it.
      onNotification: (m, json) => listeners.publish(m, json, lent.key),
      outcome: facts,
    });
    // Traced: the span continues the client's trace from this request's `_meta`, and ends with the exchange.
    const trace = again ? again.trace : ctx.telemetry.tracer ? traceRequest(ctx, classifyMessage(message), snap.upstream, { revision: MODERN_REVISION, headers: req.headers }) : undefined;
    if (trace && !again) res.once('close', () => trace.end({ rpcError: facts.rpcError, errorType: facts.errorCode, aborted: !res.writableFinished }));
    exchange.start(res, id, (stream) => {
      lent.use(stream);
      const built = upstreamRequest(message, lent.nextId());
      const upstream = trace ? withTraceMeta(built, trace.upstreamContext()) : built;
      const c = { ...classifyMessage(upstream), metaRevision: MODERN_REVISION };
      // Written again (the session's id, the envelope gone): the client's number literals a double cannot hold
      // (a 64-bit argument) as the client wrote them. The profile is this request's client's (its `_meta`), not
      // that of the client the pooled session was opened for.
      const { registered, sent } = lent.owned.request(c, stringifyKept(upstream, literals()), { header: MODERN_REVISION, policy: snap.policy, stream, client: clientInfo(message) ?? null, ...(trace && { trace }) }, { headers: req.headers });
      if (!again) countRevision(ctx.metrics, name, registered.revision, registered.source);
      facts.revision = registered.revision;
      facts.revisionSource = registered.source;
      if (registered.profile !== undefined) facts.profile = registered.profile;
      const failed = (outcome: Awaited<typeof sent>): void => {
        if (outcome.ok) return;
        // The session was gone at the upstream: nothing reached it, so the call goes once more on a new session.
        if (outcome.gone && !again && !res.headersSent && !res.destroyed) {
          log.info({ id }, 'a pooled session the upstream had ended was lent; the call goes again on a new one');
          exchange.withdraw();
          void call(req, res, message, literals, id, facts, snap, { trace });
          return;
        }
        // The upstream refused the request itself (its session's credentials no longer hold): the client meets
        // that answer, challenge and all, and can authorize again; else the JSON-RPC error.
        // (Its log line has the upstream's status and no code of the gateway's: the gateway refused nothing.)
        if (outcome.answer && exchange.answerInstead((r) => relayAnswer(r, outcome.answer, req, snap))) return;
        stream.deliver({ json: JSON.stringify(outcome.error.toJsonRpc(upstream.id as string)), answers: upstream.id as string });
      };
      if (sent instanceof Promise) void sent.then(failed);
      else failed(sent);
      return registered.pending;
    });
  }

  return {
    post(req, res, { body, text }, facts) {
      const snap = snapshot(ctx, name, req);
      const first = body.messages[0];
      if (body.batch || !first) return refuse(res, facts, new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', [`a ${MODERN_REVISION} request is one JSON-RPC message, not a batch`]), null);
      if (first.kind === 'notification') {
        res.writeHead(202, { 'content-length': 0 }).end();
        return;
      }
      if (first.kind !== 'request') return refuse(res, facts, new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', [`a ${MODERN_REVISION} client sends requests and notifications only`]), null);
      const message = first.message as JsonObject;
      const id = first.id ?? null;
      const problem = checkModernRequest(message, modernHeaders(req.headers));
      if (problem) return refuse(res, facts, problemError(problem), id);
      facts.revision = MODERN_REVISION;
      facts.revisionSource = 'meta';
      const params = isJsonObject(message.params) ? message.params : {};
      if (first.method === 'server/discover' || first.method === 'subscriptions/listen') {
        // Answered by the gateway itself: a SERVER span, no upstream exchange under it.
        const trace = ctx.telemetry.tracer ? traceRequest(ctx, first, snap.upstream, { revision: MODERN_REVISION, headers: req.headers }) : undefined;
        if (trace) res.once('close', () => trace.end({ rpcError: facts.rpcError, errorType: facts.errorCode, aborted: false }));
        return first.method === 'server/discover' ? discover(req, res, message, id, facts, snap) : listen(req, res, message, id, facts, snap);
      }
      // The request's number literals a double cannot hold, read from its text when it is written again.
      const literals = lazyTrail(text);
      if (typeof params.requestState === 'string') return retry(res, message, literals, id, facts, params.requestState);
      return call(req, res, message, literals, id, facts, snap);
    },
    notifyAll: (json) => {
      const parsed = JSON.parse(json) as { method?: unknown };
      return typeof parsed.method === 'string' ? listeners.publish(parsed.method, json) : 0;
    },
    counts: () => ({ ...pool.counts(), listeners: listeners.size, heldForRetry: held.size }),
    pids: () => pool.pids(),
    close: async () => {
      listeners.closeAll();
      await pool.closeAll();
    },
  };
}
