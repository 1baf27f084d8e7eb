/**
 * What an owned session's clients are told when its upstream link fails them, in one place: the error a
 * request gets for a message the link dropped, for the link ending and for a message whose handling failed,
 * with the `upstream_errors` kind it counts under and the line it is logged with. Pure: the session
 * (./owned.ts) counts, logs and answers.
 */
import { RetrofitError } from '../errors.js';
import { MAX_DEPTH } from '../jsonrpc/strict.js';
import type { LinkClosed, LinkDropped } from '../upstream/link.js';

/** How a dropped message fails the request it answers. */
export interface DropFailure {
  readonly error: RetrofitError;
  /** The `upstream_errors` kind (none: the gateway's own failure). */
  readonly kind?: string;
  readonly message: string;
  /** Only a request that waits for it is concerned (a stream reset is nothing without one). */
  readonly onlyIfAwaited?: true;
}

/** The failure for a message the link did not pass on (see LinkDropped). */
export function dropFailure(upstream: string, dropped: LinkDropped, maxResultBytes: number): DropFailure {
  switch (dropped.reason) {
    case 'size':
      return { kind: 'too_large', message: 'upstream message over maxResultBytes dropped', error: new RetrofitError('RETROFIT_ERR_RESULT_TOO_LARGE', [upstream, maxResultBytes]) };
    case 'depth':
      return { kind: 'protocol', message: `upstream message nested deeper than ${MAX_DEPTH} levels dropped`, error: new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [upstream], { cause: new Error(`nested deeper than ${MAX_DEPTH} levels`) }) };
    case 'unanswered':
      return { kind: 'protocol', message: 'the upstream\'s JSON answer did not answer the request', error: new RetrofitError('RETROFIT_ERR_UPSTREAM_PROTOCOL', [upstream], { cause: new Error('its JSON answer body held no answer to it') }), onlyIfAwaited: true };
    case 'reset':
      return { kind: 'reset', message: 'the upstream\'s answer stream broke before the answer came', error: new RetrofitError('RETROFIT_ERR_UPSTREAM_RESET', [upstream]), onlyIfAwaited: true };
    default:
      return { message: 'upstream message that could not be handled dropped', error: internalError(upstream, new Error('the link could not handle it')) };
  }
}

/** The error every request still waiting gets when the link ended. */
export function exitError(upstream: string, closed: LinkClosed): RetrofitError {
  const why = closed.stderr ? `${closed.reason}; stderr: ${closed.stderr}` : closed.reason;
  const code = closed.kind === 'unreachable' ? 'RETROFIT_ERR_UPSTREAM_UNREACHABLE' : closed.kind === 'protocol' ? 'RETROFIT_ERR_UPSTREAM_PROTOCOL' : 'RETROFIT_ERR_UPSTREAM_EXITED';
  return new RetrofitError(code, code === 'RETROFIT_ERR_UPSTREAM_EXITED' ? [upstream, why] : [upstream], closed.error ? { cause: closed.error } : undefined);
}

/** How a link that ended without being asked to is logged (its `upstream_errors` kind is its own). */
export const CLOSED_MESSAGE = { spawn: 'upstream child failed to spawn', exited: 'upstream child exited', unreachable: 'upstream connection ended', protocol: 'upstream sent something that is not MCP' } as const;

/** The error for an answer the gateway failed to handle. */
export function internalError(upstream: string, cause: unknown): RetrofitError {
  return new RetrofitError('RETROFIT_ERR_INTERNAL', [`the answer of upstream "${upstream}" could not be handled`], { cause });
}
