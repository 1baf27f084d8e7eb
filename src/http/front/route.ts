/**
 * The one client-facing Streamable HTTP edge for sessions the gateway owns (stdio upstreams, and legacy SSE
 * upstreams for clients that speak Streamable HTTP): POST, GET and DELETE on the upstream's path, checked as
 * the SDK servers check them (Accept 406, Content-Type 415, body -32700, Mcp-Session-Id 400/404,
 * MCP-Protocol-Version 400), then handed to the session. Each exchange is logged and counted once.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { RetrofitError } from '../../errors.js';
import { messageTexts } from '../../jsonrpc/batch-elements.js';
import type { JsonRpcId } from '../../jsonrpc/classify.js';
import type { Logger } from '../../log.js';
import { acceptsHeaderRevision, STATEFUL_REVISIONS } from '../../protocol/era.js';
import { claimsModern } from '../../protocol/modern.js';
import { clientLabel, requestedRevision } from '../../protocol/negotiate.js';
import { OwnedSession } from '../../session/owned.js';
import { SessionState } from '../../session/state.js';
import type { RequestTrace } from '../../telemetry/spans.js';
import { headerValue } from '../../upstream/headers.js';
import type { SendOutcome, UpstreamLink } from '../../upstream/link.js';
import { negotiatedReporter, snapshot, type GatewayContext, type Snapshot } from '../context.js';
import { accepts } from '../server/accept.js';
import { parseBody, strictBodyProblem } from '../server/body.js';
import { countRevision, finishWhenClosed, labelOf, type ExchangeRecord } from '../server/exchange-log.js';
import type { Gate, GatewayRequest, RouteHandler } from '../server/gate.js';
import { sessionId } from '../server/ids.js';
import { sessionEnded, traceRequest, upstreamText } from '../trace.js';
import { writeError } from '../write.js';
import type { PostStream } from './post-stream.js';
import { FrontSessions } from './registry.js';
import { FrontSession } from './session.js';
import { preflightRoute } from '../server/cors.js';
import { createModernFront, type ModernFront } from './modern.js';
import type { StatelessServing } from '../../config/types.js';

/** What the edge needs of one upstream kind. */
export interface FrontTarget {
  readonly name: string;
  readonly path: string;
  /** A link for a new session: the snapshot of its initialize request, and that request's headers. */
  link(snap: Snapshot, headers: IncomingHttpHeaders, log: Logger): UpstreamLink;
  readonly maxSessions: (snap: Snapshot) => number;
  readonly idleTimeoutMs: (snap: Snapshot) => number;
  readonly bridge: (snap: Snapshot) => boolean;
  /** How 2026-07-28 clients are served (./modern.ts). */
  readonly stateless: (snap: Snapshot) => StatelessServing;
  /** What keeps pooled sessions of different client credentials apart (sse: the forwarded headers' credentialKey). */
  readonly credentials?: (headers: IncomingHttpHeaders) => string | undefined;
  /** Keep-alive interval (tests shorten it). */
  readonly keepAliveMs?: number;
}

export interface FrontRoutes {
  readonly sessions: FrontSessions;
  /** 2026-07-28 clients: the pool, the listeners. */
  readonly modern: ModernFront;
}

/** The edge's handlers, for a route that serves them among others (src/http/front/url-modern.ts). */
export interface FrontHandlers extends FrontRoutes {
  readonly post: RouteHandler;
  readonly get: RouteHandler;
  readonly remove: RouteHandler;
}

/** The methods the edge's path takes (a preflight's answer lists them). */
const FRONT_METHODS = 'GET, POST, DELETE';

/** Register POST/GET/DELETE of the edge; `legacyGet` takes GETs without a session (legacy SSE clients). */
export function registerFront(app: FastifyInstance, gate: Gate, target: FrontTarget, ctx: GatewayContext, legacyGet?: RouteHandler): FrontRoutes {
  const front = createFront(target, ctx, legacyGet);
  gate.route(app, { method: 'POST', url: target.path, guards: 'mcp', upstream: target.name, cors: true, handle: front.post });
  gate.route(app, { method: 'GET', url: target.path, guards: 'mcp', upstream: target.name, cors: true, handle: front.get });
  gate.route(app, { method: 'DELETE', url: target.path, guards: 'mcp', upstream: target.name, cors: true, handle: front.remove });
  // A browser's preflight carries no credentials: the rebinding guard (Host, Origin) only.
  gate.route(app, { method: 'OPTIONS', url: target.path, guards: 'discovery', upstream: target.name, cors: true, handle: preflightRoute(ctx, target.name, FRONT_METHODS) });
  return front;
}

