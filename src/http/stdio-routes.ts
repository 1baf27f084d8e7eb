/**
 * Routes for stdio upstreams (`command:`): the gateway serves Streamable HTTP and owns the sessions.
 * STUB until the stdio issue lands: answers 501.
 */
import type { FastifyInstance } from 'fastify';
import type { StdioUpstreamConfig } from '../config/types.js';
import type { GatewayDeps } from './deps.js';

export interface UpstreamRoutes {
  /** Ready-check for /readyz. */
  ready(): Promise<{ ok: boolean; detail?: string }>;
  /** Close sessions, children and streams (graceful shutdown). */
  close(): Promise<void>;
}

export function registerStdioRoutes(app: FastifyInstance, upstream: StdioUpstreamConfig, _deps: GatewayDeps): UpstreamRoutes {
  app.all(upstream.path, async (_req, reply) => reply.code(501).send({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'stdio upstreams are not implemented yet' } }));
  return { ready: async () => ({ ok: false, detail: 'not implemented' }), close: async () => {} };
}
