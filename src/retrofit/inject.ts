/**
 * The tools/list rewrite: configured outputSchemas injected (replacing the upstream's), definitions
 * repaired, then every outputSchema projected for the client's revision. Tool order and every other field
 * (annotations, _meta, unknown keys; nextCursor, ttlMs, cacheScope on the result) are kept.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { type LegacyRoots } from './settings.js';
import type { CompiledTool } from './compiled.js';
import { decisionKey, type NativeMemory } from './native-memory.js';
import { projectionFor, projectToolSchema } from './project.js';
import { eraOf } from '../protocol/era.js';
import { compileBudget, objectifyProperties, outputSchemaProblem, repairInputSchema, type CompileBudget } from './repair.js';
import { isObjectRoot, isWrapperSchema, wrapSchema } from './wrap.js';

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

/** What inject needs to know about one upstream. */
export interface ListContext {
  readonly compiledFor: (tool: string) => CompiledTool | undefined;
  /** True for a tool whose configured schema runs in shadow (engine.ts inShadow): it is not injected. */
  readonly shadowed?: (tool: string) => boolean;
  readonly memory: NativeMemory;
  readonly legacyRoots: LegacyRoots;
  readonly revision: string;
  /** The schema compilations this list may still do (repair.ts COMPILES_PER_LIST); unbounded without. */
  readonly budget?: CompileBudget;
}

/**
 * Object-only clients (the v1 SDK) also reject an object-rooted outputSchema whose `properties` hold boolean
 * schemas; `true` → `{}` and `false` → `{"not": {}}` mean the same, so normalise them for those clients.
 */
function forObjectOnly(tool: JsonObject, revision: string): JsonObject {
  if (eraOf(revision) !== 'object-only' || typeof tool.outputSchema !== 'object' || tool.outputSchema === null || Array.isArray(tool.outputSchema)) return tool;
  const normalised = objectifyProperties(tool.outputSchema);
  return normalised ? { ...tool, outputSchema: normalised } : tool;
}

function rewriteTool(tool: JsonObject, ctx: ListContext, repairs: ToolRepair[]): JsonObject {
  return forObjectOnly(rewriteDefinition(tool, ctx, repairs), ctx.revision);
}

function rewriteDefinition(tool: JsonObject, ctx: ListContext, repairs: ToolRepair[]): JsonObject {
  const name = typeof tool.name === 'string' ? tool.name : '';
  const compiled = ctx.compiledFor(name);
  let out = tool;

  if (compiled?.inputSchema) {
    out = { ...out, inputSchema: compiled.inputSchema };
    repairs.push({ tool: name, kind: 'input_replaced' });
  } else {
    const repaired = repairInputSchema(tool.inputSchema);
    if (repaired) {
      out = { ...out, inputSchema: repaired.schema };
      repairs.push({ tool: name, kind: 'input_type_added', detail: repaired.detail });
    }
  }

  // A shadowed schema is not shown: the tool is listed as the upstream declares it (repaired, projected).
  const output = compiled?.output && ctx.shadowed?.(name) !== true ? compiled.output : undefined;
  if (compiled && output) {
    const projection = projectionFor(ctx.revision, !output.needsWrap, compiled.legacyRoots);
    return projectToolSchema(out, output.schema, projection, () => output.wrapped ?? wrapSchema(output.schema));
  }
  if (!('outputSchema' in out)) return out;
  const schema = out.outputSchema as Json;
  const problem = outputSchemaProblem(schema, ctx.budget);
  if (problem !== undefined) {
    ctx.memory.decisions.set(decisionKey(name, eraOf(ctx.revision)), 'removed');
    repairs.push({ tool: name, kind: 'output_removed', detail: problem });
    const { outputSchema: _removed, ...rest } = out;
    return rest;
  }
  const native = schema as JsonObject | boolean;
  const legacyRoots = compiled?.legacyRoots ?? ctx.legacyRoots;
  // A modern upstream already wrapped a non-object root for this object-only client: `drop` still drops it.
  const objectRoot = isObjectRoot(native) && !(legacyRoots === 'drop' && eraOf(ctx.revision) === 'object-only' && isWrapperSchema(native));
  ctx.memory.decisions.set(decisionKey(name, eraOf(ctx.revision)), objectRoot ? 'object' : 'non-object');
  const projection = projectionFor(ctx.revision, objectRoot, legacyRoots);
  return projection === 'as-is' && typeof native !== 'boolean' ? out : projectToolSchema(out, native, projection, () => wrapSchema(native));
}

/** Mark repairs this upstream already reported, so the caller logs each one once. */
function markRepeats(repairs: readonly ToolRepair[], memory: NativeMemory): ToolRepair[] {
  return repairs.map((repair) => {
    const key = `${repair.tool}\u0000${repair.kind}\u0000${repair.detail ?? ''}`;
    if (memory.repairs.get(key)) return { ...repair, repeat: true };
    memory.repairs.set(key, true);
    return repair;
  });
}

/** Rewrite one tools/list result page. Returns the same object when nothing changed. */
export function injectToolsList(result: JsonObject, ctx: ListContext): { result: JsonObject; repairs: ToolRepair[] } {
  if (!Array.isArray(result.tools)) return { result, repairs: [] };
  const repairs: ToolRepair[] = [];
  let changed = false;
  const bounded: ListContext = ctx.budget ? ctx : { ...ctx, budget: compileBudget() };
  const tools = result.tools.map((tool) => {
    if (!isJsonObject(tool)) return tool;
    const rewritten = rewriteTool(tool, bounded, repairs);
    if (rewritten !== tool) changed = true;
    return rewritten;
  });
  return { result: changed ? { ...result, tools } : result, repairs: markRepeats(repairs, ctx.memory) };
}
