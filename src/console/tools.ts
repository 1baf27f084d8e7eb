/**
 * The tools of an upstream as the console shows them: which schema governs each (configured, declared by
 * the upstream, or none), its mode under the running policy, its totals (from /metrics' counter), its last
 * hour by minute and the retrofit's added time (from the ledger); for one tool also its schema, extract
 * settings and last samples.
 */
import type { JsonSchema } from '../json.js';
import { isShadowEntry } from '../retrofit/engine.js';
import type { UpstreamPolicy } from '../retrofit/policy.js';
import type { Catalog } from './catalog.js';
import type { Ledger } from './ledger.js';
import { outcomeTotals, zeroTotals, type Totals } from './metrics-read.js';
import type { Metrics } from '../metrics.js';
import { MINUTES, STEP_MS, type Kind } from './ring.js';
import { failureView, successView } from './samples.js';
import type { Json, ToolDetail, ToolRow, ToolsReply } from './wire.js';

/** What the views read from. */
export interface ToolSources {
  readonly metrics: Metrics;
  readonly ledger: Ledger;
  readonly catalog: Catalog;
  readonly scrub: (text: string) => string;
}

const EMPTY_SERIES = (): Record<Kind, number[]> => ({
  extracted: new Array<number>(MINUTES).fill(0),
  validated: new Array<number>(MINUTES).fill(0),
  invalid: new Array<number>(MINUTES).fill(0),
  unparseable: new Array<number>(MINUTES).fill(0),
  shadow: new Array<number>(MINUTES).fill(0),
});

/** Every tool seen of the upstream (listed, or with an outcome), sorted by name. */
export function toolNames(sources: ToolSources, upstream: string, totals?: ReadonlyMap<string, Totals>): string[] {
  const names = new Set([...sources.catalog.toolsOf(upstream), ...sources.ledger.toolsOf(upstream), ...(totals?.keys() ?? [])]);
  return [...names].sort();
}

function schemaOf(sources: ToolSources, policy: UpstreamPolicy | undefined, upstream: string, tool: string): { kind: ToolRow['schema']; schema: JsonSchema | null; mode: ToolRow['mode'] } {
  const entry = policy?.resolve(tool);
  const configured = entry?.config.outputSchema;
  if (policy && entry && configured !== undefined) return { kind: 'configured', schema: configured, mode: isShadowEntry(policy, entry) ? 'shadow' : 'on' };
  const declared = sources.catalog.get(upstream, tool)?.declared;
  return declared === undefined ? { kind: 'none', schema: null, mode: 'unseen' } : { kind: 'declared', schema: declared, mode: 'on' };
}

function viewOf(sources: ToolSources, policy: UpstreamPolicy | undefined, upstream: string, tool: string, totals: Totals | undefined, now: number): ToolRow & { schemaValue: JsonSchema | null } {
  const { kind, schema, mode } = schemaOf(sources, policy, upstream, tool);
  const ledger = sources.ledger.get(upstream, tool);
  return {
    name: tool,
    schema: kind,
    mode,
    totals: totals ?? zeroTotals(),
    series: ledger ? ledger.series.series(now) : EMPTY_SERIES(),
    addedMs: ledger ? ledger.added.percentiles() : null,
    schemaValue: schema,
  };
}

/** The end of the newest bucket holding `now`. */
function endOf(now: number): number {
  return (Math.floor(now / STEP_MS) + 1) * STEP_MS;
}

export async function toolsView(sources: ToolSources, policy: UpstreamPolicy | undefined, upstream: string): Promise<ToolsReply> {
  const totals = await outcomeTotals(sources.metrics, upstream);
  const now = sources.ledger.now();
  const tools = toolNames(sources, upstream, totals).map((name) => {
    const { schemaValue: _schema, ...view } = viewOf(sources, policy, upstream, name, totals.get(name), now);
    return view;
  });
  return { upstream, windowMs: MINUTES * STEP_MS, stepMs: STEP_MS, end: endOf(now), tools };
}

/** One tool, or undefined when it was never seen. */
export async function toolDetail(sources: ToolSources, policy: UpstreamPolicy | undefined, upstream: string, tool: string): Promise<ToolDetail | undefined> {
  const totals = await outcomeTotals(sources.metrics, upstream);
  if (!toolNames(sources, upstream, totals).includes(tool)) return undefined;
  const { schemaValue, ...view } = viewOf(sources, policy, upstream, tool, totals.get(tool), sources.ledger.now());
  const extract = policy?.resolve(tool)?.config.extract;
  const ledger = sources.ledger.get(upstream, tool);
  return {
    ...view,
    outputSchema: schemaValue,
    extract: extract === undefined ? null : (extract as unknown as Json),
    failures: ledger ? ledger.failures.newestFirst().map((s) => failureView(s, sources.scrub)) : [],
    successes: ledger ? ledger.successes.newestFirst().map((s) => successView(s, sources.scrub)) : [],
  };
}
