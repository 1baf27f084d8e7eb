/**
 * What `check --probe` prints for one upstream, from its listed tools and compiled policy: one line per
 * tool naming the repairs and the retrofit it would get (`fs/read_file: repair input_type_added (…)`), and
 * a warning for every `tools:` key that governs none of the listed tools (a typo, or a glob shadowed by
 * other keys). Pure: no I/O, so the wording is unit-tested on hand-built lists.
 */
import { dirname, relative } from 'node:path';
import type { JsonObject } from '../json.js';
import type { LegacyRoots } from '../config/types.js';
import type { ToolPolicy, UpstreamPolicy } from '../retrofit/policy.js';
import { unmatchedKeys, type KeyWarning } from '../policy/unmatched.js';
import { planToolsList, type ToolPlan } from '../retrofit/plan.js';
import { isObjectRoot } from '../retrofit/wrap.js';

export { unmatchedKeys, type KeyWarning } from '../policy/unmatched.js';

/** The report for one upstream. */
export interface UpstreamReport {
  /** One line per listed tool, in list order. */
  readonly lines: readonly string[];
  readonly warnings: readonly KeyWarning[];
}

/** Schema files are shown as written: relative to the config file's directory. */
function shownFile(file: string, configFile: string): string {
  return relative(dirname(configFile), file) || file;
}

function rootText(legacyRoots: LegacyRoots): string {
  return `non-object root ${legacyRoots === 'wrap' ? 'wrapped as {result}' : 'dropped'} for 2025-06-18/2025-11-25 clients`;
}

/** A schema the upstream declared itself and that survives repair: served as is, or projected. */
function nativeText(plan: ToolPlan, context: ToolContext): string | undefined {
  const declared = context.definition?.outputSchema;
  if (plan.retrofit || declared === undefined || plan.repairs.some((r) => r.kind === 'output_removed')) return undefined;
  if (typeof declared !== 'boolean' && (typeof declared !== 'object' || declared === null || Array.isArray(declared))) return undefined;
  return isObjectRoot(declared) ? 'native outputSchema kept' : `native outputSchema kept, ${rootText(context.legacyRoots)}`;
}

function retrofitText(plan: ToolPlan, context: ToolContext): string | undefined {
  const rf = plan.retrofit;
  if (!rf) return undefined;
  const file = context.entry?.config.outputSchemaFile;
  const parts = [file === undefined ? 'outputSchema inline' : `outputSchema from ${shownFile(file, context.configFile)}`];
  if (rf.key !== plan.tool) parts[0] += ` (key ${JSON.stringify(rf.key)})`;
  if (context.definition?.outputSchema !== undefined) parts[0] += ` replacing the upstream's`;
  parts.push(`extract ${rf.format}`);
  // Object roots reach every client as is; others depend on the client's revision.
  if (rf.root === 'non-object') parts.push(rootText(rf.legacyRoots));
  if (rf.shadow) parts.push(rf.onInvalid === 'passthrough' ? 'shadow (onInvalid: passthrough): clients are shown no schema' : 'shadow: clients are shown no schema');
  return parts.join(', ');
}

function repairText(plan: ToolPlan, context: ToolContext): string[] {
  return plan.repairs.map((r) => {
    let detail = r.detail;
    if (r.kind === 'input_replaced') {
      const file = context.entry?.config.inputSchemaFile;
      detail = file === undefined ? 'configured inline inputSchema' : `inputSchema from ${shownFile(file, context.configFile)}`;
    }
    return `repair ${r.kind}${detail === undefined ? '' : ` (${detail})`}`;
  });
}

/** What describeTool needs besides the plan. */
export interface ToolContext {
  /** The `tools:` entry governing the tool, if any. */
  readonly entry: ToolPolicy | undefined;
  /** The definition as the upstream listed it. */
  readonly definition?: JsonObject;
  /** The config file (schema files are shown relative to its directory). */
  readonly configFile: string;
  /** How non-object roots reach 2025-06-18/2025-11-25 clients for this tool. */
  readonly legacyRoots: LegacyRoots;
}

/** One line for one tool: `UPSTREAM/TOOL: repair …; outputSchema …` or `UPSTREAM/TOOL: unchanged`. */
export function describeTool(upstream: string, plan: ToolPlan, context: ToolContext): string {
  const parts = repairText(plan, context);
  const schema = retrofitText(plan, context) ?? nativeText(plan, context);
  if (schema !== undefined) parts.push(schema);
  return `${upstream}/${plan.tool}: ${parts.length > 0 ? parts.join('; ') : 'unchanged'}`;
}

/** The report for one upstream's full tool list. */
export function reportUpstream(tools: readonly JsonObject[], policy: UpstreamPolicy, keys: readonly string[], configFile: string): UpstreamReport {
  const plans = planToolsList({ tools: [...tools] }, policy);
  const lines = plans.map((plan, i) => {
    const entry = policy.resolve(plan.tool);
    const legacyRoots = entry?.compiled?.legacyRoots ?? entry?.config.legacyRoots ?? policy.defaults?.legacyRoots ?? 'wrap';
    const definition = tools[i];
    return describeTool(policy.upstream, plan, definition === undefined ? { entry, configFile, legacyRoots } : { entry, definition, configFile, legacyRoots });
  });
  return { lines, warnings: unmatchedKeys(keys, plans.map((p) => p.tool), policy) };
}
