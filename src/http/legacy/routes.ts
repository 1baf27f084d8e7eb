/**
 * Routes for legacy HTTP+SSE upstreams (`sse:`). The gateway owns each client's session over its own SSE link
 * to the upstream, and serves it both ways: a GET on the path without Mcp-Session-Id is a legacy client's
 * stream (src/http/legacy/edge.ts); POST/GET/DELETE with Streamable HTTP are served by the same edge as stdio
 * upstreams (src/http/front/), so clients that no longer speak the legacy transport reach legacy servers too.
 */
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { SseUpstreamConfig } from '../../config/types.js';
import { credentialKey } from '../../upstream/headers.js';
import { snapshot, type GatewayContext, type Snapshot } from '../context.js';
import { registerFront } from '../front/route.js';
import type { Gate } from '../server/gate.js';
import { TOOLS_LIST_CHANGED } from '../../protocol/list-changed.js';
import type { FrontSessions } from '../front/registry.js';
import { registerLegacy } from './edge.js';
import { sseLink } from './link.js';
import type { UpstreamRoutes } from '../upstream-routes.js';

const READY_TIMEOUT_MS = 2_000;

/** /readyz for an `sse:` upstream: its host accepts TCP connections (a GET would open a session upstream). */
function reachable(url: URL): Promise<{ ok: boolean; detail?: string }> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port });
    const done = (result: { ok: boolean; detail?: string }): void => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(READY_TIMEOUT_MS, () => done({ ok: false, detail: `no TCP connection to ${url.host} within ${READY_TIMEOUT_MS}ms` }));
    socket.once('connect', () => done({ ok: true }));
    socket.once('error', (err) => done({ ok: false, detail: `${url.host}: ${err.message}` }));
  });
}

export function registerSseRoutes(app: FastifyInstance, gate: Gate, name: string, ctx: GatewayContext): UpstreamRoutes {
  const sse = (snap: Snapshot): SseUpstreamConfig => snap.upstream as SseUpstreamConfig;
  // Legacy connections and Streamable HTTP sessions share the upstream's maxSessions: one registry counts both.
  const registry: { sessions?: FrontSessions } = {};
  const legacy = registerLegacy(app, gate, name, ctx, () => registry.sessions!);
  const { sessions, modern } = registerFront(
    app,
    gate,
    {
      name,
      path: snapshot(ctx, name).upstream.path,
      link: (snap, headers, log) => sseLink(ctx, name, snap, headers, log),
      maxSessions: (snap) => sse(snap).maxSessions,
      idleTimeoutMs: (snap) => sse(snap).idleTimeoutMs,
      bridge: (snap) => snap.upstream.bridge,
      stateless: (snap) => sse(snap).stateless,
      // The link forwards the client's Authorization unless the gateway checks its own tokens.
      credentials: (headers) => credentialKey(headers, snapshot(ctx, name).loaded.config.auth !== undefined),
    },
    ctx,
    legacy.get,
  );
  registry.sessions = sessions;
  return {
    ready: () => reachable(new URL(snapshot<SseUpstreamConfig>(ctx, name).upstream.sse)),
    notifyToolsChanged: () => legacy.notifyAll(JSON.stringify(TOOLS_LIST_CHANGED)) + sessions.notifyAll(JSON.stringify(TOOLS_LIST_CHANGED)) + modern.notifyAll(JSON.stringify(TOOLS_LIST_CHANGED)),
    drain: async (graceMs) => {
      await Promise.all([legacy.closeAll(), sessions.drain(graceMs), modern.close()]);
    },
    close: async () => {
      await Promise.all([legacy.closeAll(), sessions.closeAll('shutting down'), modern.close()]);
    },
    counts: () => ({ ...sessions.counts(), ...legacy.counts(), ...modern.counts() }),
  };
}
