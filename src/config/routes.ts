/**
 * Every route the gateway registers, as data: the config loader checks each upstream's path against them
 * (./paths.ts, and the schema's reserved paths), and src/http registers its routes from the same names and
 * functions, so what is checked is what is served. It imports nothing: the schema generator transpiles it
 * with the schema files.
 *
 * An upstream at `<path>` takes `<path>` (every kind), `<path>/message` (`sse:`, the legacy message route)
 * and every path under `<path>/.well-known/` (`url:`, its discovery documents passed through). The gateway
 * takes its operations endpoints, the debug endpoint, `/ui` and everything under it when the console is on,
 * and the OAuth discovery routes of each `url:`/`sse:` upstream, plus the root ones when there is exactly one
 * (these yield to an upstream that takes their URL: oauthRoutes).
 */

export const HEALTHZ_PATH = '/healthz';
export const READYZ_PATH = '/readyz';
export const METRICS_PATH = '/metrics';
/** GET /debug/retrofit (served only with MCP_RETROFIT_DEBUG=1; reserved either way, so no config depends on it). */
export const DEBUG_PATH = '/debug/retrofit';
/** Paths the gateway always serves: never an upstream's. */
export const ALWAYS_RESERVED = [HEALTHZ_PATH, READYZ_PATH, METRICS_PATH, DEBUG_PATH] as const;

/** The operator console: `/ui`, and everything under `/ui/` (its page, assets and API). */
export const UI_PATH = '/ui';
export const UI_ASSETS_PATH = '/ui/assets/';
export const UI_API_PATH = '/ui/api/';

/** The OAuth metadata documents the gateway serves under `/.well-known/`. */
export const OAUTH_DOCUMENTS = ['oauth-protected-resource', 'oauth-authorization-server', 'openid-configuration'] as const;
export type OAuthDocument = (typeof OAUTH_DOCUMENTS)[number];
/** The 2025-03-26 default OAuth endpoints, on the gateway's root when one upstream can be OAuth-protected. */
export const OAUTH_ENDPOINTS: readonly { readonly path: string; readonly methods: readonly ('GET' | 'POST')[] }[] = [
  { path: '/authorize', methods: ['GET', 'POST'] },
  { path: '/token', methods: ['POST'] },
  { path: '/register', methods: ['POST'] },
];

/** The kind of an upstream, as routes see it. */
export type RouteKind = 'http' | 'sse' | 'stdio';

/** What routes are derived from for one upstream. */
export interface RoutedUpstream {
  readonly name: string;
  readonly kind: RouteKind;
  readonly path: string;
}

/** RFC 9728 / RFC 8414 path-suffixed well-known URL: `/.well-known/<type><path>` (trailing slashes dropped). */
export function wellKnownPath(type: string, pathname: string): string {
  return `/.well-known/${type}${pathname.replace(/\/+$/, '')}`;
}

/** An `sse:` upstream's legacy message route: `<path>/message`. */
export function legacyMessagePath(path: string): string {
  return `${path.replace(/\/$/, '')}/message`;
}

/** Where a `url:` upstream's discovery documents are passed through: every path under `<path>/.well-known/`. */
export function discoveryPrefix(path: string): string {
  return `${path.replace(/\/$/, '')}/.well-known/`;
}

/** One OAuth route of the gateway: a document of `upstream`'s (`document`), or a root endpoint passed to it. */
export interface OAuthRoute {
  readonly url: string;
  readonly methods: readonly ('GET' | 'POST')[];
  readonly upstream: string;
  /** A metadata document, and the path it is fetched from on the upstream's origin. */
  readonly document?: { readonly type: OAuthDocument; readonly root: boolean };
  /** A root endpoint (`/authorize`, `/token`, `/register`) passed to the upstream's origin. */
  readonly endpoint?: string;
}

/**
 * The OAuth routes for these upstreams, each URL once (the first wins: an upstream at `/` has its documents at
 * the root). They yield to the upstreams: a URL an upstream's own route takes (an upstream may well be served at
 * `/token`) is not an OAuth route, so it is never a collision either.
 */
export function oauthRoutes(upstreams: readonly RoutedUpstream[]): OAuthRoute[] {
  const protectable = upstreams.filter((u) => u.kind !== 'stdio');
  const taken = new Set(upstreams.flatMap((u) => upstreamRoutes(u).filter((r) => !r.prefix).map((r) => routeKey(r.path))));
  const routes: OAuthRoute[] = [];
  const add = (route: OAuthRoute): void => {
    if (!taken.has(routeKey(route.url)) && !routes.some((r) => r.url === route.url)) routes.push(route);
  };
  for (const u of protectable) {
    for (const type of OAUTH_DOCUMENTS) add({ url: wellKnownPath(type, u.path), methods: ['GET'], upstream: u.name, document: { type, root: false } });
  }
  // With several, a root document could belong to any of them: the root routes are served for one only.
  const only = protectable.length === 1 ? protectable[0] : undefined;
  if (only) {
    for (const type of OAUTH_DOCUMENTS) add({ url: `/.well-known/${type}`, methods: ['GET'], upstream: only.name, document: { type, root: true } });
    for (const e of OAUTH_ENDPOINTS) add({ url: e.path, methods: e.methods, upstream: only.name, endpoint: e.path });
  }
  return routes;
}

/** A route, or (`prefix`) every path under a prefix ending in `/`; `what` names its owner in messages. */
export interface Route {
  readonly path: string;
  readonly prefix: boolean;
  readonly what: string;
}

/** The routes an upstream takes itself. */
export function upstreamRoutes(u: RoutedUpstream): Route[] {
  const routes: Route[] = [{ path: u.path, prefix: false, what: `upstream "${u.name}"` }];
  if (u.kind === 'sse') routes.push({ path: legacyMessagePath(u.path), prefix: false, what: `the legacy message route of upstream "${u.name}" (an sse: upstream at ${u.path})` });
  if (u.kind === 'http') routes.push({ path: discoveryPrefix(u.path), prefix: true, what: `the discovery documents of upstream "${u.name}" (a url: upstream at ${u.path})` });
  return routes;
}

/** The routes the gateway takes itself for these upstreams, with the console on or off. */
export function gatewayRoutes(upstreams: readonly RoutedUpstream[], options: { readonly ui: boolean }): Route[] {
  const routes: Route[] = [
    { path: HEALTHZ_PATH, prefix: false, what: 'the gateway\'s health endpoint' },
    { path: READYZ_PATH, prefix: false, what: 'the gateway\'s readiness endpoint' },
    { path: METRICS_PATH, prefix: false, what: 'the gateway\'s metrics endpoint' },
    { path: DEBUG_PATH, prefix: false, what: 'the gateway\'s debug endpoint' },
  ];
  if (options.ui) routes.push({ path: `${UI_PATH}/`, prefix: true, what: 'the operator console (`ui.enabled`)' });
  for (const r of oauthRoutes(upstreams)) {
    const what = r.endpoint !== undefined ? `the OAuth endpoint the gateway passes to upstream "${r.upstream}" (its only url:/sse: upstream)` : `an OAuth discovery document of upstream "${r.upstream}"`;
    routes.push({ path: r.url, prefix: false, what });
  }
  return routes;
}

/** A path as clients reach it: trailing slashes make no other route for them. */
export function routeKey(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** Whether clients reaching `path` reach `route` (the same path, or one under a prefix route). */
export function reaches(path: string, route: Route): boolean {
  return route.prefix ? `${routeKey(path)}/`.startsWith(route.path) : routeKey(path) === routeKey(route.path);
}
