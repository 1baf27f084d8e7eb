/**
 * What `check --probe` prints for one upstream, from its listed tools and compiled policy: one line per
 * tool naming the repairs and the retrofit it would get (`fs/read_file: repair input_type_added (…)`), and
 * a warning for every `tools:` key that governs none of the listed tools (a typo, or a glob shadowed by
 * other keys). Pure: no I/O, so the wording is unit-tested on hand-built lists.
 */
import { dirname, relative } from 'node:path';
import type { JsonObject } from '../config/types.js';
import { createMatcher } from '../policy/match.js';
import type { ToolPolicy, UpstreamPolicy } from '../policy/types.js';
import { planToolsList, type ToolPlan } from '../retrofit/plan.js';

/** A `tools:` key that governs no listed tool. */
export interface KeyWarning {
  readonly key: string;
  readonly message: string;
}

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

function retrofitText(plan: ToolPlan, entry: ToolPolicy | undefined, configFile: string): string | undefined {
  const rf = plan.retrofit;
  if (!rf) return undefined;
  const file = entry?.config.outputSchemaFile;
  const parts = [file === undefined ? 'outputSchema inline' : `outputSchema from ${shownFile(file, configFile)}`];
  if (rf.key !== plan.tool) parts[0] += ` (key ${JSON.stringify(rf.key)})`;
  parts.push(`extract ${rf.format}`);
  // Object roots reach every client as is; others depend on the client's revision.
  if (rf.root === 'non-object') parts.push(`non-object root ${rf.legacyRoots === 'wrap' ? 'wrapped as {result}' : 'dropped'} for 2025-06-18/2025-11-25 clients`);
  if (rf.onInvalid === 'passthrough') parts.push('onInvalid passthrough');
  return parts.join(', ');
}

function repairText(plan: ToolPlan, entry: ToolPolicy | undefined, configFile: string): string[] {
  return plan.repairs.map((r) => {
    let detail = r.detail;
    if (r.kind === 'input_replaced') {
      const file = entry?.config.inputSchemaFile;
      detail = file === undefined ? 'configured inline inputSchema' : `inputSchema from ${shownFile(file, configFile)}`;
    }
    return `repair ${r.kind}${detail === undefined ? '' : ` (${detail})`}`;
  });
}

/** One line for one tool: `UPSTREAM/TOOL: repair …; outputSchema …` or `UPSTREAM/TOOL: unchanged`. */
export function describeTool(upstream: string, plan: ToolPlan, entry: ToolPolicy | undefined, configFile: string): string {
  const parts = repairText(plan, entry, configFile);
  const retrofit = retrofitText(plan, entry, configFile);
  if (retrofit !== undefined) parts.push(retrofit);
  return `${upstream}/${plan.tool}: ${parts.length > 0 ? parts.join('; ') : 'unchanged'}`;
}

/** Keys (in file order) that govern none of `names`, with why. */
export function unmatchedKeys(keys: readonly string[], names: readonly string[], policy: UpstreamPolicy): KeyWarning[] {
  const warnings: KeyWarning[] = [];
  for (const key of keys) {
    if (names.some((name) => policy.resolve(name)?.key === key)) continue;
    const alone = createMatcher([key]);
    const shadowedBy = [...new Set(names.filter((name) => alone.match(name) !== undefined).map((name) => policy.resolve(name)?.key ?? ''))];
    const message =
      shadowedBy.length === 0
        ? `matches no tool listed by "${policy.upstream}"`
        : `governs no listed tool: the tools it matches are governed by ${shadowedBy.map((k) => JSON.stringify(k)).join(', ')}`;
    warnings.push({ key, message });
  }
  return warnings;
}

/** The report for one upstream's full tool list. */
export function reportUpstream(tools: readonly JsonObject[], policy: UpstreamPolicy, keys: readonly string[], configFile: string): UpstreamReport {
  const plans = planToolsList({ tools: [...tools] }, policy);
  const lines = plans.map((plan) => describeTool(policy.upstream, plan, policy.resolve(plan.tool), configFile));
  return { lines, warnings: unmatchedKeys(keys, plans.map((p) => p.tool), policy) };
}
