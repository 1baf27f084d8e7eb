/**
 * Routes for legacy HTTP+SSE upstreams (`sse:`, the 2024-11-05 transport).
 * STUB until the legacy-transport issue lands: answers 501.
 */
import type { FastifyInstance } from 'fastify';
import type { SseUpstreamConfig } from '../config/types.js';
import type { GatewayDeps } from './deps.js';
import type { UpstreamRoutes } from './stdio-routes.js';

export function registerSseRoutes(app: FastifyInstance, upstream: SseUpstreamConfig, _deps: GatewayDeps): UpstreamRoutes {
  app.all(upstream.path, async (_req, reply) => reply.code(501).send({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'sse upstreams are not implemented yet' } }));
  return { ready: async () => ({ ok: false, detail: 'not implemented' }), close: async () => {} };
}
