/**
 * One proxied exchange with a Streamable HTTP upstream: check and classify the body once, decide the
 * governing revision, register what awaits rewriting, forward the original bytes, then relay the answer
 * (SSE event by event, JSON whole only when it may be rewritten, anything else streamed). Logs one line
 * and counts one request per exchange.
 */
import { isJsonObject } from '../json.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { RetrofitError } from '../errors.js';
import { classifyBody, type ClassifiedBody, type ClassifiedMessage, type JsonRpcId } from '../jsonrpc/classify.js';
import type { Logger } from '../log.js';
import { detectRevision, revisionsDisagree } from '../protocol/era.js';
import { ResponseMatcher, type SessionState } from '../session/responses.js';
import { pipeRaw, readAndRewriteJson, relaySse } from '../stream/relay.js';
import { Cancel } from '../upstream/cancel.js';
import { mapUpstreamFailure } from '../upstream/errors.js';
import type { HttpUpstream } from '../upstream/http.js';
import type { GatewayDeps } from './deps.js';
import { headerValue, mediaType, toClientHeaders, toUpstreamHeaders } from './headers.js';
import { rewriteChallenge } from './oauth-routes.js';
import type { InFlight } from './inflight.js';
import { subscriptionListChanged, type ServerStreams } from '../reload/notify.js';

/** What every exchange of one upstream shares. */
export interface ProxyContext {
  readonly upstream: HttpUpstream;
  readonly deps: GatewayDeps;
  readonly state: SessionState;
  readonly inflight: InFlight;
  /** Open GET streams of this upstream, so a reload can inject notifications/tools/list_changed. */
  readonly streams?: ServerStreams;
}

type Verb = 'GET' | 'POST' | 'DELETE';

function sendError(reply: FastifyReply, error: RetrofitError, id: JsonRpcId = null): FastifyReply {
  return reply.code(error.status).type('application/json').send(error.toJsonRpc(id));
}

