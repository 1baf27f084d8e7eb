/**
 * A redirect of a `url:` upstream's MCP endpoint (a Starlette server sends 307 from `/mcp` to `/mcp/`) names the
 * upstream's own address: a client that follows it leaves the gateway (no retrofit, no auth), and one that does
 * not (the SDK clients refuse a cross-origin redirect) fails. It is the config's to fix: the client gets the
 * gateway's error, whose cause (logged) names where the upstream points. Discovery routes pass redirects on.
 */
import { RetrofitError } from '../../errors.js';
import type { UpstreamAnswer } from '../../upstream/exchange.js';
import { headerValue } from '../../upstream/headers.js';

/** The gateway's error for an answer of `upstream` that redirects (3xx but 304), or undefined when it does not. */
export function redirectError(upstream: string, answer: UpstreamAnswer): RetrofitError | undefined {
  const status = answer.statusCode;
  if (status < 300 || status >= 400 || status === 304) return undefined;
  const location = headerValue(answer.headers, 'location');
  return new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [upstream], { cause: new Error(`the upstream answered ${status}, redirecting to ${location ?? '(no Location)'}: point url: there`) });
}
