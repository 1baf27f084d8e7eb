/**
 * Routes for Streamable HTTP upstreams (`url:`): POST/GET/DELETE on the upstream's path, and the documents
 * under `<path>/.well-known/` passed through untouched. (The RFC 9728 / RFC 8414 well-known routes, rewritten
 * to name the gateway, are src/http/oauth-routes.ts.)
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HttpUpstreamConfig } from '../config/types.js';
import type { SessionState } from '../session/responses.js';
import { HttpUpstream, type UpstreamPools } from '../upstream/http.js';
import type { GatewayDeps } from './deps.js';
import { authGuard, rebindingGuard } from './guards.js';
import type { InFlight } from './inflight.js';
import { forward, type ProxyContext } from './proxy.js';
import { ServerStreams, TOOLS_LIST_CHANGED } from '../reload/notify.js';
import type { UpstreamRoutes } from './stdio-routes.js';

/** Shared machinery the HTTP routes need beyond GatewayDeps. */
export interface HttpRouteShared {
  readonly pools: UpstreamPools;
  readonly state: SessionState;
  readonly inflight: InFlight;
}

/** Readiness probes wait at most this long for any HTTP answer. */
const READY_TIMEOUT_MS = 2_000;

function queryOf(request: FastifyRequest): string {
  const i = request.url.indexOf('?');
  return i === -1 ? '' : request.url.slice(i + 1);
}

function pathOf(request: FastifyRequest): string {
  const i = request.url.indexOf('?');
  return i === -1 ? request.url : request.url.slice(0, i);
}

export function registerHttpRoutes(app: FastifyInstance, config: HttpUpstreamConfig, deps: GatewayDeps, shared: HttpRouteShared): UpstreamRoutes {
  const upstream = new HttpUpstream(config, shared.pools);
  const streams = new ServerStreams();
  const ctx: ProxyContext = { upstream, deps, state: shared.state, inflight: shared.inflight, streams };
  const rebinding = rebindingGuard(deps.config);
  const auth = authGuard(deps.config);
  const route = config.path.replace(/\/$/, '');

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: config.path,
    onRequest: [rebinding, auth],
    handler: (request, reply) => forward(request, reply, ctx, { path: upstream.mapPath('', queryOf(request)), mcp: true }),
  });

  // Discovery must stay reachable without the gateway's token: it is how a client learns how to get one.
  const discovery = (request: FastifyRequest, target: string): string => upstream.mapPath(target, queryOf(request));
  app.get(`${route}/.well-known/*`, { onRequest: [rebinding] }, (request, reply) =>
    forward(request, reply, ctx, { path: discovery(request, pathOf(request).slice(route.length)), mcp: false }),
  );

  return {
    async ready() {
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
    async close() {},
    notifyToolsChanged: () => streams.broadcast(TOOLS_LIST_CHANGED),
  };
}
