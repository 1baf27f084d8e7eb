/**
 * Every route of the gateway, all through the one gate (src/http/server/gate.ts): per upstream by kind —
 * proxied (`url:`, src/http/proxy/), gateway-held sessions over a stdio child (`command:`) or a legacy SSE
 * connection (`sse:`, src/http/front/ and src/http/legacy/) — then OAuth discovery and the operations
 * endpoints, the operator console when `ui.enabled` (src/http/console/), and the answer for everything else.
 */
import type { FastifyInstance } from 'fastify';
import { legacyMessagePath } from '../config/routes.js';
import { registerConsoleRoutes, type ConsoleRouteOptions } from './console/routes.js';
import { snapshot, type GatewayContext } from './context.js';
import { registerStdioRoutes, type StdioOptions } from './front/stdio-routes.js';
import { registerSseRoutes } from './legacy/routes.js';
import { registerOAuthRoutes } from './oauth/routes.js';
import { registerProxyRoutes } from './proxy/route.js';
import { setNotFound } from './server/create.js';
import { registerDebugRoutes } from './server/debug.js';
import type { Gate } from './server/gate.js';
import { registerOpsRoutes } from './server/ops.js';
import type { UpstreamRoutes } from './upstream-routes.js';

/** Register all routes; returns each upstream's handle for readiness, notifications and shutdown. */
export function registerRoutes(app: FastifyInstance, gate: Gate, ctx: GatewayContext, options: { stdio?: StdioOptions; console?: ConsoleRouteOptions } = {}): Map<string, UpstreamRoutes> {
  const upstreams = new Map<string, UpstreamRoutes>();
  // Methods each upstream path takes, for the 405 of a method it does not.
  const allowed = new Map<string, string>();
  for (const name of Object.keys(ctx.generations.current.config.upstreams)) {
    const upstream = snapshot(ctx, name).upstream;
    allowed.set(upstream.path, 'GET, POST, DELETE, OPTIONS');
    if (upstream.kind === 'http') upstreams.set(name, registerProxyRoutes(app, gate, name, ctx));
    else if (upstream.kind === 'stdio') upstreams.set(name, registerStdioRoutes(app, gate, name, ctx, options.stdio));
    else {
      upstreams.set(name, registerSseRoutes(app, gate, name, ctx));
      allowed.set(legacyMessagePath(upstream.path), 'POST, OPTIONS');
    }
  }
  // The RFC 9728 / RFC 8414 well-known routes (and 2025-03-26 default endpoints) of OAuth-protected upstreams.
  registerOAuthRoutes(app, ctx, gate);
  registerOpsRoutes(app, gate, ctx.metrics, upstreams);
  registerDebugRoutes(app, gate, ctx, upstreams);
  if (ctx.console) {
    ctx.console.setReadiness(new Map([...upstreams].map(([name, routes]) => [name, () => routes.ready()])));
    registerConsoleRoutes(app, gate, ctx.console, options.console);
  }
  setNotFound(app, gate, allowed);
  return upstreams;
}
