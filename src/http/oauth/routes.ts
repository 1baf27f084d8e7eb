/**
 * OAuth through the gateway, the routes. For every `url:`/`sse:` upstream served at `<path>`:
 * - `GET /.well-known/oauth-protected-resource<path>`: the upstream's RFC 9728 metadata with `resource` set to
 *   the gateway's public URL of that upstream (when the document names the upstream; otherwise unchanged);
 * - `GET /.well-known/oauth-authorization-server<path>`, `/.well-known/openid-configuration<path>`: the
 *   upstream's documents at the same places under its own path, passed through.
 * When exactly one upstream can be OAuth-protected (one `url:`/`sse:` upstream), the root routes are its:
 * `/.well-known/oauth-protected-resource` (rewritten), `/.well-known/oauth-authorization-server`,
 * `/.well-known/openid-configuration`, and the 2025-03-26 default endpoints `/authorize`, `/token`,
 * `/register` on its origin (passed through; the client reads redirects itself). With several, a root
 * document could belong to any of them, so those routes are not served (404).
 * `rewriteChallenge` points the upstream's 401/403 `WWW-Authenticate: … resource_metadata=` at the first route.
 * Nothing here logs a header or a body: tokens and codes cross untouched and unseen.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { mapUpstreamFailure } from '../../upstream/errors.js';
import { generationOf, snapshot, type GatewayContext } from '../context.js';
import { rebindingGuard } from '../server/guards.js';
import { headerValue, toClientHeaders, toUpstreamHeaders, type HeaderMap } from '../../upstream/headers.js';
import { publicResource, rewriteChallenge as rewriteValue, rewriteMetadataDocument, wellKnownPath, type RequestView } from './metadata.js';
import { fetchMetadata, MAX_METADATA_BYTES, readText, sendToUpstream, upstreamUrlOf, type OAuthUpstream } from './upstream.js';

function viewOf(request: { readonly headers: IncomingHttpHeaders }): RequestView {
  return { host: request.headers.host, forwardedProto: headerValue(request.headers, 'x-forwarded-proto') };
}

/**
 * On a 401 or 403 from `upstream`, point each `resource_metadata` it advertises on its own origin at the
 * gateway's metadata URL for it (in place, before the headers go out). Anything else is left as it was.
 */
export function rewriteChallenge(request: { readonly headers: IncomingHttpHeaders }, upstream: OAuthUpstream, status: number, headers: HeaderMap): void {
  if (status !== 401 && status !== 403) return;
  const challenge = headers['www-authenticate'];
  if (challenge === undefined) return;
  const target = publicResource(upstream.path, upstream.publicUrl, viewOf(request));
  if (!target) return;
  const origin = upstreamUrlOf(upstream).origin;
  headers['www-authenticate'] = Array.isArray(challenge) ? challenge.map((c) => rewriteValue(c, origin, target.metadataUrl)) : rewriteValue(challenge, origin, target.metadataUrl);
}

/** What a route reports for its log line. */
interface Outcome {
  readonly status: number;
  /** Protected-resource metadata only: whether `resource` was rewritten. */
  readonly rewritten?: boolean;
}
type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<Outcome>;

function queryOf(request: FastifyRequest): string {
  const i = request.url.indexOf('?');
  return i === -1 ? '' : request.url.slice(i);
}

