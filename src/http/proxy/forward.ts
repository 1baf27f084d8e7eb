/**
 * One proxied exchange with a Streamable HTTP upstream: check and classify the body once, register with the
 * session what awaits its answer (src/session/state.ts decides: initialize, and what may be rewritten),
 * forward the original bytes with the headers the upstream's revision understands, then relay the answer
 * (SSE event by event, JSON whole only when it may be rewritten, anything else streamed). Logs one line and
 * counts one request per exchange.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpUpstreamConfig } from '../../config/types.js';
import { RetrofitError } from '../../errors.js';
import { isJsonObject } from '../../json.js';
import type { ClassifiedBody, ClassifiedMessage, JsonRpcId } from '../../jsonrpc/classify.js';
import { detectRevision, type RevisionSource } from '../../protocol/era.js';
import { requestedRevision, upstreamProtocolHeader } from '../../protocol/negotiate.js';
import { SessionTable } from '../../session/table.js';
import { SessionState } from '../../session/state.js';
import { Cancel } from '../../upstream/cancel.js';
import { mapUpstreamFailure, type FailureContext } from '../../upstream/errors.js';
import { headerValue, mediaType, toClientHeaders, toUpstreamHeaders } from '../../upstream/headers.js';
import type { HttpUpstream } from '../../upstream/http.js';
import type { Logger } from '../../log.js';
import { subscriptionListChanged, type ServerStreams } from './streams.js';
import { labelOf, readBody } from '../server/body.js';
import { rewriteChallenge } from '../oauth/routes.js';
import { negotiatedReporter, snapshot, type GatewayContext, type Generational } from '../context.js';
import { writeError } from '../write.js';
import { pipeRaw, readAndRewriteJson, relaySse, type RelayContext } from './relay.js';

/** What every exchange of one upstream shares. */
export interface ProxyTarget {
  readonly name: string;
  readonly upstream: HttpUpstream;
  /** Open GET and listen streams of this upstream, so a reload can inject notifications/tools/list_changed. */
  readonly streams: ServerStreams;
}

type Verb = 'GET' | 'POST' | 'DELETE';

/** The id of a 2026-07-28 `subscriptions/listen` request that opted in to tool list changes. */
function listensForToolChanges(m: ClassifiedMessage | undefined): string | number | undefined {
  if (m?.method !== 'subscriptions/listen' || !isJsonObject(m.message) || !isJsonObject(m.message.params)) return undefined;
  const filter = m.message.params.notifications;
  const id = m.id;
  return isJsonObject(filter) && filter.toolsListChanged === true && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}

/** Options distinguishing MCP exchanges from plain passthrough (OAuth discovery). */
export interface ForwardOptions {
  /** Upstream path + query. */
  readonly path: string;
  /** False for discovery documents: no body handling, no message awareness. */
  readonly mcp: boolean;
}

/** Any `subscriptions/listen` in the body (a loop: this runs on every POST). */
function hasListen(classified: ClassifiedBody | undefined): boolean {
  if (!classified) return false;
  for (const m of classified.messages) if (m.method === 'subscriptions/listen') return true;
  return false;
}

/**
 * One client request as forward reads it: a Fastify request has this shape (its route hands it over as it
 * is), and so does what the direct lane (src/http/server/lane.ts) makes of a raw one.
 */
export interface ProxyRequest {
  /** For log lines (Fastify's request id, or the lane's from the same generator). */
  readonly id: string;
  readonly method: string;
  /** Path and query, as the client sent them. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** A POST's raw bytes, read within limits.maxRequestBytes. */
  readonly body?: unknown;
  readonly socket: Socket;
  /** The config generation it is served under, taken when it arrived (src/http/context.ts). */
  generation: Generational['generation'];
}

/**
 * Proxy one request to the upstream and answer on `res`, which nothing else writes to (the Fastify route
 * hijacks its reply first). Upstream failures are answered with the gateway's errors, or end the connection.
 */
