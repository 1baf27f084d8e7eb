/**
 * The one hook where responses are rewritten, shared by every transport. The transport matches a response
 * to its request (by session + JSON-RPC id) and calls `rewrite`; this module calls the pure engine, then logs
 * and counts what happened.
 */
import type { JsonObject } from '../config/types.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { UpstreamPolicy } from '../policy/types.js';
import { REWRITTEN_METHODS } from '../jsonrpc/classify.js';
import { rewriteToolCall, rewriteToolsList } from '../retrofit/engine.js';

/** What the transport remembers about a request until its response arrives. */
export interface PendingRequest {
  readonly upstream: string;
  readonly method: string;
  /** tools/call: the tool name; tasks/result: the tool that created the task, when known. */
  readonly tool?: string;
  /** The revision governing this request (see src/protocol/era.ts). */
  readonly revision: string;
  /**
   * The upstream's policy when the request was sent (`Rewriter.policyOf`), so a request in flight across a
   * config reload is answered by the generation it started on. Absent: the current policy.
   */
  readonly policy?: UpstreamPolicy;
}

export interface Rewriter {
  /** True when responses to this method must be parsed and may be rewritten; all others stream through. */
  needsRewrite(method: string): boolean;
  /** The upstream's current policy, to stamp on a PendingRequest when it is sent. */
  policyOf(upstream: string): UpstreamPolicy | undefined;
  /**
   * Rewrite one JSON-RPC response message (already parsed). Returns the same object when nothing changed.
   * Never throws: an engine failure is logged and the original message is returned.
   */
  rewrite(request: PendingRequest, message: JsonObject, log: Logger): JsonObject;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function createRewriter(
  policies: ReadonlyMap<string, UpstreamPolicy>,
  metrics: Metrics,
): Rewriter {
  return {
    needsRewrite: (method) => REWRITTEN_METHODS.has(method),
    policyOf: (upstream) => policies.get(upstream),
    rewrite(request, message, log) {
      const policy = request.policy ?? policies.get(request.upstream);
      const result = message.result;
      if (!policy || !isObject(result)) return message;
      try {
        if (request.method === 'tools/list') {
          const out = rewriteToolsList(result, policy, request.revision);
          for (const repair of out.repairs) {
            metrics.repairs.inc({ upstream: request.upstream, tool: repair.tool, kind: repair.kind });
            // Logged once per upstream, tool and repair at info; repeats of the same list go to debug.
            log[repair.repeat ? 'debug' : 'info']({ upstream: request.upstream, tool: repair.tool, repair: repair.kind, detail: repair.detail }, 'tool definition repaired');
          }
          return out.result === result ? message : { ...message, result: out.result };
        }
        if ((request.method === 'tools/call' || request.method === 'tasks/result') && request.tool !== undefined) {
          const out = rewriteToolCall(result, request.tool, policy, request.revision);
          const { outcome, format, reasons } = out.outcome;
          if (outcome !== 'untouched') {
            metrics.retrofits.inc({ upstream: request.upstream, tool: request.tool, outcome, format: format ?? '' });
            const level = outcome === 'invalid' || outcome === 'unparseable' ? 'warn' : 'debug';
            log[level]({ upstream: request.upstream, tool: request.tool, outcome, format, reasons, revision: request.revision }, 'retrofit');
          }
          return out.result === result ? message : { ...message, result: out.result };
        }
      } catch (err) {
        log.error({ err, upstream: request.upstream, method: request.method }, 'retrofit engine failed; result passed through');
      }
      return message;
    },
  };
}
