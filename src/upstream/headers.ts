/**
 * Which headers cross the gateway. End-to-end headers go both ways untouched (Mcp-Session-Id,
 * MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name, Mcp-Param-*, Authorization, Accept,
 * WWW-Authenticate, and anything else); hop-by-hop headers (RFC 9110 §7.6.1, plus those named by
 * Connection) stay on their own hop.
 *
 * Authorization is the exception when `auth:` is configured: then it carries the gateway's own token and is
 * never forwarded (an upstream's `headers:` may set its own). X-Forwarded-For/-Proto/-Host are forwarded as
 * the client sent them, and the gateway adds none: as a sidecar it is invisible to the upstream, and
 * whatever terminates client connections in front of it (ingress, load balancer) is what sets them. So an
 * upstream should trust X-Forwarded-* exactly as far as it trusts that front proxy — not because the
 * request came from the gateway's loopback address.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { isTypeValid, parse as parseContentType } from 'content-type';
import { HOP_BY_HOP_NAMES } from '../config/schema-headers.js';

/** Header values as both Node and undici hand them over. */
export type HeaderMap = Record<string, string | string[] | undefined>;

const HOP_BY_HOP = new Set(HOP_BY_HOP_NAMES);

const fixedHop = (name: string): boolean => HOP_BY_HOP.has(name) || name.startsWith('proxy-');

/** The hop-by-hop names for this message: the fixed list, any `Proxy-*`, and what `Connection` names. */
function hopByHop(headers: HeaderMap): (name: string) => boolean {
  const connection = headers.connection;
  // The usual case (no Connection, or `keep-alive`/`close`) needs no per-message set.
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return fixedHop;
  const named = new Set<string>();
  for (const value of Array.isArray(connection) ? connection : [connection]) {
    for (const token of value.split(',')) {
      const t = token.trim().toLowerCase();
      if (t) named.add(t);
    }
  }
  return (name) => fixedHop(name) || named.has(name);
}

/** Options for the request-direction filter. */
export interface UpstreamHeaderOptions {
  /** `host[:port]` of the upstream. */
  readonly host: string;
  /** The upstream's configured headers; they override the client's. */
  readonly configured: Readonly<Record<string, string>>;
  /** Drop the client's Authorization (it was the gateway's own bearer token). */
  readonly dropAuthorization: boolean;
}

/** Client request headers → upstream request headers. */
export function toUpstreamHeaders(incoming: IncomingHttpHeaders, options: UpstreamHeaderOptions): Record<string, string | string[]> {
  const isHop = hopByHop(incoming);
  const out: Record<string, string | string[]> = {};
  // for…in, not Object.entries: no array of pairs per message (this runs on every request and answer).
  for (const rawName in incoming) {
    const value = incoming[rawName];
    const name = rawName.toLowerCase();
    if (value === undefined || isHop(name)) continue;
    // Host is set for the upstream; the body is forwarded as-is and undici frames it, so its length is its own.
    // Expect (100-continue) was answered by Node when the body was read: the gateway sends the whole body at
    // once, and undici refuses to send the header at all.
    if (name === 'host' || name === 'content-length' || name === 'accept-encoding' || name === 'expect') continue;
    if (name === 'authorization' && options.dropAuthorization) continue;
    out[name] = value;
  }
  out.host = options.host;
  // Responses may be rewritten: ask for identity so no compressed body ever needs decoding.
  out['accept-encoding'] = 'identity';
  for (const name in options.configured) out[name.toLowerCase()] = options.configured[name]!;
  return out;
}

/** Upstream response headers → client response headers. `dropLength` when the body may change. */
export function toClientHeaders(incoming: HeaderMap, options: { dropLength: boolean }): OutgoingHttpHeaders {
  const isHop = hopByHop(incoming);
  const out: OutgoingHttpHeaders = {};
  for (const rawName in incoming) {
    const value = incoming[rawName];
    const name = rawName.toLowerCase();
    if (value === undefined || isHop(name)) continue;
    if (name === 'content-length' && options.dropLength) continue;
    out[name] = value;
  }
  return out;
}

/**
 * Request headers that say nothing about who is asking: framing, content negotiation, the MCP request's own
 * headers, tracing and forwarding added by the infrastructure. Every other forwarded header may carry an
 * identity (Authorization, Cookie, X-API-Key, a tenant header…).
 */
const ANONYMOUS = new Set([
  'host', 'content-length', 'content-type', 'accept', 'accept-encoding', 'accept-language', 'expect', 'user-agent',
  'origin', 'referer', 'cache-control', 'pragma', 'date', 'priority', 'dnt',
  'last-event-id', 'traceparent', 'tracestate', 'baggage', 'sentry-trace', 'x-request-id', 'x-correlation-id',
  'x-amzn-trace-id', 'x-cloud-trace-context', 'forwarded', 'via', 'x-real-ip',
]);
const anonymous = (name: string): boolean =>
  ANONYMOUS.has(name) || name.startsWith('mcp-') || name.startsWith('x-forwarded-') || name.startsWith('x-b3-') || name.startsWith('sec-');

/**
 * What identifies the client among the headers the gateway forwards to an upstream for it: every forwarded
 * header that may carry an identity, as one canonical string (names sorted), or undefined when there is none.
 * Upstream sessions the gateway opens with one client's headers and lends to others (2026-07-28 pools) are
 * kept apart by it: a session opened with one user's API key or cookie must never serve another user's
 * request. `dropAuthorization`: the client's Authorization is the gateway's own token and is not forwarded.
 */
export function credentialKey(incoming: HeaderMap, dropAuthorization: boolean): string | undefined {
  const isHop = hopByHop(incoming);
  const parts: string[] = [];
  for (const rawName in incoming) {
    const value = incoming[rawName];
    const name = rawName.toLowerCase();
    if (value === undefined || isHop(name) || anonymous(name) || (name === 'authorization' && dropAuthorization)) continue;
    parts.push(`${name}:${Array.isArray(value) ? value.join('\n') : value}`);
  }
  return parts.length === 0 ? undefined : parts.sort().join('\n');
}

/** The first value of a header, if present. */
export function headerValue(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The media type of a Content-Type value, lower-cased, without parameters (`text/event-stream`); undefined when it is not one. */
export function mediaType(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  // The usual values, exactly as clients and servers send them, need no parse.
  if (contentType === 'application/json' || contentType === 'text/event-stream') return contentType;
  try {
    const { type } = parseContentType(contentType, { parameters: false });
    return isTypeValid(type) ? type : undefined;
  } catch {
    return undefined;
  }
}
