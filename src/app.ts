/**
 * buildApp: a loaded config → a ready Fastify instance (not yet listening). Tests and the CLI both call it.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import { Generations } from './config/generations.js';
import type { LoadedConfig } from './config/load.js';
import { RetrofitError } from './errors.js';
import { fastifyError } from './http/server/body.js';
import type { GatewayContext } from './http/context.js';
import { InFlight } from './http/server/inflight.js';
import { DirectLane, requestIds } from './http/server/lane.js';
import { INTERNAL_ERROR } from './http/write.js';
import { registerRoutes } from './http/routes.js';
import type { StdioOptions } from './http/front/stdio-routes.js';
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
   * (RewriterOptions.recorder); the default one offers to `recorder`.
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
}

const DEFAULT_GRACE_MS = 10_000;

/**
 * The server's timeouts (the server is made by the lane, so Fastify's own options for them do not apply):
 * Fastify's default keep-alive; no request timeout, since long-lived SSE streams must not be cut by Node's
 * default; no idle-socket timeout.
 */
const SERVER_TIMEOUTS = { keepAliveTimeout: 72_000, requestTimeout: 0, connectionTimeout: 0 } as const;

/**
 * The built app, with each upstream's routes (readiness, children) for tests and operations, and the direct
 * lane's count of the requests it took and whether shutdown began.
 */
export type GatewayApp = FastifyInstance & { readonly upstreams: ReadonlyMap<string, UpstreamRoutes>; readonly lane: { readonly taken: number; readonly closing: boolean } };

export async function buildApp(loaded: LoadedConfig, options: BuildOptions = {}): Promise<GatewayApp> {
  const generations = options.generations ?? new Generations(loaded);
  const initial = generations.current.config;
  const redactor = options.redactor ?? new Redactor(initial.secrets);
  const logger = options.logger ?? createLogger({ redactor });
  const metrics = options.metrics ?? createMetrics();
  // Always made: a reload may turn recording on. It holds no timer or file until a sample arrives.
  const recorder = options.recorder ?? createRecorder(initial, metrics, logger);
  const rewriter = options.rewriter ?? createRewriter(metrics, { recorder: followGenerations(recorder, () => generations.current.config) });
  const inflight = new InFlight();
  const pools = new UpstreamPools();
  const ctx: GatewayContext = {
    generations,
    logger,
    metrics,
    rewriter,
    sessions: new SessionTable({ metrics }),
    pools,
    inflight,
    scrub: (text) => redactor.scrub(text),
  };

  const nextId = requestIds();
  // Proxied upstreams' MCP POSTs that are plainly in order skip Fastify (src/http/server/lane.ts).
  const lane = new DirectLane({ generations, logger, bodyLimit: initial.limits.maxRequestBytes, nextId });
  const app = Fastify({
    serverFactory: (handler) => lane.server(handler, SERVER_TIMEOUTS),
    genReqId: nextId,
    // pino and Fastify disagree on one optional field of the logger type only.
    loggerInstance: logger as FastifyBaseLogger,
    // One line per exchange is logged by the routes themselves (src/http/server/exchange-log.ts, src/http/proxy/forward.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: initial.limits.maxRequestBytes,
    // Fastify force-closes connections only after the preClose hooks, i.e. after in-flight requests had
    // their grace period (see below). Without it a client's connection that never sent a request keeps
    // close() waiting until Node's headers timeout.
    forceCloseConnections: true,
    // avvio bounds every hook, close hooks included, by pluginTimeout (10 s by default): the drains bound
    // themselves, so no second, shorter bound.
    pluginTimeout: 0,
  });
  app.decorateRequest('generation', null);

  // One body parser for every route: bodies stay raw, are parsed once by the route, and the original bytes
  // are what goes upstream.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  // One error mapper: Fastify's own errors (too large, bad media type) as the gateway's registry errors.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = fastifyError(error, initial.limits.maxRequestBytes);
    if (!mapped) request.log.error({ err: error }, 'unhandled error');
    const status = mapped?.status ?? 500;
    const body = mapped?.toJsonRpc() ?? INTERNAL_ERROR;
    void reply.code(status).type('application/json').send(body);
  });

  const upstreams = registerRoutes(app, ctx, lane, options.stdio ? { stdio: options.stdio } : {});
  rewriter.prepare(generations.current.policies.values());

  // Anything no route serves still gets a JSON-RPC error: 405 (with Allow) on an upstream's path, else 404.
  const allowed = new Map<string, string>();
  for (const u of Object.values(initial.upstreams)) {
    allowed.set(u.path, 'GET, POST, DELETE');
    if (u.kind === 'sse') allowed.set(`${u.path.replace(/\/$/, '')}/message`, 'POST');
  }
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const allow = allowed.get(path);
    const error = allow ? new RetrofitError('RETROFIT_ERR_METHOD_NOT_ALLOWED', [request.method]) : new RetrofitError('RETROFIT_ERR_NOT_FOUND', [`${request.method} ${path}`]);
    if (allow) void reply.header('allow', allow);
    void reply.code(error.status).type('application/json').send(error.toJsonRpc());
  });

  // A reload that changed an upstream's tools tells that upstream's connected clients.
  const unsubscribe = generations.onToolsChanged((names) => {
    rewriter.prepare(generations.current.policies.values());
    for (const name of names) {
      const streams = upstreams.get(name)?.notifyToolsChanged() ?? 0;
      logger.info({ upstream: name, streams }, 'tools changed: notifications/tools/list_changed sent');
    }
  });

  const grace = options.shutdownGraceMs ?? DEFAULT_GRACE_MS;
  // New requests get 503 RETROFIT_ERR_SHUTTING_DOWN from here on (the lane answers them, whatever their route);
  // in-flight ones get `grace` to finish. Streams that never end by themselves (GET streams, listen streams,
  // legacy streams) end now.
  app.addHook('preClose', async () => {
    lane.close();
    await Promise.all([inflight.drain(grace), ...[...upstreams.values()].map((u) => u.drain(grace))]);
  });
  app.addHook('onClose', async () => {
    unsubscribe();
    await Promise.all([...upstreams.values()].map((u) => u.close()));
    await pools.close();
    await rewriter.close();
    // Last: every answer is in by now, so every sample was offered; close() writes what is queued.
    await recorder.close();
  });

  app.decorate('upstreams', upstreams);
  app.decorate('lane', lane);
  await app.ready();
  return app as unknown as GatewayApp;
}
