/**
 * The direct lane: a proxied (`url:`) upstream's MCP POSTs served straight from node:http, beside Fastify.
 *
 * On a small exchange, Fastify's routing, hooks, content-type lookup, Request/Reply objects and per-request
 * child logger cost a fifth of what the whole proxying does (bench/results/NOTES.md). A POST that is plainly
 * in order needs none of them: its path is an upstream's exactly, its media type is JSON, its Content-Length
 * (when it has one) is within limits.maxRequestBytes, the gateway is not closing, and the same guard rules the
 * Fastify hooks apply (src/http/server/guards.ts) admit it. The lane reads its body and hands it to the route's
 * handler (src/http/proxy/forward.ts `forward`, as the Fastify route does). Everything else — other methods, other
 * paths, a request a guard refuses, a media type or a length Fastify refuses — is left to Fastify, which
 * answers it as it always did: the lane decides only whether it takes a request, never how a request is
 * refused. Its own refusals are two: a body that outgrows the limit while it is read (a chunked one, with no
 * length to judge beforehand) gets the 413 Fastify gives, with `connection: close`; and once shutdown began,
 * every new request gets 503 RETROFIT_ERR_SHUTTING_DOWN (see close()).
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { GatewayConfig } from '../../config/types.js';
import { RetrofitError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { mediaType } from '../../upstream/headers.js';
import type { Generations } from '../../config/generations.js';
import { authError, rebindingError } from './guards.js';
import type { ProxyRequest } from '../proxy/forward.js';
import { writeError, writeInternalError } from '../write.js';

/** What a route does with a request the lane took (its body read). */
export type LaneHandler = (request: ProxyRequest, res: ServerResponse) => Promise<void>;

/** Node's server options the gateway sets, as Fastify would on a server it made itself. */
export interface ServerTimeouts {
  readonly keepAliveTimeout: number;
  readonly requestTimeout: number;
  readonly connectionTimeout: number;
}

/** Request ids as Fastify's default makes them (`req-<base 36>`), shared by Fastify and the lane. */
export function requestIds(): () => string {
  let next = 0;
  return () => {
    next = next === 2_147_483_647 ? 0 : next + 1;
    return `req-${next.toString(36)}`;
  };
}

export interface LaneOptions {
  readonly generations: Generations;
  readonly logger: Logger;
  /** Fastify's bodyLimit (limits.maxRequestBytes of the first generation, as Fastify keeps it). */
  readonly bodyLimit: number;
  readonly nextId: () => string;
}

export class DirectLane {
  readonly #routes = new Map<string, LaneHandler>();
  readonly #options: LaneOptions;
  #closing = false;
  #taken = 0;

  constructor(options: LaneOptions) {
    this.#options = options;
  }

  /** Take POSTs to exactly `path` (no query string, or any). */
  add(path: string, handler: LaneHandler): void {
    this.#routes.set(path, handler);
  }

  /** How many requests the lane took (the rest were Fastify's). */
  get taken(): number {
    return this.#taken;
  }

  /** Whether close() was called. */
  get closing(): boolean {
    return this.#closing;
  }

  /**
   * The gateway is shutting down: from now on every new request, whatever its route, is answered 503
   * RETROFIT_ERR_SHUTTING_DOWN with `connection: close` (a JSON-RPC error, where Fastify's own 503 is not).
   */
  close(): void {
    this.#closing = true;
  }

  /**
   * The HTTP server for Fastify's `serverFactory`: the lane first, Fastify's handler for what it leaves.
   * Timeouts are set as Fastify sets them on a server it makes.
   */
  server(fastify: RequestListener, timeouts: ServerTimeouts): Server {
    const server = createServer((req, res) => {
      if (this.#closing) writeError(res, new RetrofitError('RETROFIT_ERR_SHUTTING_DOWN'), null, { connection: 'close' });
      else if (!this.#take(server, req, res)) fastify(req, res);
    });
    server.keepAliveTimeout = timeouts.keepAliveTimeout;
    server.requestTimeout = timeouts.requestTimeout;
    server.setTimeout(timeouts.connectionTimeout);
    return server;
  }

  /** Serve `req` when it is plainly in order (see above) and return true; false leaves it to Fastify. */
  #take(server: Server, req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST') return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const handler = this.#routes.get(q === -1 ? url : url.slice(0, q));
    if (handler === undefined) return false;
    const headers = req.headers;
    if (mediaType(headers['content-type']) !== 'application/json') return false;
    const length = headers['content-length'];
    const limit = this.#options.bodyLimit;
    if (length !== undefined && !(Number(length) <= limit)) return false;
    const generation = this.#options.generations.current;
    if (!admitted(generation.config, server, req)) return false;
    const id = this.#options.nextId();
    this.#taken++;
    readRaw(req, limit, (body) => {
      if (body instanceof RetrofitError) {
        writeError(res, body, null, { connection: 'close' });
        return;
      }
      const request: ProxyRequest = { id, method: 'POST', url, headers, body, socket: req.socket, generation };
      handler(request, res).catch((err: unknown) => {
        this.#options.logger.error({ err, reqId: id }, 'unhandled error');
        if (res.headersSent) res.destroy();
        else writeInternalError(res);
      });
    });
    return true;
  }
}

/** The guards of an upstream's MCP route (rebinding, then the gateway's tokens) let it through. */
function admitted(config: GatewayConfig, server: Server, req: IncomingMessage): boolean {
  return rebindingError(config, server, req.headers) === undefined && authError(config, req.headers) === undefined;
}

/**
 * Read a request's body up to `limit` bytes: the bytes, or RETROFIT_ERR_BODY_TOO_LARGE as soon as it grows
 * past the limit (nothing more is read). A client that goes away mid-body gets nothing: its socket is gone.
 */
function readRaw(req: IncomingMessage, limit: number, done: (body: Buffer | RetrofitError) => void): void {
  const chunks: Buffer[] = [];
  let received = 0;
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) {
      stop();
      done(new RetrofitError('RETROFIT_ERR_BODY_TOO_LARGE', [limit]));
      return;
    }
    chunks.push(chunk);
  };
  // Nothing is emitted after 'end': its listeners need no removal (a visible cost per exchange).
  const onEnd = (): void => {
    done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
  };
  const onError = (): void => {
    stop();
    req.socket.destroy();
  };
  const stop = (): void => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
}
