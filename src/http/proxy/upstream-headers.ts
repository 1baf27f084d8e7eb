/**
 * The headers one proxied exchange sends its upstream: the client's (hop-by-hop ones dropped), the upstream's
 * configured `headers:`, and the revision header the upstream understands.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { upstreamProtocolHeader, type Negotiated } from '../../protocol/negotiate.js';
import { toUpstreamHeaders } from '../../upstream/headers.js';

export interface ExchangeHeaderOptions {
  /** `host[:port]` of the upstream. */
  readonly host: string;
  /** The upstream's configured `headers:`. */
  readonly configured: Readonly<Record<string, string>>;
  /** The exchange is on the MCP endpoint (not a discovery document). */
  readonly mcp: boolean;
  /** The gateway checks bearer tokens itself (`auth:`). */
  readonly gatewayAuth: boolean;
  /** The client's MCP-Protocol-Version. */
  readonly header: string | undefined;
  /** What the session's initialize negotiated, when the gateway saw it (a bridged upstream gets its own revision). */
  readonly negotiated: Negotiated | undefined;
}

/** The upstream request's headers (see the module comment). */
export function exchangeHeaders(incoming: IncomingHttpHeaders, o: ExchangeHeaderOptions): Record<string, string | string[]> {
  // The upstream's `headers:` are the operator's credentials for its MCP endpoint: a discovery document (which
  // anyone may ask for, without the gateway's token) is fetched without them, and without the client's
  // Authorization, as the root discovery routes are (README § OAuth, credentials).
  const headers = toUpstreamHeaders(incoming, { host: o.host, configured: o.mcp ? o.configured : {}, dropAuthorization: !o.mcp || o.gatewayAuth });
  // A bridged session's upstream does not know the client's revision: it gets its own, or none.
  const forwarded = upstreamProtocolHeader(o.header, o.negotiated);
  if (forwarded !== undefined) headers['mcp-protocol-version'] = forwarded;
  else if (o.header !== undefined) delete headers['mcp-protocol-version'];
  return headers;
}
