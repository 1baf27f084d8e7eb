/**
 * The one place where a failed upstream exchange becomes a client-facing error, for every transport:
 * - refused (nothing answers at the address: ECONNREFUSED, an unknown host …) → 502 UPSTREAM_UNREACHABLE;
 * - reset (the connection ended before the answer was complete) → 502 UPSTREAM_RESET;
 * - timed out (no answer within timeoutMs, or no connection) → 504 UPSTREAM_TIMEOUT;
 * - not HTTP / not MCP (a parser error, a status below 100, headers too large, a compressed body that does
 *   not decode) → 502 UPSTREAM_PROTOCOL;
 * - our own fault (a request the HTTP client refused to send, a closed pool) → 500 INTERNAL, never counted as
 *   the upstream's, logged as an error;
 * - the client went away (we aborted it) → nothing to answer.
 * The original error is always kept as `cause`.
 */
import { RetrofitError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { DECODE_ERROR_CODE } from './exchange.js';

/** Failure kinds as counted in metrics.upstreamErrors (`internal` and `aborted` are not the upstream's). */
export type UpstreamFailureKind = 'unreachable' | 'reset' | 'timeout' | 'protocol' | 'too_large' | 'aborted' | 'internal';

const ABORTED = new Set(['UND_ERR_ABORTED', 'UND_ERR_ABORT', 'ABORT_ERR']);
const TIMEOUT = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const REFUSED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);
const RESET = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);
const PROTOCOL = new Set(['UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_RESPONSE', 'UND_ERR_INFO', 'UND_ERR_RES_EXCEEDED_MAX_SIZE', DECODE_ERROR_CODE]);

/** The error code of `err` or of the first cause that has one (connect failures wrap the errno). */
function codeOf(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 4) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return codeOf((err as { cause?: unknown }).cause, depth + 1);
}

/** The name of `err` or of the first cause that is an HTTPParserError. */
function nameOf(err: unknown, depth = 0): string | undefined {
  if (!(err instanceof Error) || depth > 4) return undefined;
  return err.name === 'HTTPParserError' ? err.name : nameOf(err.cause, depth + 1);
}

/** Classify an error of an upstream exchange (before or while reading the answer). */
export function failureKind(err: unknown): UpstreamFailureKind {
  if (err instanceof RetrofitError) {
    switch (err.code) {
      case 'RETROFIT_ERR_RESULT_TOO_LARGE':
        return 'too_large';
      case 'RETROFIT_ERR_UPSTREAM_TIMEOUT':
        return 'timeout';
      case 'RETROFIT_ERR_UPSTREAM_PROTOCOL':
        return 'protocol';
      case 'RETROFIT_ERR_UPSTREAM_RESET':
        return 'reset';
      case 'RETROFIT_ERR_UPSTREAM_UNREACHABLE':
      case 'RETROFIT_ERR_UPSTREAM_EXITED':
        return 'unreachable';
      default:
        return 'internal';
    }
  }
  const code = codeOf(err);
  if ((err instanceof Error && err.name === 'AbortError') || (code !== undefined && ABORTED.has(code))) return 'aborted';
  // undici's parser errors carry no code (it names them `HPE_undefined` at best), and its parser asserts on a
  // status line below 100: both are the upstream's bytes, not HTTP. No code of the gateway's asserts.
  if (nameOf(err) === 'HTTPParserError' || code === 'ERR_ASSERTION') return 'protocol';
  if (code === undefined) return 'internal';
  if (TIMEOUT.has(code)) return 'timeout';
  if (REFUSED.has(code)) return 'unreachable';
  if (RESET.has(code)) return 'reset';
  if (PROTOCOL.has(code) || code.startsWith('HPE_')) return 'protocol';
  return 'internal';
}

/** The client-facing error of a failure of `kind` (undefined for `aborted`: nobody to answer). */
export function failureError(err: unknown, kind: UpstreamFailureKind, upstream: string, timeoutMs: number): RetrofitError | undefined {
  if (err instanceof RetrofitError) return err;
  const cause = { cause: err };
  switch (kind) {
    case 'aborted':
      return undefined;
    case 'timeout':
      return new RetrofitError('RETROFIT_ERR_UPSTREAM_TIMEOUT', [upstream, timeoutMs], cause);
    case 'unreachable':
      return new RetrofitError('RETROFIT_ERR_UPSTREAM_UNREACHABLE', [upstream], cause);
    case 'reset':
      return new RetrofitError('RETROFIT_ERR_UPSTREAM_RESET', [upstream], cause);
    case 'protocol':
    case 'too_large':
      return new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [upstream], cause);
    case 'internal':
      return new RetrofitError('RETROFIT_ERR_INTERNAL', [`the request to upstream "${upstream}" could not be made`], cause);
  }
}

/** Context for mapping one failure. */
export interface FailureContext {
  readonly upstream: string;
  readonly timeoutMs: number;
  readonly method: string;
  readonly log: Logger;
  readonly metrics: Metrics;
}

/**
 * Map, log and count an upstream failure. Returns undefined when the client itself went away (an abort we
 * caused): there is nobody to answer, and it is not the upstream's fault. Our own faults are logged as errors
 * and not counted as the upstream's.
 */
export function mapUpstreamFailure(err: unknown, ctx: FailureContext): RetrofitError | undefined {
  const kind = failureKind(err);
  const mapped = failureError(err, kind, ctx.upstream, ctx.timeoutMs);
  if (!mapped) {
    ctx.log.debug({ upstream: ctx.upstream, method: ctx.method }, 'client went away; upstream request aborted');
    return undefined;
  }
  if (kind === 'internal') {
    ctx.log.error({ err, upstream: ctx.upstream, method: ctx.method, code: mapped.code }, 'upstream request could not be made');
    return mapped;
  }
  ctx.metrics.upstreamErrors.inc({ upstream: ctx.upstream, kind });
  ctx.log.warn({ err, upstream: ctx.upstream, method: ctx.method, kind, code: mapped.code }, mapped.message);
  return mapped;
}
