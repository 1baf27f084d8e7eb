/**
 * OAuth through the gateway, the pure part: which URL a client sees for an upstream, and how the upstream's
 * RFC 9728 protected-resource metadata and its `WWW-Authenticate` challenges are rewritten to name it.
 *
 * A compliant client refuses metadata whose `resource` is not the URL it connected to (RFC 9728 §3.3), and
 * follows `resource_metadata=` from a 401. Both name the upstream until rewritten. Authorization servers are
 * left alone: the client talks to them directly, and their metadata must keep the issuer it was fetched under.
 */
import { wellKnownPath } from '../../config/routes.js';
import { isJsonObject } from '../../json.js';

/** How the gateway is reached, as one request tells it. */
export interface RequestView {
  /** The Host header (checked by the Host guard where that is active). */
  readonly host: string | undefined;
  /** X-Forwarded-Proto, from a TLS-terminating front proxy; only `http`/`https` are taken. */
  readonly forwardedProto: string | undefined;
}

/** The gateway's public face of one upstream. */
export interface PublicResource {
  /** The protected resource's identifier: the URL clients connect to (no fragment). */
  readonly resource: string;
  /** Where the gateway serves that resource's metadata (RFC 9728 §3.1: well-known inserted before the path). */
  readonly metadataUrl: string;
}


/** The characters of a `host[:port]` (RFC 3986 reg-name, IP literal, port). */
const AUTHORITY = /^[\w\-.~%!$&'()*+,;=:[\]]+$/;

/**
 * The public URL of the upstream served at `path`: `publicUrl` when configured, else the request's scheme
 * (X-Forwarded-Proto, else http) and Host. X-Forwarded-Host is never taken: any client can send it, and a
 * cached metadata document naming a host of its choosing would poison every later client.
 */
export function publicResource(path: string, publicUrl: string | undefined, view: RequestView): PublicResource | undefined {
  let url: URL;
  try {
    if (publicUrl !== undefined) url = new URL(publicUrl);
    else {
      // A bare authority only (RFC 3986 host and port characters): anything else in Host would move the path or
      // the origin, and a quote would end the challenge's quoted `resource_metadata` and add parameters of the
      // sender's (the Host check, which would refuse it, is off on a public bind).
      if (view.host === undefined || !AUTHORITY.test(view.host)) return undefined;
      const proto = view.forwardedProto?.split(',', 1)[0]?.trim().toLowerCase();
      url = new URL(`${proto === 'https' ? 'https' : 'http'}://${view.host}${path}`);
    }
  } catch {
    return undefined;
  }
  const resource = publicUrl !== undefined ? publicUrl.split('#', 1)[0]! : url.href;
  return { resource, metadataUrl: `${url.origin}${wellKnownPath('oauth-protected-resource', url.pathname)}` };
}

/** `resource_metadata=` parameters of a WWW-Authenticate value, quoted or not (RFC 9110 auth-param). */
const METADATA_PARAM = /(\bresource_metadata[ \t]*=[ \t]*)(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/gi;

function sameOrigin(value: string, origin: string): URL | undefined {
  try {
    const url = new URL(value.replace(/\\(.)/g, '$1'));
    return url.origin === origin ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The path (and query) of the first metadata document a challenge advertises on the upstream's own origin.
 * Documents elsewhere are never fetched by the gateway (that would let an upstream's answer steer it anywhere).
 */
export function advertisedMetadataPath(challenge: string, upstreamOrigin: string): string | undefined {
  for (const match of challenge.matchAll(METADATA_PARAM)) {
    const url = sameOrigin(match[2] ?? match[3] ?? '', upstreamOrigin);
    if (url) return `${url.pathname}${url.search}`;
  }
  return undefined;
}

/**
 * A challenge with every `resource_metadata` on the upstream's origin pointed at `metadataUrl`; scope, error
 * and other parameters untouched. One naming another origin stays as it is (the client then judges it).
 */
export function pointChallengeAt(challenge: string, upstreamOrigin: string, metadataUrl: string): string {
  return challenge.replace(METADATA_PARAM, (whole, prefix: string, quoted: string | undefined, bare: string | undefined) =>
    sameOrigin(quoted ?? bare ?? '', upstreamOrigin) ? `${prefix}"${metadataUrl}"` : whole,
  );
}

/**
 * True when `resource` identifies the upstream the gateway reaches at `upstreamUrl`: same origin, and a path
 * prefix of it — the test a compliant client applies to the URL it connected to (SDK checkResourceAllowed).
 */
export function identifiesUpstream(resource: unknown, upstreamUrl: URL): boolean {
  if (typeof resource !== 'string') return false;
  let configured: URL;
  try {
    configured = new URL(resource);
  } catch {
    return false;
  }
  if (configured.origin !== upstreamUrl.origin) return false;
  const slash = (p: string): string => (p.endsWith('/') ? p : `${p}/`);
  return slash(upstreamUrl.pathname).startsWith(slash(configured.pathname));
}

/**
 * The upstream's protected-resource metadata with `resource` set to the gateway's public URL, or undefined
 * when the document is to pass unchanged: not a JSON object, or naming a resource that is not this upstream
 * (a mismatch the client must see, exactly as it would without the gateway).
 */
export function rewriteMetadataDocument(body: string, upstreamUrl: URL, resource: string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isJsonObject(doc) || !identifiesUpstream(doc.resource, upstreamUrl)) return undefined;
  // Spread keeps the key order; `resource` is replaced in place.
  return JSON.stringify({ ...doc, resource });
}

/**
 * Where to look for the upstream's metadata, in order: the location its own challenge advertises (it may be
 * anywhere on its origin), then RFC 9728's path-aware well-known URL, then the root one.
 */
export function metadataCandidates(upstreamUrl: URL, advertised: string | undefined): string[] {
  const pathAware = `${wellKnownPath('oauth-protected-resource', upstreamUrl.pathname)}${upstreamUrl.search}`;
  const candidates = [advertised, pathAware, '/.well-known/oauth-protected-resource'].filter((c): c is string => c !== undefined);
  return [...new Set(candidates)];
}