function writeError(res: ServerResponse, error: RetrofitError, id: JsonRpcId): void {
  const body = JSON.stringify(error.toJsonRpc(id));
  res.writeHead(error.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Parse a POST body: 415 unless JSON, 400 -32700 when it does not parse. */
function readBody(request: FastifyRequest): { body: Buffer; classified: ClassifiedBody } | RetrofitError {
  if (mediaType(request.headers['content-type']) !== 'application/json') return new RetrofitError('RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE');
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  try {
    return { body, classified: classifyBody(JSON.parse(body.toString('utf8'))) };
  } catch (err) {
    return new RetrofitError('RETROFIT_ERR_PARSE', [err instanceof Error ? err.message : String(err)], { cause: err });
  }
}

/** The tool a tools/call or tasks/result request is about, when known. */
function toolOf(m: ClassifiedMessage, ctx: ProxyContext, session: string | undefined): string | undefined {
  if (m.method === 'tools/call') return m.name;
  if (m.method === 'tasks/result' && isJsonObject(m.message) && isJsonObject(m.message.params)) {
    const taskId = m.message.params.taskId;
    if (typeof taskId === 'string') return ctx.state.facts.toolOfTask(ctx.upstream.config.name, session, taskId);
  }
  return undefined;
}

/** The id of a 2026-07-28 `subscriptions/listen` request that opted in to tool list changes. */
function listensForToolChanges(m: ClassifiedMessage | undefined): string | number | undefined {
  if (m?.method !== 'subscriptions/listen' || !isJsonObject(m.message) || !isJsonObject(m.message.params)) return undefined;
  const filter = m.message.params.notifications;
  const id = m.id;
  return isJsonObject(filter) && filter.toolsListChanged === true && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}

/** Register every request of the body whose response must be read (rewrites, and initialize). */
function expectResponses(matcher: ResponseMatcher, classified: ClassifiedBody, ctx: ProxyContext, header: string | undefined, session: string | undefined): void {
  const name = ctx.upstream.config.name;
  const sessionRevision = ctx.state.facts.revisionOf(name, session);
  for (const m of classified.messages) {
    if (m.kind !== 'request' || m.id === undefined || m.id === null || m.method === undefined) continue;
    if (m.method === 'initialize') {
      matcher.expect(m.id, { kind: 'initialize' });
    } else if (ctx.deps.rewriter.needsRewrite(m.method) && !revisionsDisagree({ meta: m.metaRevision, header })) {
      const { revision } = detectRevision({ meta: m.metaRevision, header, session: sessionRevision });
      const tool = toolOf(m, ctx, session);
      const policy = ctx.deps.rewriter.policyOf(name);
      const request = { upstream: name, method: m.method, revision, ...(tool !== undefined && { tool }), ...(policy && { policy }) };
      matcher.expect(m.id, { kind: 'rewrite', request, shared: session !== undefined });
    }
  }
}

/** Options distinguishing MCP exchanges from plain passthrough (OAuth discovery). */
export interface ForwardOptions {
  /** Upstream path + query. */
  readonly path: string;
  /** False for discovery documents: no body handling, no message awareness. */
  readonly mcp: boolean;
}

/** Proxy one request to the upstream. */
export async function forward(request: FastifyRequest, reply: FastifyReply, ctx: ProxyContext, options: ForwardOptions): Promise<void> {
  const started = performance.now();
  const { deps, upstream } = ctx;
  const name = upstream.config.name;
  const verb = request.method as Verb;
  const session = headerValue(request.headers, 'mcp-session-id');
  const header = headerValue(request.headers, 'mcp-protocol-version');
  const log: Logger = deps.logger.child({ reqId: request.id, upstream: name, ...(session !== undefined && { session }) });

  let body: Buffer | undefined;
  let classified: ClassifiedBody | undefined;
  if (verb === 'POST' && options.mcp) {
    const read = readBody(request);
    if (read instanceof RetrofitError) {
      deps.metrics.requests.inc({ upstream: name, method: verb, status: read.status });
      log.info({ method: verb, status: read.status, code: read.code, durationMs: Math.round(performance.now() - started) }, 'request rejected');
      await sendError(reply, read);
      return;
    }
    ({ body, classified } = read);
  }

  const first = classified?.messages[0];
  const method = first?.method ?? (first ? first.kind : verb);
  const tool = first?.method === 'tools/call' ? first.name : undefined;
  const singleId = classified && !classified.batch && first?.kind === 'request' ? (first.id ?? null) : null;
  const { revision, source } = detectRevision({ meta: first?.metaRevision, header, session: ctx.state.facts.revisionOf(name, session) });
  if (options.mcp) deps.metrics.revisions.inc({ upstream: name, revision, source });

  const matcher = new ResponseMatcher(name, session, ctx.state, log);
  if (classified) expectResponses(matcher, classified, ctx, header, session);

  const cancel = new Cancel();
  // GET streams and subscriptions/listen never end on their own; discovery documents are ordinary requests.
  const longLived = options.mcp && (verb === 'GET' || (classified?.messages.some((m) => m.method === 'subscriptions/listen') ?? false));
  const done = ctx.inflight.start(cancel, longLived);
  const res = reply.raw;
  // A client that goes away takes its upstream request with it (on 2026-07-28 that is cancellation).
  const onClose = (): void => {
    if (!res.writableFinished) cancel.abort();
  };
  res.on('close', onClose);
  // The client may already be gone (it closed while its body was being read): do not open a stream for nobody.
  if (request.raw.socket.destroyed) cancel.abort();

  let status = 0;
  let aborted = false;
  let untrack: (() => void) | undefined;
  const failureContext = { upstream: name, timeoutMs: upstream.config.timeoutMs, method, log, metrics: deps.metrics };
  try {
    let answer;
    try {
      answer = await upstream.exchange(
        {
          method: verb,
          path: options.path,
          headers: toUpstreamHeaders(request.headers, { host: upstream.host, configured: upstream.config.headers, dropAuthorization: deps.config.auth !== undefined }),
          ...(body !== undefined && { body }),
        },
        cancel,
      );
    } catch (err) {
      const mapped = mapUpstreamFailure(err, failureContext);
      if (!mapped) {
        aborted = true;
        reply.hijack();
        res.destroy();
        return;
      }
      status = mapped.status;
      await sendError(reply, mapped, singleId);
      return;
    }
    deps.metrics.latency.observe({ upstream: name, method }, (performance.now() - started) / 1000);
    status = answer.statusCode;
    matcher.assignSession(headerValue(answer.headers, 'mcp-session-id'));
    if (session !== undefined && (status === 404 || (verb === 'DELETE' && status < 300))) ctx.state.facts.forget(name, session);
    // OAuth: a 401/403 challenge names the gateway's metadata URL for this upstream (src/http/oauth-routes.ts).
    rewriteChallenge(request, upstream.config, status, answer.headers);

    reply.hijack();
    const type = mediaType(headerValue(answer.headers, 'content-type'));
    if (options.mcp && type === 'text/event-stream') {
      res.writeHead(status, toClientHeaders(answer.headers, { dropLength: true }));
      res.flushHeaders();
      if (verb === 'GET') untrack = ctx.streams?.track(res);
      else if (status === 200 && classified && !classified.batch) {
        const listen = listensForToolChanges(first);
        if (listen !== undefined) untrack = ctx.streams?.track(res, subscriptionListChanged(listen));
      }
      await relaySse(answer.body, res, matcher, log, { max: deps.config.limits.maxResultBytes, upstream: name });
    } else if (options.mcp && type === 'application/json' && matcher.active) {
      let bytes: Buffer;
      try {
        bytes = await readAndRewriteJson(answer.body, deps.config.limits.maxResultBytes, name, matcher, log);
      } catch (err) {
        const mapped = mapUpstreamFailure(err, failureContext);
        if (!mapped) throw err;
        status = mapped.status;
        writeError(res, mapped, singleId);
        return;
      }
      res.writeHead(status, { ...toClientHeaders(answer.headers, { dropLength: true }), 'content-length': bytes.length });
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
    if (!aborted) log.warn({ err, method }, 'upstream stream failed mid-body');
    res.destroy();
  } finally {
    res.off('close', onClose);
    untrack?.();
    done();
    deps.metrics.requests.inc({ upstream: name, method, status });
    log.info(
      { method, ...(tool !== undefined && { tool }), revision, revisionSource: source, status, outcome: aborted ? 'aborted' : status === 0 || status >= 400 ? 'error' : 'ok', ...(aborted && { aborted }), durationMs: Math.round(performance.now() - started) },
      'request',
    );
  }
}
