/**
 * The upstreams as the console shows them: kind, path and target (scrubbed of secrets) from the running
 * config, the revision each last answered initialize with, readiness as /readyz says, and what /metrics says
 * of its sessions, children, errors and bridged sessions.
 */
import type { LoadedConfig } from '../config/load.js';
import type { UpstreamConfig } from '../config/types.js';
import { withoutCredentials } from '../url-credentials.js';
import type { Metrics } from '../metrics.js';
import { upstreamCounts } from './metrics-read.js';
import { toolNames, type ToolSources } from './tools.js';
import type { Upstream } from './wire.js';

/** An upstream's readiness, as /readyz reports it. */
export type Readiness = () => Promise<{ ok: boolean; detail?: string }>;

/** How long a readiness answer is reused (ms): pages re-fetch on every tick, upstreams need not be asked as often. */
export const READY_TTL_MS = 5_000;

/** `ready`, asked at most once every READY_TTL_MS (a check under way is shared). */
export function cachedReadiness(ready: Readiness, now: () => number): Readiness {
  let last: { readonly at: number; readonly answer: ReturnType<Readiness> } | undefined;
  return () => {
    if (last && now() - last.at < READY_TTL_MS) return last.answer;
    last = { at: now(), answer: ready() };
    return last.answer;
  };
}

/** How long readiness may take before the console says it did not answer (ms). */
const READY_WAIT_MS = 2_000;

function targetOf(upstream: UpstreamConfig): string {
  if (upstream.kind === 'http') return withoutCredentials(upstream.url);
  if (upstream.kind === 'sse') return withoutCredentials(upstream.sse);
  return [upstream.command, ...upstream.args].join(' ');
}

async function readinessOf(ready: Readiness | undefined): Promise<Upstream['ready']> {
  if (!ready) return { ok: false, detail: 'not served' };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Upstream['ready']>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${READY_WAIT_MS}ms` }), READY_WAIT_MS);
  });
  try {
    return await Promise.race([ready().then((r) => ({ ok: r.ok, detail: r.detail ?? null })), late]);
  } catch (err) {
    return { ok: false, detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** What the upstream view reads from. */
export interface UpstreamSources extends ToolSources {
  readonly metrics: Metrics;
  readonly readiness: ReadonlyMap<string, Readiness>;
  /** The revision each upstream last answered initialize with. */
  readonly revisions: ReadonlyMap<string, string>;
}

export async function upstreamsView(sources: UpstreamSources, loaded: LoadedConfig): Promise<Upstream[]> {
  const counts = await upstreamCounts(sources.metrics);
  return Promise.all(
    Object.values(loaded.config.upstreams).map(async (upstream): Promise<Upstream> => {
      const policy = loaded.policies.get(upstream.name);
      const names = toolNames(sources, upstream.name);
      const typed = names.filter((tool) => policy?.resolve(tool)?.config.outputSchema !== undefined || sources.catalog.get(upstream.name, tool)?.declared !== undefined).length;
      const c = counts(upstream.name);
      return {
        name: upstream.name,
        kind: upstream.kind,
        path: upstream.path,
        target: sources.scrub(targetOf(upstream)),
        revision: sources.revisions.get(upstream.name) ?? null,
        bridged: c.bridged,
        sessions: c.sessions,
        children: upstream.kind === 'stdio' ? c.children : null,
        errors: c.errors,
        ready: await readinessOf(sources.readiness.get(upstream.name)),
        recording: upstream.record !== undefined,
        tools: { seen: names.length, typed },
      };
    }),
  );
}