/** The edge's handlers and what they hold, for the routes to serve. */
export function createFront(target: FrontTarget, ctx: GatewayContext, legacyGet?: RouteHandler): FrontHandlers {
  const log = ctx.logger.child({ upstream: target.name });
  const sessions = new FrontSessions({
    upstream: target.name,
    log,
    metrics: ctx.metrics,
    maxSessions: () => target.maxSessions(snapshot(ctx, target.name)),
    idleTimeoutMs: () => target.idleTimeoutMs(snapshot(ctx, target.name)),
    ...(target.keepAliveMs !== undefined && { keepAliveMs: target.keepAliveMs }),
    ...(ctx.telemetry.instruments && { onEnded: sessionEnded(ctx, target.name) }),
    ...(ctx.console && { watch: ctx.console.sessions }),
  });
  const modern = createModernFront({ name: target.name, link: target.link, stateless: target.stateless, ...(target.credentials && { credentials: target.credentials }) }, ctx, target.keepAliveMs !== undefined ? { keepAliveMs: target.keepAliveMs } : {});

  function create(snap: Snapshot, headers: IncomingHttpHeaders): FrontSession {
    const id = sessionId(ctx.generations.current.config.sessionIdPrefix);
    const sessionLog = log.child({ session: id });
    const link = target.link(snap, headers, sessionLog);
    const state = new SessionState<PostStream>({ upstream: target.name, bridge: target.bridge(snap), onNegotiated: negotiatedReporter(ctx, target.name, sessionLog) });
    const holder: { session?: FrontSession } = {};
    const owned = new OwnedSession<PostStream>({
      upstream: target.name,
      link,
      state,
      rewriter: ctx.rewriter,
      metrics: ctx.metrics,
      log: sessionLog,
      timeoutMs: () => snapshot(ctx, target.name).upstream.timeoutMs,
      maxResultBytes: () => ctx.generations.current.config.limits.maxResultBytes,
      onclose: () => {
        if (holder.session) sessions.ended(holder.session);
      },
    });
    const session = new FrontSession(id, owned, sessionLog);
    holder.session = session;
    sessions.add(session);
    return session;
  }

  /** The exchange's log line and count, once its response closes; `facts` says what was learnt by then. */
  function logged(req: GatewayRequest, res: ServerResponse, facts: () => Partial<ExchangeRecord> & { readonly method: string }): void {
    const started = performance.now();
    finishWhenClosed(res, ctx.logger, ctx.metrics, () => ({ reqId: req.id, upstream: target.name, session: headerValue(req.headers, 'mcp-session-id'), started, ...facts() }));
  }

  async function post(req: GatewayRequest, res: ServerResponse): Promise<void> {
    const facts: { -readonly [K in keyof ExchangeRecord]?: ExchangeRecord[K] } & { method: string } = { method: 'POST' };
    const sessionId = headerValue(req.headers, 'mcp-session-id');
    // What the client got is known once the exchange ends: the stream's first error answer, if any.
    const answered: { stream?: PostStream; error?: RetrofitError } = {};
    logged(req, res, () => ({ ...facts, rpcError: answered.stream?.outcome.rpcError ?? answered.error?.rpcCode ?? facts.rpcError, errorCode: answered.stream?.outcome.errorCode ?? answered.error?.code ?? facts.errorCode }));
    const refuse = (error: RetrofitError, id: JsonRpcId = null): void => {
      answered.error = error;
      writeError(res, error, id);
    };
    if (!accepts(req.headers.accept, 'application/json', 'text/event-stream')) return refuse(new RetrofitError('RETROFIT_ERR_NOT_ACCEPTABLE', ['both application/json and text/event-stream']));
    const read = parseBody(req.headers, req.body);
    if (read instanceof RetrofitError) return refuse(read);
    const { body } = read;
    facts.method = labelOf(body, 'POST');
    const first = body.messages[0];
    if (!body.batch && first?.method === 'tools/call') facts.tool = first.name;
    const problem = strictBodyProblem(read);
    if (problem) return refuse(problem);
    const header = headerValue(req.headers, 'mcp-protocol-version');
    const snap = snapshot(ctx, target.name, req);
    const initialize = body.messages.some((m) => m.kind === 'request' && m.method === 'initialize');
    // A 2026-07-28 request: no session, whatever Mcp-Session-Id says (./modern.ts).
    const claimed = body.messages.some((m) => claimsModern(header, m.metaRevision));
    if (claimed && target.stateless(snap).serve && target.bridge(snap)) return modern.post(req, res, read, facts);

    let session: FrontSession;
    if (sessionId === undefined) {
      if (!initialize) {
        // Not served (stateless.serve or bridge false): answered as a stateful server answers any request before
        // initialize (400, session required). Every client library that probes server/discover falls back to
        // initialize on that answer; -32022 (unsupported version) is final for @ai-sdk/mcp.
        if (claimed) log.debug({ method: facts.method }, 'a 2026-07-28 request, not served here (stateless.serve or bridge false): session required, for the client to fall back to initialize');
        const only = body.batch ? undefined : first;
        return refuse(new RetrofitError('RETROFIT_ERR_SESSION_REQUIRED'), only?.kind === 'request' && only.id !== undefined ? only.id : null);
      }
      if (body.messages.length > 1) return refuse(new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', ['only one initialization request is allowed']));
      await sessions.room(snap.upstream.timeoutMs);
      // Gone while it waited for a place: no child for nobody (its exchange is logged as aborted).
      if (res.destroyed) return;
      const refused = sessions.admit();
      if (refused) return refuse(refused);
      session = create(snap, req.headers);
    } else {
      const found = sessions.get(sessionId);
      if (!found) return refuse(new RetrofitError('RETROFIT_ERR_SESSION_NOT_FOUND'));
      if (initialize) return refuse(new RetrofitError('RETROFIT_ERR_ALREADY_INITIALIZED'));
      if (header !== undefined && !acceptsHeaderRevision(header)) return refuse(new RetrofitError('RETROFIT_ERR_PROTOCOL_VERSION_HEADER', [header, STATEFUL_REVISIONS.join(', ')]));
      session = found;
    }
    sessions.touch(session);

    const requests = body.messages.filter((m) => m.kind === 'request');
    // An id in flight on this session, or twice in this body, would get one answer for two requests.
    const duplicate = session.owned.state.pending.firstDuplicate(body.messages);
    if (duplicate) return refuse(new RetrofitError('RETROFIT_ERR_DUPLICATE_ID', [JSON.stringify(duplicate.id)]), duplicate.id ?? null);

    // Each message goes upstream as the client wrote it: a batch's elements are its own slices of the body.
    const texts = messageTexts(read.text, body);
    const send = { headers: req.headers };
    if (requests.length === 0) {
      // Notifications and responses only: 202 once the upstream took them.
      const outcomes = await Promise.all(body.messages.map((m, i) => session.owned.notify(m, texts[i]!, send)));
      const failed = outcomes.find((o): o is Extract<SendOutcome, { ok: false }> => !o.ok);
      if (failed) return refuse(failed.error);
      res.writeHead(202, { 'mcp-session-id': session.id }).end();
      return;
    }
    const initRequest = initialize ? requests[0] : undefined;
    const requested = initRequest ? requestedRevision(initRequest.message) : undefined;
    const revision = session.revision(requested ?? header);
    const stream = session.openStream(res, requests.map((m) => m.id!), revision);
    answered.stream = stream;
    // A session whose initialize failed (an error, no answer within timeoutMs), or whose client left before it
    // was answered (it may never have seen the session's id: a JSON answer's headers wait for it), is of no use:
    // it ends, and its child with it, rather than at the idle timeout.
    if (initialize) {
      res.once('close', () => {
        if (session.owned.state.negotiated !== undefined) return;
        if (stream.outcome.rpcError !== undefined) void sessions.close(session, 'initialize failed');
        else if (!res.writableFinished) void sessions.close(session, 'client left during initialize');
      });
    }
    const tracer = ctx.telemetry.tracer;
    const traces: RequestTrace[] = [];
    if (tracer) {
      // The spans end with the exchange, with the first error answer it carried.
      res.once('close', () => {
        for (const t of traces) t.end({ rpcError: stream.outcome.rpcError, errorType: stream.outcome.errorCode, aborted: !res.writableFinished });
      });
    }
    for (const [i, m] of body.messages.entries()) {
      if (m.kind !== 'request') {
        void session.owned.notify(m, texts[i]!, send);
        continue;
      }
      const trace = tracer ? traceRequest(ctx, m, snap.upstream, { revision, session: session.id, headers: req.headers }) : undefined;
      if (trace) traces.push(trace);
      // Traced: the upstream gets the request with its span's context in `_meta`; otherwise the bytes as they came.
      const text = upstreamText(m, texts[i]!, trace);
      const { registered, sent } = session.owned.request(m, text, { header, policy: snap.policy, stream, ...(trace && { trace }) }, send);
      countRevision(ctx.metrics, target.name, registered.revision, registered.source);
      facts.revision = registered.revision;
      facts.revisionSource = registered.source;
      if (registered.profile !== undefined) facts.profile = registered.profile;
      if (m.method === 'initialize' && requested !== undefined) facts.requested = requested;
      if (m.method === 'initialize') facts.client = clientLabel(m.message);
      const refused = (outcome: SendOutcome): void => {
        if (outcome.ok) return;
        session.deliver(stream, { json: JSON.stringify(outcome.error.toJsonRpc(m.id ?? null)), answers: m.id!, error: { code: outcome.error.rpcCode, data: outcome.error.code } });
      };
      if (sent instanceof Promise) void sent.then(refused);
      else refused(sent);
    }
  }

  /** The session a GET or DELETE names, or undefined after answering why not. */
  function sessionOf(req: GatewayRequest, res: ServerResponse): FrontSession | undefined {
    const id = headerValue(req.headers, 'mcp-session-id');
    const session = id === undefined ? undefined : sessions.get(id);
    if (id === undefined) writeError(res, new RetrofitError('RETROFIT_ERR_SESSION_REQUIRED'));
    else if (!session) writeError(res, new RetrofitError('RETROFIT_ERR_SESSION_NOT_FOUND'));
    else {
      const header = headerValue(req.headers, 'mcp-protocol-version');
      if (header !== undefined && !acceptsHeaderRevision(header)) {
        writeError(res, new RetrofitError('RETROFIT_ERR_PROTOCOL_VERSION_HEADER', [header, STATEFUL_REVISIONS.join(', ')]));
        return undefined;
      }
      sessions.touch(session);
    }
    return session;
  }

  function get(req: GatewayRequest, res: ServerResponse): void | Promise<void> {
    if (legacyGet && headerValue(req.headers, 'mcp-session-id') === undefined) return legacyGet(req, res);
    logged(req, res, () => ({ method: 'GET' }));
    if (!accepts(req.headers.accept, 'text/event-stream')) return writeError(res, new RetrofitError('RETROFIT_ERR_NOT_ACCEPTABLE', ['text/event-stream']));
    const session = sessionOf(req, res);
    if (!session) return;
    const outcome = session.get(res, headerValue(req.headers, 'last-event-id'));
    if (!outcome.ok) writeError(res, new RetrofitError(outcome.status === 409 ? 'RETROFIT_ERR_CONFLICT' : 'RETROFIT_ERR_INVALID_REQUEST', [outcome.message]));
  }

  /**
   * The session ends for its client at once (what waited is answered, its streams end, its id is unknown from
   * now on); its link closes behind the answer — a child that ignores SIGTERM is not the client's wait — and
   * counts towards maxSessions until it is gone (FrontSessions.admit).
   */
  function remove(req: GatewayRequest, res: ServerResponse): void {
    logged(req, res, () => ({ method: 'DELETE' }));
    const session = sessionOf(req, res);
    if (!session) return;
    void sessions.close(session, 'session closed');
    res.writeHead(200, { 'content-length': 0 }).end();
  }

  return { sessions, modern, post, get, remove };
}
