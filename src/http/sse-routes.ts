/**
 * Routes for legacy HTTP+SSE upstreams (`sse:`, the 2024-11-05 transport). Clients GET the upstream's path
 * and receive the upstream's event stream, with the announced `endpoint` rewritten to `<path>/message`;
 * their POSTs there are forwarded to the upstream's own endpoint, and the responses (which arrive on the
 * GET stream) are retrofitted like any other.
 */
import { connect } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { request } from 'undici';
import type { SseUpstreamConfig } from '../config/types.js';
import { RetrofitError } from '../errors.js';
import { classifyBody } from '../jsonrpc/classify.js';
import { ServerStreams, TOOLS_LIST_CHANGED } from '../reload/notify.js';
import { SseSplitter } from '../stream/sse.js';
import { mapUpstreamFailure, type FailureContext } from '../upstream/errors.js';
import { LegacyConnections, relayEvent, rememberRequests, type LegacyConnection } from '../upstream/sse-legacy.js';
import type { GatewayDeps } from './deps.js';
import { authGuard, rebindingGuard } from './guards.js';
import { rewriteChallenge } from './oauth-routes.js';
import { headerValue, mediaType, toClientHeaders, toUpstreamHeaders } from './headers.js';
import type { UpstreamRoutes } from './stdio-routes.js';

const READY_TIMEOUT_MS = 2_000;

function sendError(reply: FastifyReply, error: RetrofitError): FastifyReply {
  return reply.code(error.status).type('application/json').send(error.toJsonRpc());
}

/** /readyz for an `sse:` upstream: its host accepts TCP connections (a GET would open a session upstream). */
function reachable(url: URL): Promise<{ ok: boolean; detail?: string }> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port });
    const done = (result: { ok: boolean; detail?: string }): void => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(READY_TIMEOUT_MS, () => done({ ok: false, detail: `no TCP connection to ${url.host} within ${READY_TIMEOUT_MS}ms` }));
    socket.once('connect', () => done({ ok: true }));
    socket.once('error', (err) => done({ ok: false, detail: `${url.host}: ${err.message}` }));
  });
}

