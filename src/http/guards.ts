/**
 * Request guards in front of the upstream routes: the gateway's own bearer tokens (constant-time compare)
 * and the Origin allow-list. Because the gateway rewrites Host, an upstream's DNS-rebinding check no longer
 * protects it, so Origin is checked here.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../config/types.js';
import { RetrofitError } from '../errors.js';

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

/** True when the request may proceed under the allow-list (no Origin header, or an empty list, or listed). */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined || allowed.length === 0) return true;
  return allowed.includes(origin);
}

function reject(reply: FastifyReply, error: RetrofitError, headers: Record<string, string> = {}): void {
  void reply.code(error.status).headers(headers).type('application/json').send(error.toJsonRpc());
}

/** A Fastify onRequest hook in callback style: no promise per request on the hot path. */
export type Guard = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

/** onRequest hook enforcing the Origin allow-list of the current config. */
export function originGuard(config: (request: FastifyRequest) => GatewayConfig): Guard {
  // Answering without calling done() ends the hook chain; the route handler then never runs.
  return (request, reply, done) => {
    const origin = request.headers.origin;
    if (originAllowed(origin, config(request).allowedOrigins)) return done();
    request.log.warn({ origin }, 'origin rejected');
    reject(reply, new RetrofitError('RETROFIT_ERR_FORBIDDEN_ORIGIN', [origin]));
  };
}

/** onRequest hook enforcing config.auth bearer tokens of the current config; a no-op without config.auth. */
export function authGuard(config: (request: FastifyRequest) => GatewayConfig): Guard {
  return (request, reply, done) => {
    const tokens = config(request).auth?.bearerTokens;
    if (!tokens || bearerMatches(request.headers.authorization, tokens)) return done();
    request.log.warn('bearer token rejected');
    reject(reply, new RetrofitError('RETROFIT_ERR_UNAUTHORIZED'), { 'www-authenticate': 'Bearer' });
  };
}
