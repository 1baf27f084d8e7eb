/**
 * The link of one client session to an `sse:` upstream (for the legacy HTTP+SSE edge and the Streamable HTTP
 * front alike): its URL, timeout and event bound from the config generation it opened under; its configured
 * headers, and whether the client's Authorization carries the gateway's own token, read from the current
 * config for each request, so a reload's credentials reach sessions already open.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { SseUpstreamConfig } from '../../config/types.js';
import type { Logger } from '../../log.js';
import { SseLink } from '../../upstream/sse-link.js';
import { snapshot, type GatewayContext, type Snapshot } from '../context.js';

export function sseLink(ctx: GatewayContext, name: string, snap: Snapshot, clientHeaders: IncomingHttpHeaders, log: Logger): SseLink {
  const upstream = snap.upstream as SseUpstreamConfig;
  return new SseLink({
    upstream: name,
    url: new URL(upstream.sse),
    clientHeaders,
    headers: () => snapshot<SseUpstreamConfig>(ctx, name).upstream.headers,
    dropAuthorization: () => snapshot(ctx, name).loaded.config.auth !== undefined,
    timeoutMs: upstream.timeoutMs,
    maxEventBytes: snap.loaded.config.limits.maxResultBytes,
    log,
  });
}
