/**
 * The job that projects a tool's own structuredContent in a large answer on a worker (./protocol.ts NativeJob):
 * the worker has no NativeMemory, so what the main thread's learnt of the tool from tools/list goes along.
 */
import type { UpstreamPolicy } from '../../retrofit/policy.js';
import { decisionKey, type NativeDecision } from '../../retrofit/native-memory.js';
import { DECISION_ERAS } from '../../retrofit/native.js';
import { TOOL_DEFAULTS } from '../../retrofit/settings.js';
import type { Era } from '../../protocol/era.js';
import type { PendingRequest } from '../request.js';
import type { NativeJob } from './protocol.js';
import { traceRequestOf } from '../trace-result.js';

/** The native job for `raw`, an answer to `request` (a call of `tool`) believed to carry `id`. */
export function nativeJobOf(request: PendingRequest, policy: UpstreamPolicy, tool: string, raw: Buffer | string, id: string | number): NativeJob['native'] {
  const decisions: [Era, NativeDecision][] = [];
  for (const era of DECISION_ERAS) {
    const decision = policy.native?.decisions.get(decisionKey(tool, era));
    if (decision !== undefined) decisions.push([era, decision]);
  }
  const trace = traceRequestOf(request);
  return { data: raw, id, tool, revision: request.revision, ...(request.profile && { profile: request.profile }), decisions, defaults: policy.defaults ?? TOOL_DEFAULTS, ...(trace && { trace }) };
}
