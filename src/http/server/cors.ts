/**
 * CORS for the routes whose answers the gateway writes itself: the sessions it holds (`command:` and `sse:`
 * upstreams, the legacy message route). A browser client on an origin the guards admit (a loopback origin, or
 * one in `allowedOrigins`: ./guards.ts decides, before this runs) gets its preflight answered and may read the
 * answers, `Mcp-Session-Id` included. A proxied `url:` upstream answers CORS itself: its preflight is passed to
 * it, and its headers pass through (src/http/proxy/route.ts).
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { finishWhenClosed } from './exchange-log.js';

/** Response headers a client must be able to read: the session's id and revision, an auth challenge. */
const EXPOSED = 'mcp-session-id, mcp-protocol-version, www-authenticate';

/** How long a browser may keep a preflight's answer (seconds). */
const MAX_AGE_S = '600';

/** Longest Access-Control-Request-Headers echoed back (a list of header names; anything longer is not one). */
const MAX_REQUESTED_HEADERS = 1024;

/** Headers a browser client of MCP sends, allowed when a preflight does not list its own. */
const DEFAULT_ALLOWED = 'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id';

/** Let the admitted `origin` read this answer (set before the route writes its head, which merges them). */
export function allowOrigin(res: ServerResponse, origin: string): void {
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('access-control-expose-headers', EXPOSED);
  res.setHeader('vary', 'Origin');
}

/**
 * Answer a preflight (OPTIONS) of a route that takes `methods`: 204, with what the browser asked to send
 * allowed, for the origin the guards admitted (allowOrigin already set it). Without an Origin (not a browser's
 * preflight) it is just the list of methods.
 */
export function answerPreflight(headers: IncomingHttpHeaders, res: ServerResponse, methods: string): void {
  const requested = headers['access-control-request-headers'];
  const out: Record<string, string> = { allow: `${methods}, OPTIONS` };
  if (headers.origin !== undefined) {
    out['access-control-allow-methods'] = methods;
    out['access-control-allow-headers'] = requested !== undefined && requested.length <= MAX_REQUESTED_HEADERS && /^[\w\-, ]*$/.test(requested) ? requested : DEFAULT_ALLOWED;
    out['access-control-max-age'] = MAX_AGE_S;
    out.vary = 'Origin, Access-Control-Request-Headers';
  }
  res.writeHead(204, out).end();
}

/** The preflight route of an upstream's path that takes `methods`: answered, logged and counted as its exchange. */
export function preflightRoute(ops: { readonly logger: Logger; readonly metrics: Metrics }, upstream: string, methods: string): (req: { readonly id: string; readonly headers: IncomingHttpHeaders }, res: ServerResponse) => void {
  return (req, res) => {
    finishWhenClosed(res, ops.logger, ops.metrics, () => ({ reqId: req.id, upstream, method: 'OPTIONS', started: performance.now() }));
    answerPreflight(req.headers, res, methods);
  };
}
