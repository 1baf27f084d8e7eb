/**
 * What the gateway would do to each tool of an upstream's tools/list — the repairs and the retrofit —
 * without serving anything: for `mcp-retrofit check --probe` and for operators reading a config.
 */
import type { JsonObject } from '../json.js';
import type { ExtractFormat, LegacyRoots, OnInvalid } from './settings.js';
import type { UpstreamPolicy } from './policy.js';
import { isShadowEntry, rewriteToolsList, type ToolRepair } from './engine.js';

/** The retrofit a configured tool gets. */
export interface RetrofitPlan {
  /** The `tools:` key that matched. */
  readonly key: string;
  readonly format: ExtractFormat;
  /** `object`: served as is to every client; `non-object`: wrapped or dropped for 2025-06-18/2025-11-25. */
  readonly root: 'object' | 'non-object';
  readonly legacyRoots: LegacyRoots;
  readonly onInvalid: OnInvalid;
  /** Served in shadow (`shadow: true` or `onInvalid: passthrough`): listed and answered as if unconfigured. */
  readonly shadow: boolean;
}

/** One tool's plan. */
export interface ToolPlan {
  readonly tool: string;
  readonly repairs: readonly ToolRepair[];
  /** Present when a `tools:` key with an outputSchema matches the tool. */
  readonly retrofit?: RetrofitPlan;
}

/** The plan for every tool of a tools/list result, in list order. */
export function planToolsList(result: JsonObject, policy: UpstreamPolicy): ToolPlan[] {
  const { repairs } = rewriteToolsList(result, policy, '2025-11-25');
  const tools = Array.isArray(result.tools) ? result.tools : [];
  return tools.map((definition) => {
    const tool = typeof definition === 'object' && definition !== null && !Array.isArray(definition) && typeof definition.name === 'string' ? definition.name : '';
    const entry = policy.resolve(tool);
    const output = entry?.compiled?.output;
    const plan: ToolPlan = { tool, repairs: repairs.filter((r) => r.tool === tool).map(({ repeat: _repeat, ...r }) => r) };
    if (!entry?.compiled || !output) return plan;
    const { extract, legacyRoots, onInvalid } = entry.compiled;
    return { ...plan, retrofit: { key: entry.key, format: extract.format, root: output.needsWrap ? 'non-object' : 'object', legacyRoots, onInvalid, shadow: isShadowEntry(policy, entry) } };
  });
}
