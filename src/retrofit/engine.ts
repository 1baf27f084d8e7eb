/**
 * The retrofit engine's public face: pure functions from (upstream result, policy, revision) to the result
 * a client of that revision receives. No Fastify, no undici, no I/O: the proxy, the stdio bridge and
 * `mcp-retrofit try` all call these.
 */
import { shapeToolResult, shapeToolsList, type ProfileShape } from './profile.js';
import { type JsonObject } from '../json.js';
import { isShadowed, TOOL_DEFAULTS, type ToolDefaults } from './settings.js';
import type { ToolPolicy, UpstreamPolicy } from './policy.js';
import { compileTool, type CompiledTool } from './compiled.js';
import { injectToolsList, type ToolRepair } from './inject.js';
import type { CallOutcome } from './outcome.js';
import { projectNativeResult } from './native.js';
import { createNativeMemory, type NativeMemory } from './native-memory.js';
import { isNonFinal, projectErrorResult, retrofitResult } from './result.js';

export type { CallOutcome } from './outcome.js';
export type { ToolRepair } from './inject.js';

// Hand-built policies (tests, tools) may lack the compiled parts: compile lazily, once per object.
const lazyTools = new WeakMap<ToolPolicy, CompiledTool>();
const lazyMemory = new WeakMap<UpstreamPolicy, NativeMemory>();

function defaultsOf(policy: UpstreamPolicy): ToolDefaults {
  return policy.defaults ?? TOOL_DEFAULTS;
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
  return isShadowed(entry.config, defaultsOf(policy));
}

/**
 * Rewrite a tools/list result: inject configured schemas, repair definitions, project for the revision, then
 * shape for the client's profile (./profile.ts), when it has one.
 */
export function rewriteToolsList(
  result: JsonObject,
  policy: UpstreamPolicy,
  revision: string,
  profile?: ProfileShape,
): { result: JsonObject; repairs: readonly ToolRepair[] } {
  const out = injectToolsList(result, {
    compiledFor: (tool) => compiledOf(policy, tool),
    shadowed: (tool) => inShadow(policy, tool),
    memory: memoryOf(policy),
    legacyRoots: defaultsOf(policy).legacyRoots,
    revision,
  });
  return profile ? { result: shapeToolsList(out.result, profile), repairs: out.repairs } : out;
}

/**
 * Rewrite a tools/call (or tool-task tasks/result) result for the named tool: the result a client of
 * `revision` gets, and what the retrofit found. A shadowed tool (inShadow) gets the upstream's result as a
 * tool without a configured schema would (only its own structuredContent projected), with the outcome of
 * the retrofit that ran. A client profile then shapes what the client gets (./profile.ts).
 */
export function rewriteToolCall(
  result: JsonObject,
  tool: string,
  policy: UpstreamPolicy,
  revision: string,
  profile?: ProfileShape,
): { result: JsonObject; outcome: CallOutcome } {
  const out = retrofitToolCall(result, tool, policy, revision);
  return profile ? { result: shapeToolResult(out.result, profile), outcome: out.outcome } : out;
}

function retrofitToolCall(result: JsonObject, tool: string, policy: UpstreamPolicy, revision: string): { result: JsonObject; outcome: CallOutcome } {
  const untouched: CallOutcome = { tool, outcome: 'untouched' };
  const error = result.isError === true;
  if (!error && isNonFinal(result)) return { result, outcome: untouched };
  const entry = policy.resolve(tool);
  const compiled = entry ? compiledEntry(policy, entry) : undefined;
  const legacyRoots = compiled?.legacyRoots ?? defaultsOf(policy).legacyRoots;
  if (error) {
    // Not retrofitted; its structuredContent, if any, projected for what the client was shown.
    const served = entry && compiled?.output && !isShadowEntry(policy, entry)
      ? projectErrorResult(result, compiled, compiled.output, revision)
      : projectNativeResult(result, tool, memoryOf(policy), legacyRoots, revision);
    return { result: served, outcome: untouched };
  }
  if (entry && compiled?.output) {
    const out = retrofitResult(result, tool, compiled, compiled.output, revision);
    if (!isShadowEntry(policy, entry)) return out;
    return { result: projectNativeResult(result, tool, memoryOf(policy), legacyRoots, revision), outcome: out.outcome };
  }
  return { result: projectNativeResult(result, tool, memoryOf(policy), legacyRoots, revision), outcome: untouched };
}
