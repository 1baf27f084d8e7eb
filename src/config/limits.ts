/**
 * What JSON Schema cannot say of `limits:`: a request's headers are part of the request, so they cannot be
 * given longer to arrive than the whole request (Node refuses such a server).
 */
import { obj } from './build.js';
import type { PathProblem } from './paths.js';
import type { PositionIndex } from './positions.js';
import { DEFAULTS } from './types.js';

/** A problem when limits.headersTimeoutMs (as set, or its default) exceeds limits.requestTimeoutMs. */
export function checkLimits(root: unknown, index: PositionIndex): PathProblem[] {
  const limits = obj(obj(root).limits);
  const headers = typeof limits.headersTimeoutMs === 'number' ? limits.headersTimeoutMs : DEFAULTS.headersTimeoutMs;
  const request = typeof limits.requestTimeoutMs === 'number' ? limits.requestTimeoutMs : DEFAULTS.requestTimeoutMs;
  if (headers <= request) return [];
  const set = limits.headersTimeoutMs !== undefined;
  const path = set ? ['limits', 'headersTimeoutMs'] : ['limits', 'requestTimeoutMs'];
  const message = set
    ? `headersTimeoutMs (${headers}) must not exceed requestTimeoutMs (${request}): the headers are part of the request`
    : `requestTimeoutMs (${request}) must be at least headersTimeoutMs (default ${headers}): the headers are part of the request`;
  return [{ path, problem: index.problem(path, 'value', message, ['limits']) }];
}
