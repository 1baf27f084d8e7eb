/**
 * What the console shows that /metrics also says, read from the same prom-client metrics so the two agree
 * exactly: outcome totals per tool (`mcp_retrofit_retrofit_outcomes_total`), and per upstream its sessions,
 * children, errors by kind and bridged sessions.
 */
import type { Metrics } from '../metrics.js';
import type { TotalName } from './wire.js';

/** A tool's outcomes since start. `shadow` counts every outcome in mode shadow; the others modes applied and unseen. */
export type Totals = Record<TotalName, number>;

export const zeroTotals = (): Totals => ({ native: 0, extracted: 0, invalid: 0, unparseable: 0, shadow: 0 });

type Labels = Partial<Record<string, string | number>>;

async function values(metric: { get(): Promise<{ values: readonly { labels: Labels; value: number }[] }> }): Promise<readonly { labels: Labels; value: number }[]> {
  return (await metric.get()).values;
}

/** Outcome totals of every tool of `upstream`, by tool. */
export async function outcomeTotals(metrics: Metrics, upstream: string): Promise<Map<string, Totals>> {
  const out = new Map<string, Totals>();
  for (const { labels, value } of await values(metrics.retrofits)) {
    if (labels.upstream !== upstream || typeof labels.tool !== 'string') continue;
    let totals = out.get(labels.tool);
    if (!totals) out.set(labels.tool, (totals = zeroTotals()));
    const outcome = labels.outcome;
    if (labels.mode === 'shadow') totals.shadow += value;
    else if (outcome === 'native' || outcome === 'extracted' || outcome === 'invalid' || outcome === 'unparseable') totals[outcome] += value;
  }
  return out;
}

/** What /metrics says of one upstream. */
export interface UpstreamCounts {
  readonly sessions: number;
  readonly children: number;
  readonly bridged: number;
  readonly errors: Readonly<Record<string, number>>;
}

/** UpstreamCounts of every upstream that has any, by name. */
export async function upstreamCounts(metrics: Metrics): Promise<(upstream: string) => UpstreamCounts> {
  const [sessions, children, errors, bridged] = await Promise.all([values(metrics.sessions), values(metrics.children), values(metrics.upstreamErrors), values(metrics.bridgedSessions)]);
  const sum = (list: readonly { labels: Labels; value: number }[], upstream: string): number =>
    list.reduce((n, v) => (v.labels.upstream === upstream ? n + v.value : n), 0);
  return (upstream) => {
    const byKind: Record<string, number> = {};
    for (const { labels, value } of errors) {
      if (labels.upstream === upstream && typeof labels.kind === 'string' && value > 0) byKind[labels.kind] = (byKind[labels.kind] ?? 0) + value;
    }
    return { sessions: sum(sessions, upstream), children: sum(children, upstream), bridged: sum(bridged, upstream), errors: byKind };
  };
}
