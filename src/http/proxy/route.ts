/**
 * Routes for Streamable HTTP upstreams (`url:`): POST/GET/DELETE on the upstream's path, proxied
 * (src/http/proxy/forward.ts), and the documents under `<path>/.well-known/` passed through untouched. (The RFC 9728
 * / RFC 8414 well-known routes, rewritten to name the gateway, are src/http/oauth/routes.ts.)
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HttpUpstreamConfig } from '../../config/types.js';
import { HttpUpstream } from '../../upstream/http.js';
import { ServerStreams, TOOLS_LIST_CHANGED } from './streams.js';
import { snapshot, type GatewayContext } from '../context.js';
import type { Guard } from '../server/guards.js';
import type { DirectLane } from '../server/lane.js';
import { forward, type ProxyRequest, type ProxyTarget } from './forward.js';
import type { UpstreamRoutes } from '../upstream-routes.js';

/** Readiness probes wait at most this long for any HTTP answer. */
const READY_TIMEOUT_MS = 2_000;

function queryOf(url: string): string {
  const i = url.indexOf('?');
  return i === -1 ? '' : url.slice(i + 1);
}

function pathOf(request: FastifyRequest): string {
  const i = request.url.indexOf('?');
  return i === -1 ? request.url : request.url.slice(0, i);
}

/** Guards for the MCP route, and for discovery (reachable without the gateway's token: it is how a client learns how to get one). */
export interface HttpGuards {
  readonly mcp: readonly Guard[];
  readonly discovery: readonly Guard[];
}

export function registerHttpRoutes(app: FastifyInstance, lane: DirectLane, name: string, ctx: GatewayContext, guards: HttpGuards): UpstreamRoutes {
  const initial = snapshot<HttpUpstreamConfig>(ctx, name).upstream;
  const upstream = new HttpUpstream(initial.url, ctx.pools);
  const target: ProxyTarget = { name, upstream, streams: new ServerStreams() };
  const route = initial.path.replace(/\/$/, '');

  const mcp = (request: ProxyRequest, res: ServerResponse): Promise<void> => forward(request, res, ctx, target, { path: upstream.mapPath('', queryOf(request.url)), mcp: true });
  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: initial.path,
    onRequest: [...guards.mcp],
    handler: (request, reply) => {
      reply.hijack();
      return mcp(request, reply.raw);
    },
  });
  // The same handler, for the POSTs the lane takes before Fastify sees them (the same guards admitted them).
  lane.add(initial.path, mcp);

  const discovery = (request: FastifyRequest, suffix: string): string => upstream.mapPath(suffix, queryOf(request.url));
  app.get(`${route}/.well-known/*`, { onRequest: [...guards.discovery] }, (request, reply) => {
    reply.hijack();
    return forward(request, reply.raw, ctx, target, { path: discovery(request, pathOf(request).slice(route.length)), mcp: false });
  });

  return {
    async ready() {
      const config = snapshot<HttpUpstreamConfig>(ctx, name).upstream;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), READY_TIMEOUT_MS);
      try {
        const answer = await upstream.request({
          method: 'HEAD',
          path: upstream.mapPath('', ''),
          headers: { host: upstream.host, ...config.headers },
          signal: controller.signal,
          headersTimeoutMs: Math.min(READY_TIMEOUT_MS, config.timeoutMs),
        });
        await answer.body.dump();
        return { ok: true, detail: `HTTP ${answer.statusCode}` };
      } catch (err) {
        return { ok: false, detail: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
      } finally {
        clearTimeout(timer);
      }
    },
    notifyToolsChanged: () => target.streams.broadcast(TOOLS_LIST_CHANGED),
    drain: async () => {},
    close: async () => {},
    counts: () => ({ streams: target.streams.size }),
  };
}
