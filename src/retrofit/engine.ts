/**
 * The retrofit engine's public face: pure functions from (upstream result, policy, revision) to the result
 * a client of that revision receives. No Fastify, no undici, no I/O: the proxy, the stdio bridge and
 * `mcp-retrofit try` all call these.
 */
import { type JsonObject } from '../json.js';
import { DEFAULTS, type ToolDefaults } from '../config/types.js';
import type { ToolPolicy, UpstreamPolicy } from '../policy/types.js';
import { compileTool, type CompiledTool } from './compiled.js';
import { injectToolsList } from './inject.js';
import { projectNativeResult } from './native.js';
import { createNativeMemory, type NativeMemory } from './native-memory.js';
import { isNonFinal, retrofitResult } from './result.js';

/** What happened to one tools/call result; logged and counted by the caller. */
export interface CallOutcome {
  readonly tool: string;
  /**
   * native: upstream structuredContent validated; extracted: text turned into structuredContent;
   * invalid: parsed but failed the schema; unparseable: nothing found; untouched: no policy, isError, or a
   * non-final result. A shadowed tool's outcome is what its retrofit found, though its client gets none of it.
   */
  readonly outcome: 'native' | 'extracted' | 'invalid' | 'unparseable' | 'untouched';
  /** The extraction strategy that succeeded (json, fenced, embedded, blocks, relaxed, scalar, yaml, regex). */
  readonly format?: string;
  /** Human-readable reasons for invalid/unparseable, each with its JSON pointer (at most 10, then "and N more"). */
  readonly reasons?: readonly string[];
}

/** A repair applied to one tool definition in tools/list. */
export interface ToolRepair {
  readonly tool: string;
  readonly kind: 'input_type_added' | 'input_replaced' | 'output_removed';
  readonly detail?: string;
  /**
   * True when this same repair was already reported for this upstream and tool (bounded memory): callers
   * count every occurrence but need to log it only once.
   */
  readonly repeat?: boolean;
}

// Hand-built policies (tests, tools) may lack the compiled parts: compile lazily, once per object.
const lazyTools = new WeakMap<ToolPolicy, CompiledTool>();
const lazyMemory = new WeakMap<UpstreamPolicy, NativeMemory>();

function defaultsOf(policy: UpstreamPolicy): ToolDefaults {
  return policy.defaults ?? DEFAULTS;
}

function compiledOf(policy: UpstreamPolicy, tool: string): CompiledTool | undefined {
  const entry = policy.resolve(tool);
  return entry ? compiledEntry(policy, entry) : undefined;
}

function compiledEntry(policy: UpstreamPolicy, entry: ToolPolicy): CompiledTool {
  if (entry.compiled) return entry.compiled;
  let compiled = lazyTools.get(entry);
  if (!compiled) {
    compiled = compileTool(entry.config, defaultsOf(policy)).tool;
    lazyTools.set(entry, compiled);
  }
  return compiled;
}

function memoryOf(policy: UpstreamPolicy): NativeMemory {
  if (policy.native) return policy.native;
  let memory = lazyMemory.get(policy);
  if (!memory) {
    memory = createNativeMemory();
    lazyMemory.set(policy, memory);
  }
  return memory;
}

/**
 * True when the tool's configured schema runs in shadow: `shadow: true` (the entry's, its upstream's or
 * `defaults`', written into the entry by the loader), or `onInvalid: passthrough`, which passes failures
 * through and so must never have shown the client the schema those results would break. A shadowed tool
 * is listed without its configured outputSchema (repairs still apply: without them strict clients reject
 * the whole list) and its results reach the client as if no schema were configured; its retrofit still runs,
 * and its outcome is reported.
 */
export function inShadow(policy: UpstreamPolicy, tool: string): boolean {
  const entry = policy.resolve(tool);
  return entry !== undefined && isShadowEntry(policy, entry);
}

/** inShadow for the entry a tool resolved to (no second lookup on the hot path). */
export function isShadowEntry(policy: UpstreamPolicy, entry: ToolPolicy): boolean {
  if (entry.config.shadow ?? defaultsOf(policy).shadow === true) return true;
  return compiledEntry(policy, entry).onInvalid === 'passthrough';
}

/** Rewrite a tools/list result: inject configured schemas, repair definitions, project for the revision. */
export function rewriteToolsList(
  result: JsonObject,
  policy: UpstreamPolicy,
  revision: string,
): { result: JsonObject; repairs: readonly ToolRepair[] } {
  return injectToolsList(result, {
    compiledFor: (tool) => compiledOf(policy, tool),
    shadowed: (tool) => inShadow(policy, tool),
    memory: memoryOf(policy),
    legacyRoots: defaultsOf(policy).legacyRoots,
    revision,
  });
}

/**
 * Rewrite a tools/call (or tool-task tasks/result) result for the named tool: the result a client of
 * `revision` gets, and what the retrofit found. A shadowed tool (inShadow) gets the upstream's result as a
 * tool without a configured schema would (only its own structuredContent projected), with the outcome of
 * the retrofit that ran.
 */
export function rewriteToolCall(
  result: JsonObject,
  tool: string,
  policy: UpstreamPolicy,
  revision: string,
): { result: JsonObject; outcome: CallOutcome } {
  const untouched: CallOutcome = { tool, outcome: 'untouched' };
  if (isNonFinal(result)) return { result, outcome: untouched };
  const entry = policy.resolve(tool);
  const compiled = entry ? compiledEntry(policy, entry) : undefined;
  const legacyRoots = compiled?.legacyRoots ?? defaultsOf(policy).legacyRoots;
  if (entry && compiled?.output) {
    const out = retrofitResult(result, tool, compiled, compiled.output, revision);
    if (!isShadowEntry(policy, entry)) return out;
    return { result: projectNativeResult(result, tool, memoryOf(policy), legacyRoots, revision), outcome: out.outcome };
  }
  return { result: projectNativeResult(result, tool, memoryOf(policy), legacyRoots, revision), outcome: untouched };
}
