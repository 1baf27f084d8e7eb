/**
 * OAuth challenges through the gateway: an upstream's 401 or 403 advertises its protected-resource metadata
 * (`WWW-Authenticate: … resource_metadata=`) on its own origin; a client must be sent to the gateway's copy of
 * that document (./routes.ts), whose `resource` names the URL the client connected to.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { headerValue, type HeaderMap } from '../../upstream/headers.js';
import { pointChallengeAt, publicResource, type RequestView } from './metadata.js';
import { upstreamUrlOf, type OAuthUpstream } from './upstream.js';

/** How the gateway is reached, as one request tells it. */
export function viewOf(request: { readonly headers: IncomingHttpHeaders }): RequestView {
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
  headers['www-authenticate'] = Array.isArray(challenge) ? challenge.map((c) => pointChallengeAt(c, origin, target.metadataUrl)) : pointChallengeAt(challenge, origin, target.metadataUrl);
}