export function registerSseRoutes(app: FastifyInstance, upstream: SseUpstreamConfig, deps: GatewayDeps): UpstreamRoutes {
  const { config, metrics, rewriter } = deps;
  const log = deps.logger.child({ upstream: upstream.name });
  const sseUrl = new URL(upstream.sse);
  const route = upstream.path.replace(/\/$/, '');
  const messagePath = `${route}/message`;
  const connections = new LegacyConnections();
  const streams = new ServerStreams();
  const failure = (method: string): FailureContext => ({ upstream: upstream.name, timeoutMs: upstream.timeoutMs, method, log, metrics });
  const upstreamHeaders = (req: FastifyRequest, host: string): Record<string, string | string[]> =>
    toUpstreamHeaders(req.headers, { host, configured: upstream.headers, dropAuthorization: config.auth !== undefined });

  async function stream(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const conn = connections.create();
    const opened = performance.now();
    reply.raw.once('close', () => {
      conn.abort.abort();
      connections.delete(conn);
      metrics.requests.inc({ upstream: upstream.name, method: 'GET', status: reply.raw.statusCode });
      log.info({ reqId: req.id, connection: conn.id, method: 'GET', status: reply.raw.statusCode, outcome: reply.raw.writableFinished ? 'ok' : 'aborted', durationMs: Math.round(performance.now() - opened) }, 'request');
    });
    let res;
    try {
      res = await request(sseUrl, { method: 'GET', headers: upstreamHeaders(req, sseUrl.host), signal: conn.abort.signal, headersTimeout: upstream.timeoutMs, bodyTimeout: 0 });
    } catch (err) {
      connections.delete(conn);
      const mapped = mapUpstreamFailure(err, failure('GET'));
      return mapped ? sendError(reply, mapped) : reply;
    }
    if (res.statusCode !== 200 || mediaType(headerValue(res.headers, 'content-type')) !== 'text/event-stream') {
      // Not a stream (401 with WWW-Authenticate, 404, …): the client sees the upstream's answer.
      connections.delete(conn);
      // OAuth: the challenge names the gateway's metadata for this upstream, not the upstream's own.
      rewriteChallenge(req, upstream, res.statusCode, res.headers);
      return reply.code(res.statusCode).headers(toClientHeaders(res.headers, { dropLength: false })).send(res.body);
    }
    reply.hijack();
    const out = reply.raw;
    out.writeHead(200, toClientHeaders(res.headers, { dropLength: true }));
    out.flushHeaders();
    const ctx = { upstream: upstream.name, sseUrl, clientEndpoint: `${messagePath}?sessionId=${conn.id}`, rewriter, log: log.child({ connection: conn.id }) };
    const splitter = new SseSplitter();
    let tracked = false;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        for (const event of splitter.push(chunk)) {
          // A result on a worker holds the events after it: the client gets them in the upstream's order.
          const bytes = relayEvent(event, conn, ctx);
          out.write(bytes instanceof Promise ? await bytes : bytes);
          // Notifications of our own only once the client has its endpoint (its first event).
          if (conn.endpoint && !tracked) {
            tracked = true;
            out.once('close', streams.track(out));
          }
        }
      }
      for (const event of splitter.end()) out.write(event.raw);
    } catch (err) {
      if (!conn.abort.signal.aborted) mapUpstreamFailure(err, failure('GET'));
    } finally {
      connections.delete(conn);
      out.end();
    }
    return reply;
  }

  async function message(req: FastifyRequest<{ Querystring: { sessionId?: string } }>, reply: FastifyReply): Promise<FastifyReply> {
    const conn: LegacyConnection | undefined = req.query.sessionId === undefined ? undefined : connections.get(req.query.sessionId);
    if (!conn?.endpoint) return sendError(reply, new RetrofitError('RETROFIT_ERR_SESSION_NOT_FOUND'));
    const text = req.body as string;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return sendError(reply, new RetrofitError('RETROFIT_ERR_PARSE', [(err as Error).message], { cause: err }));
    }
    const body = classifyBody(parsed);
    const first = body.messages[0];
    const label = body.batch ? 'batch' : (first?.method ?? first?.kind ?? 'invalid');
    for (const found of rememberRequests(conn, upstream.name, body.messages, headerValue(req.headers, 'mcp-protocol-version'), deps.rewriter.policyOf(upstream.name))) {
      metrics.revisions.inc({ upstream: upstream.name, ...found });
    }
    const forget = (): void => {
      for (const m of body.messages) if (m.kind === 'request' && m.id !== undefined) conn.pending.delete(m.id);
    };
    const started = performance.now();
    const tool = !body.batch && first?.method === 'tools/call' ? first.name : undefined;
    // One line per POST, as for the other transports; its answer arrives later on the GET stream.
    const line = (status: number): void =>
      log.info(
        { reqId: req.id, connection: conn.id, method: label, ...(tool !== undefined && { tool }), status, outcome: status >= 400 ? 'error' : 'ok', durationMs: Math.round(performance.now() - started) },
        'request',
      );
    try {
      const res = await request(conn.endpoint, { method: 'POST', headers: upstreamHeaders(req, conn.endpoint.host), body: text, headersTimeout: upstream.timeoutMs });
      metrics.latency.observe({ upstream: upstream.name, method: label }, (performance.now() - started) / 1000);
      metrics.requests.inc({ upstream: upstream.name, method: label, status: res.statusCode });
      // Not accepted: no response will come on the stream for these requests.
      if (res.statusCode >= 300) forget();
      line(res.statusCode);
      rewriteChallenge(req, upstream, res.statusCode, res.headers);
      return reply.code(res.statusCode).headers(toClientHeaders(res.headers, { dropLength: false })).send(Buffer.from(await res.body.arrayBuffer()));
    } catch (err) {
      forget();
      const mapped = mapUpstreamFailure(err, failure(label)) ?? new RetrofitError('RETROFIT_ERR_UPSTREAM_UNREACHABLE', [upstream.name], { cause: err });
      line(mapped.status);
      return sendError(reply, mapped);
    }
  }

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Parsed in the handler: the body is forwarded as the client sent it.
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: config.limits.maxRequestBytes }, (_req, text, done) => done(null, text));
    scope.setErrorHandler((error: { statusCode?: number; message: string }, _req, reply) => {
      const mapped =
        error.statusCode === 413
          ? new RetrofitError('RETROFIT_ERR_BODY_TOO_LARGE', [config.limits.maxRequestBytes])
          : error.statusCode === 415
            ? new RetrofitError('RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE')
            : new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', [error.message]);
      return sendError(reply, mapped);
    });
    const onRequest = [rebindingGuard(config), authGuard(config)];
    scope.get(upstream.path, { onRequest }, stream);
    scope.post<{ Querystring: { sessionId?: string } }>(messagePath, { onRequest }, message);
  });
  // Legacy streams never end by themselves: end them before the server waits for its connections.
  app.addHook('preClose', async () => connections.closeAll());

  return {
    ready: () => reachable(sseUrl),
    close: async () => connections.closeAll(),
    // Legacy clients get server messages on this stream only: list_changed goes there too.
    notifyToolsChanged: () => streams.broadcast(TOOLS_LIST_CHANGED),
  };
}
