/**
 * What every route of the gateway shares: the config generations (each request takes one snapshot), the
 * logger, metrics, the rewrite pipeline, what is known of proxied sessions, the upstream connection pools,
 * the exchanges in flight (for shutdown) and the secret scrubber for client-facing error texts. Each request
 * reads its upstream's config from one snapshot, the generation it arrived under.
 */
import type { Console } from '../console/index.js';
import type { Generations } from '../config/generations.js';
import type { LoadedConfig } from '../config/load.js';
import type { UpstreamConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { revisionLabel } from '../protocol/methods.js';
import type { Negotiated } from '../protocol/negotiate.js';
import type { Rewriter } from '../pipeline/rewrite.js';
import type { UpstreamPolicy } from '../retrofit/policy.js';
import type { SessionTable } from '../session/table.js';
import type { UpstreamPools } from '../upstream/http.js';
import type { TelemetryRuntime } from '../telemetry/setup.js';
import type { InFlight } from './server/inflight.js';

export interface GatewayContext {
  readonly generations: Generations;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly rewriter: Rewriter;
  readonly sessions: SessionTable;
  readonly pools: UpstreamPools;
  readonly inflight: InFlight;
  /** OpenTelemetry: a tracer when tracing is on (src/telemetry/). */
  readonly telemetry: TelemetryRuntime;
  /** Replace every configured secret in `text` (stderr quoted in an error sent to a client). */
  readonly scrub: (text: string) => string;
  /** The operator console (src/console/), when `ui.enabled`: absent, nothing of it runs. */
  readonly console?: Console;
}

/**
 * What the gateway says about a session once its initialize was answered: a bridged one is logged (once) and
 * counted, so operators see which clients get structured output from which old servers.
 */
export function negotiatedReporter(ctx: GatewayContext, upstream: string, log: Logger): (negotiated: Negotiated) => void {
  return (negotiated) => {
    ctx.console?.answered(upstream, negotiated.upstream);
    if (!negotiated.bridged) return;
    ctx.metrics.bridgedSessions.inc({ upstream, from: revisionLabel(negotiated.client), to: revisionLabel(negotiated.upstream) });
    log.info({ clientRevision: negotiated.client, upstreamRevision: negotiated.upstream }, 'session bridged: the client is answered its own revision');
  };
}

/** One request's view of one upstream: its config and policy, from the same generation. */
export interface Snapshot<U extends UpstreamConfig = UpstreamConfig> {
  readonly loaded: LoadedConfig;
  readonly upstream: U;
  readonly policy: UpstreamPolicy | undefined;
}

/** What holds a request's config generation (taken once when it arrived: src/http/server/gate.ts). */
export interface Generational {
  readonly generation: LoadedConfig;
}

/**
 * The snapshot for upstream `name` (routes exist only for upstreams every generation keeps): the request's
 * generation when a request is given, else the current one (timers, readiness).
 */
export function snapshot<U extends UpstreamConfig>(ctx: GatewayContext, name: string, request?: Generational): Snapshot<U> {
  const loaded = request?.generation ?? ctx.generations.current;
  const upstream = loaded.config.upstreams[name];
  if (!upstream) throw new Error(`upstream "${name}" is missing from the config generation`);
  return { loaded, upstream: upstream as U, policy: loaded.policies.get(name) };
}