export async function forward(request: ProxyRequest, res: ServerResponse, ctx: GatewayContext, target: ProxyTarget, options: ForwardOptions): Promise<void> {
  const started = performance.now();
  const snap = snapshot<HttpUpstreamConfig>(ctx, target.name, request);
  const config = snap.upstream;
  const { name } = target;
  const verb = request.method as Verb;
  const session = headerValue(request.headers, 'mcp-session-id');
  const header = headerValue(request.headers, 'mcp-protocol-version');
  // Bound only when something else than the request line is logged: pino serialises a child's bindings when it
  // is made, a visible share of an exchange's CPU when made for every one. The request line gets the same
  // fields from the base logger (see logLine).
  let bound: Logger | undefined;
  const log = (): Logger => (bound ??= ctx.logger.child({ reqId: request.id, upstream: name, ...(session !== undefined && { session }) }));

  let body: Buffer | undefined;
  let classified: ClassifiedBody | undefined;
  if (verb === 'POST' && options.mcp) {
    const read = readBody(request);
    if (read instanceof RetrofitError) {
      ctx.metrics.requestTally.inc(name, verb, read.status);
      log().info({ method: verb, status: read.status, code: read.code, durationMs: Math.round(performance.now() - started) }, 'request rejected');
      writeError(res, read);
      return;
    }
    body = read.bytes;
    classified = read.body;
  }

  const first = classified?.messages[0];
  const method = labelOf(classified, verb);
  const tool = first?.method === 'tools/call' ? first.name : undefined;
  const singleId: JsonRpcId = classified && !classified.batch && first?.kind === 'request' ? (first.id ?? null) : null;

  // The session's state: shared with its other exchanges (GET replays of answers) when it has an id.
  const known = session === undefined ? undefined : verb === 'POST' ? ctx.sessions.open(name, session, config.bridge) : ctx.sessions.get(name, session);
  let state: SessionState | undefined = known;
  let revision = detectRevision({ meta: first?.metaRevision, header, session: known?.clientRevision });
  const own: (string | number)[] = [];
  if (classified && options.mcp) {
    for (const m of classified.messages) {
      if (m.kind !== 'request') continue;
      // Only an initialize answer negotiates (and may be bridged, which is logged): no reporter otherwise.
      state ??= new SessionState(m.method === 'initialize' ? { ...SessionTable.stateOptions(name, config.bridge), onNegotiated: negotiatedReporter(ctx, name, log()) } : SessionTable.stateOptions(name, config.bridge));
      const registered = state.expect(m, { header, policy: snap.policy });
      if (m === first) revision = registered;
      if (registered.pending) own.push(registered.pending.id);
    }
  }
  if (options.mcp) ctx.metrics.revisionTally.inc(name, revision.revision, revision.source);

  const cancel = new Cancel();
  // GET streams and subscriptions/listen never end on their own; discovery documents are ordinary requests.
  const longLived = options.mcp && (verb === 'GET' || hasListen(classified));
  const done = ctx.inflight.start(cancel, longLived);
  // A client that goes away takes its upstream request with it (on 2026-07-28 that is cancellation). Not
  // removed at the end: 'close' comes once the response is finished, when aborting is a no-op. `on`, not
  // `once`: 'close' is emitted once, and once's wrapper and its removal are a visible cost per exchange.
  res.on('close', () => {
    if (!res.writableFinished) cancel.abort();
  });
  // The client may already be gone (it closed while its body was being read): do not open a stream for nobody.
  if (request.socket.destroyed) cancel.abort();

  let status = 0;
  let aborted = false;
  let untrack: (() => void) | undefined;
  let assigned: string | undefined;
  const failureContext = (): FailureContext => ({ upstream: name, timeoutMs: config.timeoutMs, method, log: log(), metrics: ctx.metrics });
  try {
    const headers = toUpstreamHeaders(request.headers, { host: target.upstream.host, configured: config.headers, dropAuthorization: snap.loaded.config.auth !== undefined });
    // A bridged session's upstream does not know the client's revision: it gets its own, or none.
    if (header !== undefined) {
      const forwarded = upstreamProtocolHeader(header, known?.upstreamRevision);
      if (forwarded === undefined) delete headers['mcp-protocol-version'];
      else headers['mcp-protocol-version'] = forwarded;
    }
    let answer;
    try {
      answer = await target.upstream.exchange({ method: verb, path: options.path, headers, body }, cancel, config.timeoutMs);
    } catch (err) {
      for (const id of own) state?.pending.release(id);
      const mapped = mapUpstreamFailure(err, failureContext());
      if (!mapped) {
        aborted = true;
        res.destroy();
        return;
      }
      status = mapped.status;
      writeError(res, mapped, singleId);
      return;
    }
    ctx.metrics.latency.observe(name, method, (performance.now() - started) / 1000);
    status = answer.statusCode;
    assigned = headerValue(answer.headers, 'mcp-session-id');
    if (session !== undefined && (status === 404 || (verb === 'DELETE' && status < 300))) ctx.sessions.forget(name, session);
    // OAuth: a 401/403 challenge names the gateway's metadata URL for this upstream (src/http/oauth/routes.ts).
    rewriteChallenge(request, config, status, answer.headers);

    const type = mediaType(headerValue(answer.headers, 'content-type'));
    // A plain literal: an accessor here made V8 build the object the slow way (a third of forward's self time).
    const relay: RelayContext = { state, rewriter: ctx.rewriter, log, max: snap.loaded.config.limits.maxResultBytes, upstream: name, own };
    if (options.mcp && type === 'text/event-stream') {
      res.writeHead(status, toClientHeaders(answer.headers, { dropLength: true }));
      // Headers go out at once unless the first event is already here to go with them (one write, not two).
      if (!answer.body.buffered) res.flushHeaders();
      if (verb === 'GET') untrack = target.streams.track(res);
      else if (status === 200 && classified && !classified.batch) {
        const listen = listensForToolChanges(first);
        if (listen !== undefined) untrack = target.streams.track(res, subscriptionListChanged(listen));
      }
      await relaySse(answer.body, res, relay);
      // Answers that needed no parsing left their entries behind; a strict one may still come on a replay.
      for (const id of own) {
        const p = state?.pending.peek(id);
        if (p?.expect.kind === 'rewrite' && p.expect.nativeOnly) state?.pending.release(id);
      }
    } else if (options.mcp && type === 'application/json' && state !== undefined && !state.pending.empty) {
      let bytes: Buffer;
      try {
        // Synchronous when the whole body is already here (a small answer): no promise per chunk.
        const read = readAndRewriteJson(answer.body, relay);
        bytes = read instanceof Promise ? await read : read;
      } catch (err) {
        const mapped = mapUpstreamFailure(err, failureContext());
        if (!mapped) throw err;
        status = mapped.status;
        writeError(res, mapped, singleId);
        return;
      } finally {
        // A JSON answer is the only one: whatever of ours it did not answer, nothing will.
        for (const id of own) state.pending.release(id);
      }
      const out = toClientHeaders(answer.headers, { dropLength: true });
      out['content-length'] = bytes.length;
      res.writeHead(status, out);
      res.end(bytes);
      return;
    } else {
      res.writeHead(status, toClientHeaders(answer.headers, { dropLength: false }));
      await pipeRaw(answer.body, res);
    }
    if (!res.destroyed) res.end();
  } catch (err) {
    // Mid-body: headers are out, so the only honest signal left is ending the connection.
    aborted = cancel.aborted;
    if (!aborted) log().warn({ err, method }, 'upstream stream failed mid-body');
    res.destroy();
  } finally {
    adopt(ctx, name, config.bridge, session, assigned, state);
    untrack?.();
    done();
    ctx.metrics.requestTally.inc(name, method, status);
    logLine(ctx.logger, bound, request.id, name, session, method, tool, revision, first?.method === 'initialize' ? requestedRevision(first.message) : undefined, status, aborted, started);
  }
}

