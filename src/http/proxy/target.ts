/**
 * What a proxied exchange is given (./forward.ts): the upstream it goes to, shared by every exchange of that
 * upstream, and what distinguishes an MCP exchange from a discovery document passed through.
 */
import type { HttpUpstream } from '../../upstream/http.js';
import type { ServerStreams } from './streams.js';

/** What every exchange of one upstream shares. */
export interface ProxyTarget {
  readonly name: string;
  readonly upstream: HttpUpstream;
  /** Open GET and listen streams of this upstream, so a reload can inject notifications/tools/list_changed. */
  readonly streams: ServerStreams;
}

/** Options distinguishing MCP exchanges from plain passthrough (discovery documents under the route). */
export interface ForwardOptions {
  /** Upstream path + query. */
  readonly path: string;
  /** False for discovery documents: no body handling, no message awareness. */
  readonly mcp: boolean;
  /**
   * The upstream refused an `initialize` with 400: its answer's body (at most REFUSAL_BYTES). True when the
   * hook took the exchange over and answers the client itself (src/http/front/url-modern.ts: an upstream that
   * serves only 2026-07-28); otherwise the refusal is passed on.
   */
  readonly refusedInitialize?: (body: Buffer) => boolean;
}
