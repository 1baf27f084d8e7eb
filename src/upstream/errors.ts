/**
 * The one place where a failed upstream exchange becomes a client-facing error: connection failures before
 * response headers → 502, no headers within timeoutMs → 504. Every mapped failure is logged and counted;
 * the original error is kept as `cause`.
 */
import { RetrofitError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';

/** Failure kinds as counted in metrics.upstreamErrors. */
export type UpstreamFailureKind = 'unreachable' | 'timeout' | 'protocol' | 'too_large' | 'aborted';

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);
const ABORT_CODES = new Set(['UND_ERR_ABORTED', 'ABORT_ERR']);

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Connect failures surface as a wrapper whose cause holds the errno code.
  return codeOf((err as { cause?: unknown }).cause);
}

/** Classify an error thrown by the undici request (before or while reading the response). */
export function failureKind(err: unknown): UpstreamFailureKind {
  if (err instanceof RetrofitError) {
    if (err.code === 'RETROFIT_ERR_RESULT_TOO_LARGE') return 'too_large';
    if (err.code === 'RETROFIT_ERR_UPSTREAM_TIMEOUT') return 'timeout';
    if (err.code === 'RETROFIT_ERR_UPSTREAM_PROTOCOL') return 'protocol';
    return 'unreachable';
  }
  const name = err instanceof Error ? err.name : '';
  const code = codeOf(err);
  if (name === 'AbortError' || (code !== undefined && ABORT_CODES.has(code))) return 'aborted';
  if (code !== undefined && TIMEOUT_CODES.has(code)) return 'timeout';
  return 'unreachable';
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
 * caused): there is nobody to answer, and it is not the upstream's fault.
 */
export function mapUpstreamFailure(err: unknown, ctx: FailureContext): RetrofitError | undefined {
  const kind = failureKind(err);
  if (kind === 'aborted') {
    ctx.log.debug({ upstream: ctx.upstream, method: ctx.method }, 'client went away; upstream request aborted');
    return undefined;
  }
  const mapped =
    err instanceof RetrofitError
      ? err
      : kind === 'timeout'
        ? new RetrofitError('RETROFIT_ERR_UPSTREAM_TIMEOUT', [ctx.upstream, ctx.timeoutMs], { cause: err })
        : new RetrofitError('RETROFIT_ERR_UPSTREAM_UNREACHABLE', [ctx.upstream], { cause: err });
  ctx.metrics.upstreamErrors.inc({ upstream: ctx.upstream, kind });
  ctx.log.warn({ err, upstream: ctx.upstream, method: ctx.method, kind, code: mapped.code }, mapped.message);
  return mapped;
}