/** The initialize answer named a new session: what was learnt of it goes where its next exchanges look. */
function adopt(ctx: GatewayContext, name: string, bridge: boolean, session: string | undefined, assigned: string | undefined, state: SessionState | undefined): void {
  if (session !== undefined || assigned === undefined || !state?.negotiated) return;
  ctx.sessions.open(name, assigned, bridge).adopt(state.negotiated);
}

/**
 * The one line per exchange: through the bound child when one was made, else the base logger with the same
 * fields the child would have bound (reqId, upstream, session), so every line reads the same.
 */
function logLine(
  base: Logger,
  bound: Logger | undefined,
  reqId: string,
  upstream: string,
  session: string | undefined,
  method: string,
  tool: string | undefined,
  revision: { revision: string; source: RevisionSource },
  requested: string | undefined,
  status: number,
  aborted: boolean,
  started: number,
): void {
  const outcome = aborted ? 'aborted' : status === 0 || status >= 400 ? 'error' : 'ok';
  const durationMs = Math.round(performance.now() - started);
  const { revision: r, source } = revision;
  // One literal per branch (no spreads): this runs once per exchange.
  if (bound) bound.info({ method, tool, revision: r, revisionSource: source, requested, status, outcome, aborted: aborted || undefined, durationMs }, 'request');
  else base.info({ reqId, upstream, session, method, tool, revision: r, revisionSource: source, requested, status, outcome, aborted: aborted || undefined, durationMs }, 'request');
}
