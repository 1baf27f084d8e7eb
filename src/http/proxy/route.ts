/**
 * Routes for Streamable HTTP upstreams (`url:`): POST/GET/DELETE on the upstream's path, proxied
 * (./forward.ts), and the documents under `<path>/.well-known/` passed through untouched. (The RFC 9728 / RFC
 * 8414 well-known routes, rewritten to name the gateway, are src/http/oauth/routes.ts.)
 */
import type { FastifyInstance } from 'fastify';
import { discoveryPrefix } from '../../config/routes.js';
import type { HttpUpstreamConfig } from '../../config/types.js';
import { HttpUpstream } from '../../upstream/http.js';
import { snapshot, type GatewayContext } from '../context.js';
import type { Gate } from '../server/gate.js';
import type { UpstreamRoutes } from '../upstream-routes.js';
import { forward } from './forward.js';
import type { ProxyTarget } from './target.js';
import { TOOLS_LIST_CHANGED } from '../../protocol/list-changed.js';
import { ServerStreams } from './streams.js';
import { createUrlModern } from '../front/url-modern.js';
import { RetrofitError } from '../../errors.js';
import { writeError } from '../write.js';

/** Readiness probes wait at most this long for any HTTP answer. */
const READY_TIMEOUT_MS = 2_000;

/**
 * True when every segment of `path` (`/a/b`) names itself: not empty, not `.` or `..`, and no `/` or `\\` —
 * percent-encoded or not, since the upstream may decode them before it resolves the path. Nor may a segment
 * hold `%` once decoded (a server that decodes twice reads `%252e%252e` as `..`), nor be a dot segment before
 * a `;` (servlet containers such as Tomcat drop path parameters: `..;` is `..` to them).
 */
export function isPlainPath(path: string): boolean {
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    let segment: string;
    try {
      segment = decodeURIComponent(segments[i]!);
    } catch {
      return false;
    }
    if (segment.includes('%') || segment.includes('/') || segment.includes('\\')) return false;
    const name = segment.split(';', 1)[0]!;
    if (name === '' || name === '.' || name === '..') return false;
  }
  return segments[0] === '';
}

export function registerProxyRoutes(app: FastifyInstance, gate: Gate, name: string, ctx: GatewayContext): UpstreamRoutes {
  const initial = snapshot<HttpUpstreamConfig>(ctx, name).upstream;
  const upstream = new HttpUpstream(initial.url, ctx.pools);
  const target: ProxyTarget = { name, upstream, streams: new ServerStreams() };
  const route = initial.path.replace(/\/$/, '');
  // 2026-07-28 clients of an upstream that speaks only session revisions are served by the gateway itself.
  const modern = createUrlModern(name, ctx, upstream);

  gate.route(app, {
    method: ['POST', 'GET', 'DELETE'],
    url: initial.path,
    guards: 'mcp',
    upstream: name,
    handle: (request, res) => {
      const proxy = (): Promise<void> => forward(request, res, ctx, target, { path: upstream.mapPath('', request.query), mcp: true, refusedInitialize: (body) => modern.refusedInitialize(request, res, body) });
      return modern.claims(request) ? modern.serve(request, res, proxy) : proxy();
    },
  });
  // A browser's preflight carries no credentials, and is the upstream's to answer (its CORS headers on every
  // answer pass through too): passed on without the gateway's token or the upstream's configured headers.
  gate.route(app, {
    method: 'OPTIONS',
    url: initial.path,
    guards: 'discovery',
    upstream: name,
    handle: (request, res) => forward(request, res, ctx, target, { path: upstream.mapPath('', request.query), mcp: false }),
  });
  // Discovery documents are reachable without the gateway's token: it is how a client learns how to get one.
  gate.route(app, {
    method: 'GET',
    url: `${discoveryPrefix(initial.path)}*`,
    guards: 'discovery',
    upstream: name,
    handle: (request, res) => {
      const suffix = request.path.slice(route.length);
      // Only documents under <path>/.well-known/ are passed: a dot segment would climb out of it on the
      // upstream (which normalises), reaching any path there without the gateway's token.
      if (!isPlainPath(suffix)) return writeError(res, new RetrofitError('RETROFIT_ERR_NOT_FOUND', [`GET ${request.path}`]));
      return forward(request, res, ctx, target, { path: upstream.mapPath(suffix, request.query), mcp: false });
    },
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
    notifyToolsChanged: () => target.streams.broadcast(TOOLS_LIST_CHANGED) + modern.notifyAll(JSON.stringify(TOOLS_LIST_CHANGED)),
    drain: () => modern.close(),
    close: () => modern.close(),
    counts: () => ({ streams: target.streams.size, ...modern.counts() }),
  };
}
