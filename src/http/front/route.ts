/**
 * The one client-facing Streamable HTTP edge for sessions the gateway owns (stdio upstreams, and legacy SSE
 * upstreams for clients that speak Streamable HTTP): POST, GET and DELETE on the upstream's path, checked as
 * the SDK servers check them (Accept 406, Content-Type 415, body -32700, Mcp-Session-Id 400/404,
 * MCP-Protocol-Version 400), then handed to the session. Each exchange is logged and counted once.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RetrofitError } from '../../errors.js';
import type { ClassifiedBody, ClassifiedMessage } from '../../jsonrpc/classify.js';
import { MAX_DEPTH, nestedTooDeeply, strictProblem } from '../../jsonrpc/strict.js';
import type { Logger } from '../../log.js';
import { acceptsHeaderRevision, eraOf, isRevision, STATEFUL_REVISIONS } from '../../protocol/era.js';
import { requestedRevision } from '../../protocol/negotiate.js';
import { OwnedSession } from '../../session/owned.js';
import { SessionState } from '../../session/state.js';
import { headerValue } from '../../upstream/headers.js';
import type { SendOutcome, UpstreamLink } from '../../upstream/link.js';
import { labelOf, readBody } from '../server/body.js';
import { negotiatedReporter, snapshot, type GatewayContext, type Snapshot } from '../context.js';
import { logWhenDone, type ExchangeFacts } from '../server/exchange-log.js';
import type { Guard } from '../server/guards.js';
import { sendError, writeError } from '../write.js';
import type { PostStream } from './post-stream.js';
import { FrontSessions } from './registry.js';
import { FrontSession } from './session.js';

/** What the edge needs of one upstream kind. */
export interface FrontTarget {
  readonly name: string;
  readonly path: string;
  /** A link for a new session: the snapshot of its initialize request, and that request's headers. */
  link(snap: Snapshot, headers: IncomingHttpHeaders, log: Logger): UpstreamLink;
  readonly maxSessions: (snap: Snapshot) => number | undefined;
  readonly idleTimeoutMs: (snap: Snapshot) => number;
  readonly bridge: (snap: Snapshot) => boolean;
  /** Keep-alive interval (tests shorten it). */
  readonly keepAliveMs?: number;
}

function accepts(req: FastifyRequest, ...types: string[]): boolean {
  const accept = req.headers.accept;
  return accept !== undefined && types.every((t) => accept.includes(t));
}

/** The modern (session-less) revision a request claims, if any: such clients get -32022 and fall back. */
function claimedModern(header: string | undefined, body: ClassifiedBody): string | undefined {
  if (isRevision(header) && eraOf(header) === 'modern') return header;
  for (const m of body.messages) if (isRevision(m.metaRevision) && eraOf(m.metaRevision) === 'modern') return m.metaRevision;
  return undefined;
}

/**
 * The answer the v2 SDK client's version negotiation recognises (HTTP 400, JSON-RPC -32022 with
 * `data.supported` and `data.requested`): it then falls back to a session-based initialize on the same URL.
 */
function unsupportedVersion(reply: FastifyReply, requested: string, body: ClassifiedBody): FastifyReply {
  const err = new RetrofitError('RETROFIT_ERR_UNSUPPORTED_VERSION', [requested, STATEFUL_REVISIONS.join(', ')]);
  const only = body.batch ? undefined : body.messages[0];
  const id = only?.kind === 'request' && only.id !== undefined ? only.id : null;
  const error = { code: err.rpcCode, message: err.message, data: { code: err.code, supported: [...STATEFUL_REVISIONS], requested } };
  return reply.code(err.status).type('application/json').send({ jsonrpc: '2.0', id, error });
}

export interface FrontRoutes {
  readonly sessions: FrontSessions;
}

