/**
 * The gateway's one HTTP server: a Fastify instance with the server's bounds (limits.*: how long a request's
 * headers and whole body may take to arrive, how long an idle keep-alive connection stays, how large headers
 * and bodies may be), request ids, and the answers for everything no route serves — each a JSON-RPC error
 * from the registry (src/errors.ts): 404/405 for unknown routes, 408/431/400 for requests Node's parser gives
 * up on, 400 for an HTTP/1.1 request without Host and 405 for CONNECT (which Node would answer with a bare 400
 * and by dropping the connection), 503 during shutdown, 500 for a bug. Routes are registered through the gate
 * (./gate.ts).
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { GatewayConfig } from '../../config/types.js';
import { RetrofitError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { writeError, writeInternalError } from '../write.js';
import type { Gate } from './gate.js';

/** How often Node checks the header and request timeouts of open connections (ms): their granularity. */
const TIMEOUT_CHECK_MS = 1_000;

export interface ServerOptions {
  /** The first config generation (the server's bounds are fixed at start). */
  readonly config: GatewayConfig;
  readonly logger: Logger;
  readonly nextId: () => string;
}

/** A Fastify error (body too large, bad media type, malformed request) as the gateway's own error. */
export function fastifyError(error: { statusCode?: number; code?: string; message: string }, maxRequestBytes: number): RetrofitError | undefined {
  if (error.statusCode === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new RetrofitError('RETROFIT_ERR_BODY_TOO_LARGE', [maxRequestBytes], { cause: error });
  if (error.statusCode === 415 || error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new RetrofitError('RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE', [], { cause: error });
  if (error.statusCode !== undefined && error.statusCode < 500) return new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', [error.message], { cause: error });
  return undefined;
}

/**
 * What Node's parser gave up on, as the gateway's error. Node names both timeouts ERR_HTTP_REQUEST_TIMEOUT:
 * `headersIn` (a response exists for the request) tells the whole request's bound from the headers' one.
 */
function clientError(err: NodeJS.ErrnoException, limits: GatewayConfig['limits'], headersIn: boolean): RetrofitError {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new RetrofitError('RETROFIT_ERR_REQUEST_TIMEOUT', headersIn ? ['request was', limits.requestTimeoutMs, 'requestTimeoutMs'] : ["request's headers were", limits.headersTimeoutMs, 'headersTimeoutMs'], { cause: err });
  if (err.code === 'HPE_HEADER_OVERFLOW') return new RetrofitError('RETROFIT_ERR_HEADERS_TOO_LARGE', [limits.maxHeaderBytes], { cause: err });
  return new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', ['malformed HTTP request'], { cause: err });
}

/** The gateway's error as a whole HTTP response written on a bare socket, which then closes. */
function answerOnSocket(socket: Duplex, error: RetrofitError): void {
  if (socket.writable) {
    const body = JSON.stringify(error.toJsonRpc());
    socket.write(`HTTP/1.1 ${error.status} ${statusText(error.status)}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

/**
 * Answer a request Node's parser gave up on (a timeout, headers too large, bytes that are not HTTP) on its
 * socket, as Node itself would: only when no answer of ours is under way on it (a response that sent its
 * headers cannot take another), then end the connection.
 */
function onClientError(logger: Logger, limits: GatewayConfig['limits']): (err: NodeJS.ErrnoException, socket: Socket) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    const error = clientError(err, limits, inFlight != null);
    logger.warn({ code: error.code, cause: err.code, remote: socket.remoteAddress }, error.message);
    if (inFlight?.headersSent) socket.destroy();
    else answerOnSocket(socket, error);
  };
}

/** A request target without its query, for the log. */
const pathOf = (url: string | undefined): string => (url ?? '/').split('?', 1)[0]!;

const STATUS_TEXT: Readonly<Record<number, string>> = { 400: 'Bad Request', 405: 'Method Not Allowed', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };
const statusText = (status: number): string => STATUS_TEXT[status] ?? 'Error';

/**
 * The node:http server under Fastify, with the server's bounds, and two requests Node answers on its own
 * given the gateway's errors instead: an HTTP/1.1 request without Host (Node: a bare 400, RFC 9112 §3.2) and
 * CONNECT (Node: the connection dropped without an answer; the gateway is no forward proxy).
 */
function serverFactory(logger: Logger, limits: GatewayConfig['limits']) {
  return (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
    // Both timeouts at once: Node checks headersTimeout against the requestTimeout it is given, else against its
    // own default (300 s), and refuses a server whose headers may take longer than the whole request.
    const http = { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, maxHeaderSize: limits.maxHeaderBytes, connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, limits.headersTimeoutMs), requireHostHeader: false };
    const server = createHttpServer(http, (req, res) => {
      if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
        const error = new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', ['an HTTP/1.1 request must carry a Host header']);
        // The path only, as every request line logs it: a query may carry a token or an authorization code.
        logger.warn({ code: error.code, method: req.method, path: pathOf(req.url), remote: req.socket.remoteAddress }, error.message);
        writeError(res, error, null, { connection: 'close' });
        return;
      }
      handler(req, res);
    });
    // What Fastify sets on a server it builds itself (connectionTimeout 0: no socket timeout).
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    server.setTimeout(0);
    server.on('connect', (req: IncomingMessage, socket: Duplex) => {
      const error = new RetrofitError('RETROFIT_ERR_METHOD_NOT_ALLOWED', ['CONNECT']);
      logger.warn({ code: error.code, path: pathOf(req.url), remote: req.socket.remoteAddress }, error.message);
      answerOnSocket(socket, error);
    });
    return server;
  };
}

export function gatewayServer(options: ServerOptions): FastifyInstance {
  const { config, logger } = options;
  const limits = config.limits;
  const app = Fastify({
    genReqId: options.nextId,
    // Fastify logs nothing of its own: routes log one line per exchange themselves (./exchange-log.ts, with the
    // request id), the handlers below log what reaches them. Without a logger Fastify builds no child logger per
    // request and sets no response listeners to time it.
    logger: false,
    bodyLimit: limits.maxRequestBytes,
    // The server (serverFactory) bounds how long headers and a whole request may take to arrive (a slow or stalled
    // body is cut at requestTimeoutMs with 408), and how long an idle keep-alive connection stays. Responses are
    // not bounded there: SSE answers and streams live as long as their exchange (./inflight.ts ends them).
    serverFactory: serverFactory(logger, limits),
    clientErrorHandler: onClientError(logger, limits),
    // The gate answers requests during shutdown (a JSON-RPC 503), not Fastify's own 503 body.
    return503OnClosing: false,
    // Fastify force-closes connections only after the preClose hooks, i.e. after in-flight requests had their
    // grace period (src/app.ts). Without it a connection that never sent a request keeps close() waiting.
    forceCloseConnections: true,
    // avvio bounds every hook, close hooks included, by pluginTimeout (10 s by default): the drains bound
    // themselves, so no second, shorter bound.
    pluginTimeout: 0,
    // Errors before routing (a malformed URL): the gateway's 400.
    frameworkErrors: (error, _request, reply) => {
      reply.hijack();
      writeError(reply.raw, new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', [error.message], { cause: error }));
    },
  });
  // Routes read their bodies themselves (./gate.ts); only requests no route serves reach Fastify's parser, and
  // keep their bytes unread beyond the limit.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = fastifyError(error, limits.maxRequestBytes);
    if (!mapped) logger.error({ err: error, reqId: request.id }, 'unhandled error');
    reply.hijack();
    // A body too large was not read to its end: the connection cannot carry another request.
    if (mapped) writeError(reply.raw, mapped, null, mapped.status === 413 ? { connection: 'close' } : {});
    else writeInternalError(reply.raw);
  });
  return app;
}

/**
 * Anything no route serves still gets a JSON-RPC error: 405 (with Allow) on an upstream's path, else 404; 503
 * once shutdown began. `allowed` maps an upstream's paths to the methods they take.
 */
export function setNotFound(app: FastifyInstance, gate: Gate, allowed: ReadonlyMap<string, string>): void {
  app.setNotFoundHandler((request, reply) => {
    reply.hijack();
    const res = reply.raw;
    if (gate.shuttingDown(res)) return;
    const path = request.url.split('?', 1)[0] ?? request.url;
    const allow = allowed.get(path);
    if (allow) writeError(res, new RetrofitError('RETROFIT_ERR_METHOD_NOT_ALLOWED', [request.method]), null, { allow });
    else writeError(res, new RetrofitError('RETROFIT_ERR_NOT_FOUND', [`${request.method} ${path}`]));
  });
}
