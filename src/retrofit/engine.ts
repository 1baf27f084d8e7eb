/**
 * The retrofit engine's public face: pure functions from (upstream result, policy, revision) to the result
 * a client of that revision receives. No Fastify, no undici, no I/O: the proxy, the stdio bridge and
 * `mcp-retrofit try` all call these.
 *
 * STUB: identity functions until the engine lands; the signatures are the contract between proxy and engine.
 */
import type { JsonObject } from '../config/types.js';
import type { UpstreamPolicy } from '../policy/types.js';

/** What happened to one tools/call result; logged and counted by the caller. */
export interface CallOutcome {
  readonly tool: string;
  /**
   * native: upstream structuredContent validated; extracted: text turned into structuredContent;
   * invalid: parsed but failed the schema; unparseable: nothing found; passthrough: onInvalid passthrough;
   * untouched: no policy, isError, or a non-final result.
   */
  readonly outcome: 'native' | 'extracted' | 'invalid' | 'unparseable' | 'passthrough' | 'untouched';
  /** The extraction strategy that succeeded (json, fenced, embedded, blocks, relaxed, scalar, yaml, regex). */
  readonly format?: string;
  /** Human-readable reasons for invalid/unparseable, each with its JSON pointer. */
  readonly reasons?: readonly string[];
}

/** A repair applied to one tool definition in tools/list. */
export interface ToolRepair {
  readonly tool: string;
  readonly kind: 'input_type_added' | 'input_replaced' | 'output_removed';
  readonly detail?: string;
}

/** Rewrite a tools/list result: inject configured schemas, repair definitions, project for the revision. */
export function rewriteToolsList(
  result: JsonObject,
  _policy: UpstreamPolicy,
  _revision: string,
): { result: JsonObject; repairs: readonly ToolRepair[] } {
  return { result, repairs: [] };
}

/** Rewrite a tools/call (or tool-task tasks/result) result for the named tool. */
export function rewriteToolCall(
  result: JsonObject,
  tool: string,
  _policy: UpstreamPolicy,
  _revision: string,
): { result: JsonObject; outcome: CallOutcome } {
  return { result, outcome: { tool, outcome: 'untouched' } };
}