/** Register POST/GET/DELETE of the edge; `legacyGet` takes GETs without a session (legacy SSE clients). */
export function registerFront(app: FastifyInstance, target: FrontTarget, ctx: GatewayContext, guards: readonly Guard[], legacyGet?: (req: FastifyRequest, reply: FastifyReply) => Promise<void>): FrontRoutes {
  const sessions = new FrontSessions({
    upstream: target.name,
    metrics: ctx.metrics,
    maxSessions: () => target.maxSessions(snapshot(ctx, target.name)),
    idleTimeoutMs: () => target.idleTimeoutMs(snapshot(ctx, target.name)),
    ...(target.keepAliveMs !== undefined && { keepAliveMs: target.keepAliveMs }),
  });
  const log = ctx.logger.child({ upstream: target.name });

  function create(snap: Snapshot, headers: IncomingHttpHeaders): FrontSession {
    const id = randomUUID();
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

  async function post(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const facts: { -readonly [K in keyof ExchangeFacts]: ExchangeFacts[K] } = { method: 'POST' };
    const sessionId = headerValue(req.headers, 'mcp-session-id');
    // What the client got is known once the exchange ends: the stream's first error answer, if any.
    const answered: { stream?: PostStream } = {};
    const outcome = (): ExchangeFacts => ({ ...facts, rpcError: answered.stream?.outcome.rpcError, errorCode: answered.stream?.outcome.errorCode });
    logWhenDone(reply.raw, target.name, sessionId ? log.child({ session: sessionId, reqId: req.id }) : log.child({ reqId: req.id }), ctx.metrics, outcome);
    if (!accepts(req, 'application/json', 'text/event-stream')) return void sendError(reply, new RetrofitError('RETROFIT_ERR_NOT_ACCEPTABLE', ['both application/json and text/event-stream']));
    const read = readBody(req);
    if (read instanceof RetrofitError) return void sendError(reply, read);
    const { body } = read;
    facts.method = labelOf(body, 'POST');
    const first = body.messages[0];
    if (!body.batch && first?.method === 'tools/call') facts.tool = first.name;
    const problem = nestedTooDeeply(read.text) ? `nested deeper than ${MAX_DEPTH} levels` : body.messages.map(strictProblem).find((p) => p !== undefined);
    if (problem !== undefined) return void sendError(reply, new RetrofitError('RETROFIT_ERR_PARSE', [`invalid JSON-RPC message (${problem})`]));
    const header = headerValue(req.headers, 'mcp-protocol-version');
    const snap = snapshot(ctx, target.name, req);
    const initialize = body.messages.some((m) => m.kind === 'request' && m.method === 'initialize');

    let session: FrontSession;
    if (sessionId === undefined) {
      const modern = claimedModern(header, body);
      if (modern !== undefined) return void unsupportedVersion(reply, modern, body);
      if (!initialize) return void sendError(reply, new RetrofitError('RETROFIT_ERR_SESSION_REQUIRED'));
      if (body.messages.length > 1) return void sendError(reply, new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', ['only one initialization request is allowed']));
      const refused = sessions.admit();
      if (refused) return void sendError(reply, refused);
      session = create(snap, req.headers);
    } else {
      const found = sessions.get(sessionId);
      if (!found) return void sendError(reply, new RetrofitError('RETROFIT_ERR_SESSION_NOT_FOUND'));
      if (initialize) return void sendError(reply, new RetrofitError('RETROFIT_ERR_ALREADY_INITIALIZED'));
      if (header !== undefined && !acceptsHeaderRevision(header)) return void sendError(reply, new RetrofitError('RETROFIT_ERR_PROTOCOL_VERSION_HEADER', [header, STATEFUL_REVISIONS.join(', ')]));
      session = found;
    }
    sessions.touch(session);

    const requests = body.messages.filter((m) => m.kind === 'request');
    const duplicate = requests.find((m) => m.id !== undefined && m.id !== null && session.owned.state.pending.has(m.id));
    if (duplicate) return void sendError(reply, new RetrofitError('RETROFIT_ERR_DUPLICATE_ID', [JSON.stringify(duplicate.id)]), duplicate.id ?? null);

    const json = (m: ClassifiedMessage): string => (body.batch ? JSON.stringify(m.message) : read.text);
    const send = { headers: req.headers };
    reply.hijack();
    const res = reply.raw;
    if (requests.length === 0) {
      // Notifications and responses only: 202 once the upstream took them.
      const outcomes = await Promise.all(body.messages.map((m) => session.owned.notify(m, json(m), send)));
      const failed = outcomes.find((o): o is Extract<SendOutcome, { ok: false }> => !o.ok);
      if (failed) return writeError(res, failed.error);
      res.writeHead(202, { 'mcp-session-id': session.id }).end();
      return;
    }
    const initRequest = initialize ? requests[0] : undefined;
    const requested = initRequest ? requestedRevision(initRequest.message) : undefined;
    const revision = session.revision(requested ?? header);
    const stream = session.openStream(res, requests.map((m) => m.id!), revision);
    answered.stream = stream;
    for (const m of body.messages) {
      if (m.kind !== 'request') {
        void session.owned.notify(m, json(m), send);
        continue;
      }
      const { registered, sent } = session.owned.request(m, json(m), { header, policy: snap.policy, stream }, send);
      ctx.metrics.revisions.inc({ upstream: target.name, revision: registered.revision, source: registered.source });
      facts.revision = registered.revision;
      facts.revisionSource = registered.source;
      if (m.method === 'initialize' && requested !== undefined) facts.requested = requested;
      const refused = (outcome: SendOutcome): void => {
        if (outcome.ok) return;
        session.deliver(stream, { json: JSON.stringify(outcome.error.toJsonRpc(m.id ?? null)), answers: m.id!, error: { code: outcome.error.rpcCode, data: outcome.error.code } });
      };
      if (sent instanceof Promise) void sent.then(refused);
      else refused(sent);
    }
  }

  function sessionOf(req: FastifyRequest, reply: FastifyReply): FrontSession | undefined {
    const id = headerValue(req.headers, 'mcp-session-id');
    const session = id === undefined ? undefined : sessions.get(id);
    if (id === undefined) sendError(reply, new RetrofitError('RETROFIT_ERR_SESSION_REQUIRED'));
    else if (!session) sendError(reply, new RetrofitError('RETROFIT_ERR_SESSION_NOT_FOUND'));
    else {
      const header = headerValue(req.headers, 'mcp-protocol-version');
      if (header !== undefined && !acceptsHeaderRevision(header)) {
        sendError(reply, new RetrofitError('RETROFIT_ERR_PROTOCOL_VERSION_HEADER', [header, STATEFUL_REVISIONS.join(', ')]));
        return undefined;
      }
      sessions.touch(session);
    }
    return session;
  }

  async function get(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (legacyGet && headerValue(req.headers, 'mcp-session-id') === undefined) return legacyGet(req, reply);
    logWhenDone(reply.raw, target.name, log.child({ reqId: req.id }), ctx.metrics, () => ({ method: 'GET' }));
    if (!accepts(req, 'text/event-stream')) return void sendError(reply, new RetrofitError('RETROFIT_ERR_NOT_ACCEPTABLE', ['text/event-stream']));
    const session = sessionOf(req, reply);
    if (!session) return;
    reply.hijack();
    const outcome = session.get(reply.raw, headerValue(req.headers, 'last-event-id'));
    if (!outcome.ok) writeError(reply.raw, new RetrofitError(outcome.status === 409 ? 'RETROFIT_ERR_CONFLICT' : 'RETROFIT_ERR_INVALID_REQUEST', [outcome.message]));
  }

  async function remove(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    logWhenDone(reply.raw, target.name, log.child({ reqId: req.id }), ctx.metrics, () => ({ method: 'DELETE' }));
    const session = sessionOf(req, reply);
    if (!session) return;
    await sessions.close(session, 'session closed');
    void reply.code(200).send();
  }

  app.route({ method: 'POST', url: target.path, onRequest: [...guards], handler: post });
  app.route({ method: 'GET', url: target.path, onRequest: [...guards], handler: get });
  app.route({ method: 'DELETE', url: target.path, onRequest: [...guards], handler: remove });
  return { sessions };
}
