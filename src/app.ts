/**
 * buildApp: a loaded config → a ready Fastify instance (not yet listening). Tests and the CLI both call it.
 */
import { startTelemetry, type TelemetryRuntime } from './telemetry/setup.js';
import { PACKAGE_VERSION } from './version.js';
import type { FastifyInstance } from 'fastify';
import { Console } from './console/index.js';
import { Generations } from './config/generations.js';
import type { LoadedConfig } from './config/load.js';
import type { ReloadReport } from './console/wire.js';
import type { GatewayContext } from './http/context.js';
import type { StdioOptions } from './http/front/stdio-routes.js';
import { registerRoutes } from './http/routes.js';
import { gatewayServer } from './http/server/create.js';
import { Gate } from './http/server/gate.js';
import { requestIds } from './http/server/ids.js';
import { InFlight } from './http/server/inflight.js';
import type { UpstreamRoutes } from './http/upstream-routes.js';
import { createLogger, Redactor, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { createRewriter, type Rewriter } from './pipeline/rewrite.js';
import { createRecorder, followGenerations, type Recorder } from './record/index.js';
import { SessionTable } from './session/table.js';
import { UpstreamPools } from './upstream/http.js';

/** Optional collaborators; tests pass their own to observe or replace them. */
export interface BuildOptions {
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  /**
   * The rewrite pipeline. A rewriter given here records nothing unless it was made with a recorder
   * (RewriterOptions.recorder); the default one offers to `recorder`. It feeds the console (ui:) only when
   * made with its observer; the default one is.
   */
  readonly rewriter?: Rewriter;
  /** Where `record:` results go (default: a recorder for the config; it follows reloads and is closed with the app). */
  readonly recorder?: Recorder;
  /** The secrets scrubber shared with the logger and the reloader (default: one for the config's secrets). */
  readonly redactor?: Redactor;
  /** How long close() lets in-flight requests finish before aborting them (ms, default 10 000). */
  readonly shutdownGraceMs?: number;
  /**
   * The config generations to serve (hot reload swaps them; see src/config/generations.ts). When given,
   * it is what the app serves and `loaded` is ignored; by default one is made from `loaded`.
   */
  readonly generations?: Generations;
  /** Tunables of stdio children (tests shorten them). */
  readonly stdio?: StdioOptions;
  /** OpenTelemetry (default: as the config's `telemetry:` block and the OTEL_* environment say). */
  readonly telemetry?: TelemetryRuntime;
  /** Reload the config file (serve's reloader): the console calls it after it wrote the file. */
  readonly reload?: () => Promise<ReloadReport>;
  /** Where the console's built pages are (tests; default `<package root>/dist/ui`). */
  readonly uiDir?: string;
}

const DEFAULT_GRACE_MS = 10_000;

/** The built app, with each upstream's routes (readiness, children) for tests and operations, and its gate. */
export type GatewayApp = FastifyInstance & { readonly upstreams: ReadonlyMap<string, UpstreamRoutes>; readonly gate: Gate };

export async function buildApp(loaded: LoadedConfig, options: BuildOptions = {}): Promise<GatewayApp> {
  const generations = options.generations ?? new Generations(loaded);
  const initial = generations.current.config;
  const redactor = options.redactor ?? new Redactor(initial.secrets);
  const logger = options.logger ?? createLogger({ redactor });
  const metrics = options.metrics ?? createMetrics();
  // Always made: a reload may turn recording on. It holds no timer or file until a sample arrives.
  const recorder = options.recorder ?? createRecorder(initial, metrics, logger);
  // Decided once at start, as telemetry: off, nothing of the console is made and no /ui route exists.
  const scrub = (text: string): string => redactor.scrub(text);
  const operatorConsole = initial.ui?.enabled === true ? new Console({ ui: initial.ui, generations, metrics, scrub, version: PACKAGE_VERSION }) : undefined;
  const recording = followGenerations(recorder, () => generations.current.config);
  const rewriter = options.rewriter ?? createRewriter(metrics, { recorder: recording, ...(operatorConsole && { observer: operatorConsole.observer }) });
  const inflight = new InFlight();
  const pools = new UpstreamPools();
  // Decided once at start (a reload does not turn it on or off): off, no OTel code runs on a request.
  const telemetry = options.telemetry ?? startTelemetry(initial.telemetry, PACKAGE_VERSION);
  const ctx: GatewayContext = {
    generations,
    logger,
    metrics,
    rewriter,
    sessions: new SessionTable({ metrics, ...(operatorConsole && { watch: operatorConsole.sessions }) }),
    pools,
    inflight,
    telemetry,
    scrub,
    ...(operatorConsole && { console: operatorConsole }),
  };

  // One HTTP stack: every request passes the gate (shutdown, guards, body limits, one failure path).
  const gate = new Gate({ generations, logger, metrics, bodyLimit: initial.limits.maxRequestBytes });
  const app = gatewayServer({ config: initial, logger, nextId: requestIds() });
  const consoleOptions = { ...(options.reload && { reload: options.reload }), ...(options.uiDir !== undefined && { uiDir: options.uiDir }) };
  const upstreams = registerRoutes(app, gate, ctx, { ...(options.stdio && { stdio: options.stdio }), console: consoleOptions });
  rewriter.prepare(generations.current.policies.values());

  // A reload that changed an upstream's tools tells that upstream's connected clients.
  const unsubscribe = generations.onToolsChanged((names) => {
    rewriter.prepare(generations.current.policies.values());
    for (const name of names) {
      const streams = upstreams.get(name)?.notifyToolsChanged() ?? 0;
      logger.info({ upstream: name, streams }, 'tools changed: notifications/tools/list_changed sent');
    }
  });

  const grace = options.shutdownGraceMs ?? DEFAULT_GRACE_MS;
  // New requests get 503 RETROFIT_ERR_SHUTTING_DOWN from here on (the gate answers them, whatever their route);
  // in-flight ones get `grace` to finish. Streams that never end by themselves (GET streams, listen streams,
  // legacy streams) end now.
  app.addHook('preClose', async () => {
    gate.close();
    await Promise.all([inflight.drain(grace), ...[...upstreams.values()].map((u) => u.drain(grace))]);
  });
  app.addHook('onClose', async () => {
    unsubscribe();
    await Promise.all([...upstreams.values()].map((u) => u.close()));
    await pools.close();
    await rewriter.close();
    // Last: every answer is in by now, so every sample was offered; close() writes what is queued.
    await recorder.close();
    await telemetry.shutdown().catch((err: unknown) => logger.warn({ err }, 'telemetry: the last spans could not be exported'));
  });

  app.decorate('upstreams', upstreams);
  app.decorate('gate', gate);
  await app.ready();
  return app as unknown as GatewayApp;
}
