/**
 * Request guards in front of the upstream routes (applied by the one gate, ./gate.ts): DNS-rebinding protection (Host and Origin) and the gateway's
 * own bearer tokens (constant-time compare).
 *
 * The gateway rewrites Host for the upstream, so an upstream's own DNS-rebinding check no longer protects it:
 * the gateway checks both headers itself, as the MCP SDK's protection does (403 with a JSON-RPC error body).
 * - Host: loopback names (`localhost`, 127.0.0.0/8, `[::1]`, any port) and `allowedHosts`. Checked when the
 *   gateway is bound to a loopback address, or whenever `allowedHosts` is set; `*` turns it off. A public bind
 *   (containers, behind a front proxy) sees Host values nobody can list in advance (pod IPs, Service names).
 * - Origin: loopback origins and `allowedOrigins`; `*` allows any. Requests without Origin (non-browser
 *   clients) pass. An Origin equal to the request's own Host is *not* accepted: under DNS rebinding the two match.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { isIPv4 } from 'node:net';
import type { GatewayConfig } from '../../config/types.js';
import { RetrofitError } from '../../errors.js';

function digest(value: string): Buffer {
  // Hashing first gives equal lengths, so timingSafeEqual never leaks the token's length.
  return createHash('sha256').update(value, 'utf8').digest();
}

/** True when `header` is `Bearer <token>` for one of `tokens`. Every token is compared, in constant time. */
export function bearerMatches(header: string | undefined, tokens: readonly string[]): boolean {
  const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  const presented = digest(match?.[1] ?? '');
  let ok = false;
  for (const token of tokens) ok = timingSafeEqual(presented, digest(token)) || ok;
  return ok && match !== null;
}

/** True for an address a socket can be bound to that only this machine reaches (127.0.0.0/8, ::1). */
export function isLoopbackAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return (isIPv4(v4) && v4.startsWith('127.')) || address === '::1';
}

/** True for a URL hostname (as `new URL()` normalises it) that names this machine. */
export function isLoopbackHostname(hostname: string): boolean {
  // An IP literal is never a rebinding attack (that needs a DNS name), so all of 127.0.0.0/8 counts.
  return hostname === 'localhost' || hostname === '[::1]' || (isIPv4(hostname) && hostname.startsWith('127.'));
}

/** `host[:port]` as URL normalises it, or undefined when the value is not a bare authority. */
function parseAuthority(value: string): { hostname: string; port: string } | undefined {
  try {
    const url = new URL(`http://${value}`);
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash || value.includes('\\')) return undefined;
    return { hostname: url.hostname.replace(/\.$/, ''), port: url.port };
  } catch {
    return undefined;
  }
}

/** One `allowedHosts` entry against a parsed Host: exact name (any port, or the given one) or `*.suffix`. */
function hostEntryMatches(entry: string, host: { hostname: string; port: string }): boolean {
  const wildcard = entry.startsWith('*.');
  const wanted = parseAuthority(wildcard ? entry.slice(2) : entry);
  if (!wanted) return false;
  if (wanted.port !== '' && wanted.port !== host.port) return false;
  return wildcard ? host.hostname.endsWith(`.${wanted.hostname}`) : host.hostname === wanted.hostname;
}

const COMMON_LOOPBACK = /^(?:localhost|127\.0\.0\.1)(?::\d{1,5})?$/;

/** True when the Host header is a loopback name or listed (`*` lists everything). A missing Host never passes. */
export function hostAllowed(host: string | undefined, allowed: readonly string[]): boolean {
  // The usual local case needs no URL parse (this runs on every request of a loopback gateway).
  if (host !== undefined && COMMON_LOOPBACK.test(host)) return true;
  if (allowed.includes('*')) return true;
  const parsed = host === undefined ? undefined : parseAuthority(host);
  if (!parsed) return false;
  return isLoopbackHostname(parsed.hostname) || allowed.some((entry) => hostEntryMatches(entry, parsed));
}

/** Whether the Host header is checked at all for a gateway bound to `bound`. */
export function hostChecked(bound: string, allowed: readonly string[]): boolean {
  if (allowed.includes('*')) return false;
  return allowed.length > 0 || bound === 'localhost' || isLoopbackAddress(bound);
}

