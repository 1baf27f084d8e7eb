/**
 * Every route of the gateway: per upstream by kind — proxied (`url:`), gateway-owned sessions over a stdio
 * child (`command:`) or a legacy SSE connection (`sse:`) — then the operations endpoints. A proxied
 * upstream's MCP POSTs in order are served by the direct lane beside them (src/http/server/lane.ts).
 */
import type { FastifyInstance } from 'fastify';
import { generationOf, snapshot, type GatewayContext } from './context.js';
import { authGuard, rebindingGuard } from './server/guards.js';
import { registerHttpRoutes } from './proxy/route.js';
import type { DirectLane } from './server/lane.js';
import { registerOAuthRoutes } from './oauth/routes.js';
import { registerOpsRoutes } from './server/ops.js';
import { registerDebugRoutes } from './server/debug.js';
import { registerSseRoutes } from './front/sse-routes.js';
import { registerStdioRoutes, type StdioOptions } from './front/stdio-routes.js';
import type { UpstreamRoutes } from './upstream-routes.js';

/** Register all routes; returns each upstream's handle for readiness, notifications and shutdown. */
export function registerRoutes(app: FastifyInstance, ctx: GatewayContext, lane: DirectLane, options: { stdio?: StdioOptions } = {}): Map<string, UpstreamRoutes> {
  const upstreams = new Map<string, UpstreamRoutes>();
  // DNS-rebinding protection (Host, Origin), then the gateway's bearer tokens; both read the request's snapshot.
  const config = (request: Parameters<typeof generationOf>[1]) => generationOf(ctx, request).config;
  const rebinding = rebindingGuard(config);
  const auth = authGuard(config);
  const guards = [rebinding, auth];
  for (const name of Object.keys(ctx.generations.current.config.upstreams)) {
    const kind = snapshot(ctx, name).upstream.kind;
    if (kind === 'http') upstreams.set(name, registerHttpRoutes(app, lane, name, ctx, { mcp: guards, discovery: [rebinding] }));
    else if (kind === 'stdio') upstreams.set(name, registerStdioRoutes(app, name, ctx, guards, options.stdio));
    else upstreams.set(name, registerSseRoutes(app, name, ctx, guards));
  }
  // The RFC 9728 / RFC 8414 well-known routes (and 2025-03-26 default endpoints) of OAuth-protected upstreams.
  registerOAuthRoutes(app, ctx);
  registerOpsRoutes(app, ctx, upstreams);
  registerDebugRoutes(app, ctx, upstreams);
  return upstreams;
}
