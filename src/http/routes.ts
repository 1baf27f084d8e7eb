/**
 * Every route of the gateway: per upstream by kind (HTTP proxied here; stdio and legacy SSE by their own
 * modules), then the operations endpoints.
 */
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from './deps.js';
import { registerHttpRoutes, type HttpRouteShared } from './http-routes.js';
import { registerOAuthRoutes } from './oauth-routes.js';
import { registerOpsRoutes } from './ops.js';
import { registerSseRoutes } from './sse-routes.js';
import { registerStdioRoutes, type UpstreamRoutes } from './stdio-routes.js';

/** Register all routes; returns each upstream's handle for readiness and shutdown. */
export function registerRoutes(app: FastifyInstance, deps: GatewayDeps, shared: HttpRouteShared): Map<string, UpstreamRoutes> {
  const upstreams = new Map<string, UpstreamRoutes>();
  for (const upstream of Object.values(deps.config.upstreams)) {
    switch (upstream.kind) {
      case 'http':
        upstreams.set(upstream.name, registerHttpRoutes(app, upstream, deps, shared));
        break;
      case 'stdio':
        upstreams.set(upstream.name, registerStdioRoutes(app, upstream, deps));
        break;
      case 'sse':
        upstreams.set(upstream.name, registerSseRoutes(app, upstream, deps));
        break;
    }
  }
  // The RFC 9728 / RFC 8414 well-known routes (and 2025-03-26 default endpoints) of OAuth-protected upstreams.
  registerOAuthRoutes(app, deps);
  registerOpsRoutes(app, deps, upstreams);
  // The rewriter's worker threads end with the app (after in-flight requests had their grace period).
  app.addHook('onClose', async () => deps.rewriter.close?.());
  return upstreams;
}