/** An origin as browsers serialise it (`scheme://host[:port]`, lower-case, default port dropped); `null` stays. */
function normaliseOrigin(value: string): string {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? value : origin;
  } catch {
    return value;
  }
}

/** True when the request may proceed: no Origin header, a loopback origin, or a listed one (`*`: any). */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined || allowed.includes('*')) return true;
  try {
    const url = new URL(origin);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHostname(url.hostname)) return true;
  } catch {
    // `null` and other opaque origins: only an exact listing lets them in.
  }
  const wanted = normaliseOrigin(origin);
  return allowed.some((entry) => normaliseOrigin(entry) === wanted);
}

const boundAddresses = new WeakMap<Server, string>();

/**
 * The address the gateway's socket is bound to: what `--host` or `listen.host` made effective. Read from the
 * socket once, so no flag can bypass it; before listening (inject()) the config's host stands in.
 */
function boundAddress(server: Server, config: GatewayConfig): string {
  const known = boundAddresses.get(server);
  if (known !== undefined) return known;
  const address = server.address();
  if (address === null) return config.listen.host;
  // A Unix socket is reachable from this machine only.
  const bound = typeof address === 'string' ? '127.0.0.1' : address.address;
  boundAddresses.set(server, bound);
  return bound;
}

/** hostChecked for a config generation and bound address, decided once per pair (it runs on every request). */
const checkedByConfig = new WeakMap<GatewayConfig, { readonly bound: string; readonly checked: boolean }>();

function hostCheckedFor(config: GatewayConfig, bound: string, hosts: readonly string[]): boolean {
  const known = checkedByConfig.get(config);
  if (known?.bound === bound) return known.checked;
  const checked = hostChecked(bound, hosts);
  checkedByConfig.set(config, { bound, checked });
  return checked;
}

const NONE: readonly string[] = [];

/**
 * DNS-rebinding protection (Host, then Origin) under `config`, for a request that reached `server`: the
 * error to answer, or undefined when the request may proceed.
 */
export function rebindingError(config: GatewayConfig, server: Server, headers: IncomingHttpHeaders): RetrofitError | undefined {
  const hosts = config.allowedHosts ?? NONE;
  const host = headers.host;
  if (hostCheckedFor(config, boundAddress(server, config), hosts) && !hostAllowed(host, hosts)) return new RetrofitError('RETROFIT_ERR_FORBIDDEN_HOST', [host ?? '']);
  const origin = headers.origin;
  return originAllowed(origin, config.allowedOrigins) ? undefined : new RetrofitError('RETROFIT_ERR_FORBIDDEN_ORIGIN', [origin]);
}

/** The gateway's bearer tokens (config.auth) against the request's Authorization: the error, or undefined. */
export function authError(config: GatewayConfig, headers: IncomingHttpHeaders): RetrofitError | undefined {
  const tokens = config.auth?.bearerTokens;
  return !tokens || bearerMatches(headers.authorization, tokens) ? undefined : new RetrofitError('RETROFIT_ERR_UNAUTHORIZED');
}

/** Which guards a route applies: MCP routes both, discovery documents rebinding only, operations none. */
export type GuardSet = 'mcp' | 'discovery' | 'none';

/** A refusal: the error to answer with, and what the answer adds (a challenge). */
export interface Refusal {
  readonly error: RetrofitError;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The challenge of a 401 for a missing or wrong gateway token. */
export const BEARER_CHALLENGE = Object.freeze({ 'www-authenticate': 'Bearer' });

/** The guards of `set` under `config`, for a request that reached `server`: the refusal, or undefined. */
export function refusal(set: GuardSet, config: GatewayConfig, server: Server, headers: IncomingHttpHeaders): Refusal | undefined {
  if (set === 'none') return undefined;
  const rebinding = rebindingError(config, server, headers);
  if (rebinding) return { error: rebinding };
  if (set === 'discovery') return undefined;
  const auth = authError(config, headers);
  return auth && { error: auth, headers: BEARER_CHALLENGE };
}