export function registerOAuthRoutes(app: FastifyInstance, deps: GatewayContext): void {
  const { metrics } = deps;
  // Routes are fixed at start (names and paths); each request reads its upstream from its own config snapshot.
  const initial = deps.generations.current.config;
  const upstreams = Object.values(initial.upstreams).filter((u): u is OAuthUpstream => u.kind !== 'stdio');
  // Paths an upstream's own routes use are never taken (an upstream may well be served at `/token`).
  const taken = new Set(Object.values(initial.upstreams).flatMap((u) => [u.path, `${u.path.replace(/\/$/, '')}/message`]));
  const guard = rebindingGuard((request) => generationOf(deps, request).config);
  const current = (request: FastifyRequest, name: string): OAuthUpstream => snapshot<OAuthUpstream>(deps, name, request).upstream;

  /** One line and one count per request, as for MCP exchanges; never headers or bodies. */
  async function track(request: FastifyRequest, reply: FastifyReply, upstream: OAuthUpstream, run: () => Promise<Outcome>): Promise<void> {
    const started = performance.now();
    const log = deps.logger.child({ reqId: request.id, upstream: upstream.name });
    let status = 0;
    let rewritten: boolean | undefined;
    try {
      const outcome = await run();
      status = outcome.status;
      rewritten = outcome.rewritten;
    } catch (err) {
      const mapped = mapUpstreamFailure(err, { upstream: upstream.name, timeoutMs: upstream.timeoutMs, method: request.method, log, metrics });
      if (!mapped) throw err;
      status = mapped.status;
      await reply.code(status).type('application/json').send(mapped.toJsonRpc());
    } finally {
      metrics.requests.inc({ upstream: upstream.name, method: request.method, status });
      const path = request.url.split('?', 1)[0];
      log.info({ method: request.method, path, status, ...(rewritten !== undefined && { rewritten }), outcome: status === 0 || status >= 400 ? 'error' : 'ok', durationMs: Math.round(performance.now() - started) }, 'request');
    }
  }

  async function relay(reply: FastifyReply, res: Dispatcher.ResponseData): Promise<Outcome> {
    await reply.code(res.statusCode).headers(toClientHeaders(res.headers, { dropLength: false })).send(res.body);
    return { status: res.statusCode };
  }

  /** The protected-resource metadata: found where the upstream keeps it, `resource` rewritten. */
  async function metadata(request: FastifyRequest, reply: FastifyReply, upstream: OAuthUpstream): Promise<Outcome> {
    const url = upstreamUrlOf(upstream);
    const res = await fetchMetadata(upstream, toUpstreamHeaders(request.headers, { host: url.host, configured: upstream.headers, dropAuthorization: true }));
    if (res.statusCode < 200 || res.statusCode >= 300) return relay(reply, res);
    const text = await readText(res.body, MAX_METADATA_BYTES, upstream.name);
    const target = publicResource(upstream.path, upstream.publicUrl, viewOf(request));
    const doc = target && rewriteMetadataDocument(text, url, target.resource);
    const out = toClientHeaders(res.headers, { dropLength: true });
    // Built from this request's Host and scheme: a cache must keep one copy per value.
    if (doc !== undefined && upstream.publicUrl === undefined) out.vary = [headerValue(res.headers, 'vary'), 'Host, X-Forwarded-Proto'].filter(Boolean).join(', ');
    await reply.code(res.statusCode).headers(out).send(doc ?? text);
    return { status: res.statusCode, rewritten: doc !== undefined };
  }

  /** An OAuth document or endpoint of the upstream's, passed through. Endpoints get the client's credentials. */
  async function pass(request: FastifyRequest, reply: FastifyReply, upstream: OAuthUpstream, path: string, endpoint: boolean): Promise<Outcome> {
    const url = upstreamUrlOf(upstream);
    const headers = toUpstreamHeaders(request.headers, {
      host: url.host,
      // The upstream's `headers:` are for its MCP endpoint; a configured Authorization must not replace a
      // client's credentials at the token endpoint.
      configured: endpoint ? {} : upstream.headers,
      dropAuthorization: !endpoint || generationOf(deps, request).config.auth !== undefined,
    });
    const body = request.method === 'POST' && Buffer.isBuffer(request.body) ? request.body : undefined;
    return relay(reply, await sendToUpstream(upstream, request.method === 'POST' ? 'POST' : 'GET', `${path}${queryOf(request)}`, headers, body));
  }

  const routes: { url: string; methods: ('GET' | 'POST')[]; upstream: OAuthUpstream; handle: Handler }[] = [];
  const add = (url: string, methods: ('GET' | 'POST')[], upstream: OAuthUpstream, handle: Handler): void => {
    if (!taken.has(url) && !routes.some((r) => r.url === url)) routes.push({ url, methods, upstream, handle });
  };
  for (const upstream of upstreams) {
    const own = upstreamUrlOf(upstream).pathname;
    const name = upstream.name;
    add(wellKnownPath('oauth-protected-resource', upstream.path), ['GET'], upstream, (q, r) => metadata(q, r, current(q, name)));
    for (const type of ['oauth-authorization-server', 'openid-configuration']) {
      add(wellKnownPath(type, upstream.path), ['GET'], upstream, (q, r) => pass(q, r, current(q, name), wellKnownPath(type, own), false));
    }
  }
  const only = upstreams.length === 1 ? upstreams[0] : undefined;
  if (only) {
    const name = only.name;
    add('/.well-known/oauth-protected-resource', ['GET'], only, (q, r) => metadata(q, r, current(q, name)));
    for (const type of ['oauth-authorization-server', 'openid-configuration']) add(`/.well-known/${type}`, ['GET'], only, (q, r) => pass(q, r, current(q, name), `/.well-known/${type}`, false));
    add('/authorize', ['GET', 'POST'], only, (q, r) => pass(q, r, current(q, name), '/authorize', true));
    for (const endpoint of ['/token', '/register']) add(endpoint, ['POST'], only, (q, r) => pass(q, r, current(q, name), endpoint, true));
  }
  // Discovery stays reachable without the gateway's own token (it is how a client learns how to get one),
  // but behind the DNS-rebinding guard like every other route of an upstream.
  for (const { url, methods, upstream, handle } of routes) {
    app.route({ method: methods, url, onRequest: [guard], handler: (request, reply) => track(request, reply, current(request, upstream.name), () => handle(request, reply)) });
  }
}
