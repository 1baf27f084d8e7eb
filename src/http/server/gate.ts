/**
 * The one way into a route. Every route of the gateway is registered here and every request it gets passes
 * the same steps, in one `onRequest` hook: shutdown (503 RETROFIT_ERR_SHUTTING_DOWN once the gateway closes),
 * the request's config snapshot (taken once), the route's guards (./guards.ts), the reply hijacked (the route
 * writes the raw response, through src/http/write.ts), a POST's body read within limits (./body.ts), then the
 * route's handler — with one failure path: a handler that throws or rejects gets a 500 (or, once bytes went
 * out, its connection ended), logged with its cause. Fastify's routing, request ids and hooks stay in front of
 * every request; its body parsing, validation and reply pipeline are not used by routes.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Generations } from '../../config/generations.js';
import type { LoadedConfig } from '../../config/load.js';
import { RetrofitError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { writeError, writeInternalError } from '../write.js';
import { readRequestBody, type BodyRead } from './body.js';
import { allowOrigin } from './cors.js';
import { finishExchange } from './exchange-log.js';
import { refusal, type GuardSet } from './guards.js';

/** One request as every route handler gets it. */
export interface GatewayRequest {
  /** The request id of its log lines. */
  readonly id: string;
  /** The HTTP method. */
  readonly method: string;
  /** Path and query, as the client sent them. */
  readonly url: string;
  /** The path, without the query. */
  readonly path: string;
  /** The query without its `?` (empty when there is none). */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  /** A POST's raw bytes, read within limits.maxRequestBytes (undefined for other methods). */
  readonly body: Buffer | undefined;
  readonly socket: Socket;
  /** The config generation it is served under, taken once when it arrived. */
  readonly generation: LoadedConfig;
}

/** What a route does with a request. Nothing else writes to `res`. */
export type RouteHandler = (request: GatewayRequest, res: ServerResponse) => Promise<void> | void;

/** A route: where, which methods, which guards, what handles it. */
export interface RouteSpec {
  readonly method: HTTPMethods | HTTPMethods[];
  readonly url: string;
  readonly guards: GuardSet;
  /** The upstream the route serves: the gate's own refusals are its exchanges too (logged and counted). */
  readonly upstream?: string;
  /** The gateway answers CORS for this route itself (./cors.ts): an admitted Origin may read its answers. */
  readonly cors?: boolean;
  readonly handle: RouteHandler;
}

export interface GateOptions {
  readonly generations: Generations;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** limits.maxRequestBytes, fixed at start (as the server's other bounds are). */
  readonly bodyLimit: number;
}

/** `path?query` → [path, query without `?`]. */
export function splitUrl(url: string): [string, string] {
  const q = url.indexOf('?');
  return q === -1 ? [url, ''] : [url.slice(0, q), url.slice(q + 1)];
}

const CLOSE = Object.freeze({ connection: 'close' });
const REBINDING: ReadonlySet<string> = new Set(['RETROFIT_ERR_FORBIDDEN_ORIGIN', 'RETROFIT_ERR_FORBIDDEN_HOST']);

export class Gate {
  readonly #options: GateOptions;
  #closing = false;

  constructor(options: GateOptions) {
    this.#options = options;
  }

  /** Whether close() was called. */
  get closing(): boolean {
    return this.#closing;
  }

  /** The gateway is shutting down: every new request, whatever its route, gets 503 with `connection: close`. */
  close(): void {
    this.#closing = true;
  }

  /** Register a route on `app`. */
  route(app: FastifyInstance, spec: RouteSpec): void {
    app.route({
      method: spec.method,
      url: spec.url,
      onRequest: (request: FastifyRequest, reply: FastifyReply): void => this.#enter(request, reply, spec),
      // Never reached: the hook hijacks every request and does not hand it on.
      handler: () => {},
    });
  }

  /** Whether a request that no route serves is to be refused for shutdown (the 404 handler asks). */
  shuttingDown(res: ServerResponse): boolean {
    if (!this.#closing) return false;
    writeError(res, new RetrofitError('RETROFIT_ERR_SHUTTING_DOWN'), null, CLOSE);
    return true;
  }

  #enter(request: FastifyRequest, reply: FastifyReply, spec: RouteSpec): void {
    reply.hijack();
    const res = reply.raw;
    const raw = request.raw;
    const started = performance.now();
    if (this.#closing) return this.#refuse(request, res, spec, started, new RetrofitError('RETROFIT_ERR_SHUTTING_DOWN'), CLOSE);
    const generation = this.#options.generations.current;
    const refused = refusal(spec.guards, generation.config, request.server.server, raw.headers);
    const origin = raw.headers.origin;
    // An origin the rebinding guard refused may not read even the refusal. The bearer check's 401 is the gate's
    // own answer on every route, a proxied one too (where the upstream answers CORS): the admitted origin reads it.
    if (origin !== undefined && (spec.cors ? !(refused && REBINDING.has(refused.error.code)) : refused?.error.code === 'RETROFIT_ERR_UNAUTHORIZED')) allowOrigin(res, origin);
    if (refused) return this.#refuse(request, res, spec, started, refused.error, refused.headers);
    const url = raw.url ?? '/';
    const [path, query] = splitUrl(url);
    const make = (body: Buffer | undefined): GatewayRequest => ({ id: request.id, method: raw.method ?? 'GET', url, path, query, headers: raw.headers, body, socket: raw.socket, generation });
    if (raw.method !== 'POST') return this.#run(spec.handle, make(undefined), res);
    readRequestBody(raw, this.#options.bodyLimit, (read: BodyRead) => {
      // The client went away before its body was in: nothing to answer, but still an exchange of the route.
      if (read === undefined) return this.#abandoned(request, spec, started);
      // The rest of the body is not read: the connection closes after the answer.
      if (read instanceof RetrofitError) return this.#refuse(request, res, spec, started, read, CLOSE);
      this.#run(spec.handle, make(read), res);
    });
  }

  /** The gate answers the request itself: one exchange line and count, as for any other answer. */
  #refuse(request: FastifyRequest, res: ServerResponse, spec: RouteSpec, started: number, error: RetrofitError, headers?: OutgoingHttpHeaders): void {
    writeError(res, error, null, headers);
    const { logger, metrics } = this.#options;
    if (spec.upstream === undefined) {
      logger.warn({ reqId: request.id, method: request.method, path: request.url.split('?', 1)[0], status: error.status, code: error.code }, 'request refused');
      return;
    }
    finishExchange(logger, metrics, { reqId: request.id, upstream: spec.upstream, method: request.method, status: error.status, rpcError: error.rpcCode, errorCode: error.code, started });
  }

  /** A POST whose client left before its body was read: one exchange line and count (status 0, aborted). */
  #abandoned(request: FastifyRequest, spec: RouteSpec, started: number): void {
    const { logger, metrics } = this.#options;
    if (spec.upstream === undefined) logger.debug({ reqId: request.id, method: request.method, path: request.url.split('?', 1)[0] }, 'request abandoned before its body was read');
    else finishExchange(logger, metrics, { reqId: request.id, upstream: spec.upstream, method: request.method, status: 0, aborted: true, started });
  }

  /** The one failure path of every handler. */
  #run(handle: RouteHandler, request: GatewayRequest, res: ServerResponse): void {
    const fail = (err: unknown): void => {
      this.#options.logger.error({ err, reqId: request.id, url: request.path }, 'unhandled error');
      writeInternalError(res);
    };
    try {
      const done = handle(request, res);
      if (done) done.catch(fail);
    } catch (err) {
      fail(err);
    }
  }
}
