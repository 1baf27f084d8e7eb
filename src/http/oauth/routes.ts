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
 * ./challenge.ts points the upstream's 401/403 `WWW-Authenticate: … resource_metadata=` at the first route.
 * Nothing here logs a header or a body: tokens and codes cross untouched and unseen.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Dispatcher } from 'undici';
import { oauthRoutes, wellKnownPath, type OAuthRoute } from '../../config/routes.js';
import { mapUpstreamFailure } from '../../upstream/errors.js';
import { decodedBody } from '../../upstream/exchange.js';
import { headerValue, toClientHeaders, toUpstreamHeaders } from '../../upstream/headers.js';
import { snapshot, type GatewayContext } from '../context.js';
import { finishExchange } from '../server/exchange-log.js';
import { authError, BEARER_CHALLENGE } from '../server/guards.js';
import type { Gate, GatewayRequest } from '../server/gate.js';
import { pipeBody, writeBody, writeError } from '../write.js';
import { viewOf } from './challenge.js';
import { publicResource, rewriteMetadataDocument } from './metadata.js';
import { fetchMetadata, MAX_METADATA_BYTES, readText, sendToUpstream, upstreamUrlOf, type OAuthUpstream } from './upstream.js';

/** What a route reports for its log line. */
interface Outcome {
  readonly status: number;
  /** Protected-resource metadata only: whether `resource` was rewritten. */
  readonly rewritten?: boolean;
}
type Handler = (request: GatewayRequest, res: ServerResponse, upstream: OAuthUpstream) => Promise<Outcome>;

export function registerOAuthRoutes(app: FastifyInstance, ctx: GatewayContext, gate: Gate): void {
  const { metrics } = ctx;
  // Routes are fixed at start (names and paths); each request reads its upstream from its own config snapshot.
  const initial = ctx.generations.current.config;
  const byName = new Map(Object.values(initial.upstreams).filter((u): u is OAuthUpstream => u.kind !== 'stdio').map((u) => [u.name, u]));

  /** One line and one count per request, as for MCP exchanges; never headers or bodies. */
  async function track(request: GatewayRequest, res: ServerResponse, name: string, handle: Handler): Promise<void> {
    const started = performance.now();
    const upstream = snapshot<OAuthUpstream>(ctx, name, request).upstream;
    let outcome: Outcome = { status: 0 };
    let code: string | undefined;
    try {
      outcome = await handle(request, res, upstream);
    } catch (err) {
      const log = ctx.logger.child({ reqId: request.id, upstream: name });
      const mapped = mapUpstreamFailure(err, { upstream: name, timeoutMs: upstream.timeoutMs, method: request.method, log, metrics });
      if (!mapped || res.headersSent) {
        res.destroy();
        return;
      }
      outcome = { status: mapped.status };
      code = mapped.code;
      writeError(res, mapped);
    } finally {
      finishExchange(ctx.logger, metrics, { reqId: request.id, upstream: name, method: request.method, path: request.path, status: outcome.status, rewritten: outcome.rewritten, errorCode: code, started });
    }
  }

  async function relay(res: ServerResponse, answer: Dispatcher.ResponseData): Promise<Outcome> {
    res.writeHead(answer.statusCode, toClientHeaders(answer.headers, { dropLength: false }));
    if (await pipeBody(res, answer.body as AsyncIterable<Buffer>)) res.end();
    return { status: answer.statusCode };
  }

  /** The protected-resource metadata: found where the upstream keeps it, `resource` rewritten. */
  async function metadata(request: GatewayRequest, res: ServerResponse, upstream: OAuthUpstream): Promise<Outcome> {
    const url = upstreamUrlOf(upstream);
    // Without the upstream's `headers:`: they are the operator's credentials for its MCP endpoint, and this route
    // is open to anyone (it is how a client learns how to get a token).
    const answer = await fetchMetadata(upstream, toUpstreamHeaders(request.headers, { host: url.host, configured: {}, dropAuthorization: true }));
    if (answer.statusCode < 200 || answer.statusCode >= 300) return relay(res, answer);
    const text = await readText(decodedBody(answer.headers, answer.body), MAX_METADATA_BYTES, upstream.name);
    const target = publicResource(upstream.path, upstream.publicUrl, viewOf(request));
    const doc = target && rewriteMetadataDocument(text, url, target.resource);
    const out = toClientHeaders(answer.headers, { dropLength: true });
    // The body is sent decoded (and rewritten): it has no coding.
    delete out['content-encoding'];
    // Built from this request's Host and scheme: a cache must keep one copy per value.
    if (doc !== undefined && upstream.publicUrl === undefined) out.vary = [headerValue(answer.headers, 'vary'), 'Host, X-Forwarded-Proto'].filter(Boolean).join(', ');
    writeBody(res, answer.statusCode, out, doc ?? text);
    return { status: answer.statusCode, rewritten: doc !== undefined };
  }

  /** An OAuth document or endpoint of the upstream's, passed through. Endpoints get the client's credentials. */
  function pass(path: string, endpoint: boolean): Handler {
    return async (request, res, upstream) => {
      // The gateway's own token and an OAuth upstream exclude each other: under `auth` an endpoint (it takes
      // bodies, unlike a discovery document) is behind the token like every MCP route.
      const refused = endpoint ? authError(request.generation.config, request.headers) : undefined;
      if (refused) {
        writeError(res, refused, null, BEARER_CHALLENGE);
        return { status: refused.status };
      }
      const url = upstreamUrlOf(upstream);
      const headers = toUpstreamHeaders(request.headers, {
        host: url.host,
        // The upstream's `headers:` are the operator's credentials for its MCP endpoint: never sent here (these
        // routes are open to anyone, and a configured Authorization must not replace a client's at the token endpoint).
        configured: {},
        dropAuthorization: !endpoint || request.generation.config.auth !== undefined,
      });
      const query = request.query === '' ? '' : `?${request.query}`;
      return relay(res, await sendToUpstream(upstream, request.method === 'POST' ? 'POST' : 'GET', `${path}${query}`, headers, request.body));
    };
  }

  /** What serves a route of the list: rewritten metadata, or a document or endpoint passed through. */
  const handlerOf = (route: OAuthRoute, upstream: OAuthUpstream): Handler => {
    if (route.endpoint !== undefined) return pass(route.endpoint, true);
    const type = route.document?.type ?? 'oauth-protected-resource';
    if (type === 'oauth-protected-resource') return metadata;
    // A path-suffixed document is fetched under the upstream's own path, a root one at its root.
    return pass(route.document?.root === true ? `/.well-known/${type}` : wellKnownPath(type, upstreamUrlOf(upstream).pathname), false);
  };
  // The routes are the config's list (src/config/routes.ts), less any URL an upstream's own route takes.
  // Discovery stays reachable without the gateway's own token (it is how a client learns how to get one),
  // but behind the DNS-rebinding guard like every other route of an upstream.
  for (const route of oauthRoutes(Object.values(initial.upstreams))) {
    const upstream = byName.get(route.upstream);
    if (!upstream) continue;
    const handle = handlerOf(route, upstream);
    gate.route(app, { method: [...route.methods], url: route.url, guards: 'discovery', upstream: upstream.name, handle: (request, res) => track(request, res, upstream.name, handle) });
  }
}
