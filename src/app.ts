/**
 * buildApp: a loaded config → a ready Fastify instance (not yet listening). Tests and the CLI both call it.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { LoadedConfig } from './config/load.js';
import { RetrofitError } from './errors.js';
import type { GatewayDeps } from './http/deps.js';
import { InFlight } from './http/inflight.js';
import { registerRoutes } from './http/routes.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { createRewriter, type Rewriter } from './pipeline/rewrite.js';
import { Generations } from './reload/generations.js';
import { PendingRequests } from './session/pending.js';
import { SessionFacts } from './session/sessions.js';
import { UpstreamPools } from './upstream/http.js';

/** Optional collaborators; tests pass their own to observe or replace them. */
export interface BuildOptions {
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly rewriter?: Rewriter;
  /** How long close() lets in-flight requests finish before aborting them (ms, default 10 000). */
  readonly shutdownGraceMs?: number;
  /**
   * The config generations to serve (hot reload swaps them; see src/reload/generations.ts). When given,
   * it is what the app serves and `loaded` is ignored; by default one is made from `loaded`.
   */
  readonly generations?: Generations;
}

const DEFAULT_GRACE_MS = 10_000;

export async function buildApp(loaded: LoadedConfig, options: BuildOptions = {}): Promise<FastifyInstance> {
  // Routes read the config and policies through live views of the current generation.
  const generations = options.generations ?? new Generations(loaded);
  const { config, policies } = generations;
  const logger = options.logger ?? createLogger({ secrets: config.secrets });
  const metrics = options.metrics ?? createMetrics();
  const rewriter = options.rewriter ?? createRewriter(policies, metrics);
  const deps: GatewayDeps = { config, policies, logger, metrics, rewriter };

  const app = Fastify({
    // pino and Fastify disagree on one optional field of the logger type only.
    loggerInstance: logger as FastifyBaseLogger,
    // One line per exchange is logged by the proxy itself (upstream, method, tool, status, duration).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.limits.maxRequestBytes,
    // Long-lived SSE streams must not be cut by Node's defaults.
    requestTimeout: 0,
    // Fastify force-closes connections only after the preClose hooks, i.e. after in-flight requests had
    // their grace period (see below). Without it a client's connection that never sent a request keeps
    // close() waiting until Node's headers timeout.
    forceCloseConnections: true,
    // avvio bounds every hook, close hooks included, by pluginTimeout (10 s by default): a preClose drain
    // that used its whole grace period (10 s by default) failed close() and cut pending calls off instead
    // of answering them. The drains bound themselves, so no second, shorter bound.
    pluginTimeout: 0,
  });

  // Bodies stay raw: parsed once by the proxy, and the original bytes go upstream.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped =
      error.statusCode === 413
        ? new RetrofitError('RETROFIT_ERR_BODY_TOO_LARGE', [config.limits.maxRequestBytes], { cause: error })
        : error.statusCode === 415
          ? new RetrofitError('RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE', [], { cause: error })
          : error.statusCode !== undefined && error.statusCode < 500
            ? new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', [error.message], { cause: error })
            : undefined;
    if (!mapped) request.log.error({ err: error }, 'unhandled error');
    const status = mapped?.status ?? 500;
    const body = mapped?.toJsonRpc() ?? { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'internal error' } };
    void reply.code(status).type('application/json').send(body);
  });

  const pools = new UpstreamPools();
  const inflight = new InFlight();
  const state = {
    pending: new PendingRequests(),
    facts: new SessionFacts({ metrics }),
    rewriter,
  };
  const upstreams = registerRoutes(app, deps, { pools, state, inflight });

  // Anything no route serves still gets a JSON-RPC error: 405 (with Allow) on an upstream's path, else 404.
  const allowed = new Map<string, string>();
  for (const u of Object.values(config.upstreams)) {
    if (u.kind === 'sse') allowed.set(u.path, 'GET').set(`${u.path}/message`, 'POST');
    else allowed.set(u.path, 'GET, POST, DELETE');
  }
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const allow = allowed.get(path);
    const error = allow
      ? new RetrofitError('RETROFIT_ERR_METHOD_NOT_ALLOWED', [request.method])
      : new RetrofitError('RETROFIT_ERR_NOT_FOUND', [`${request.method} ${path}`]);
    if (allow) void reply.header('allow', allow);
    void reply.code(error.status).type('application/json').send(error.toJsonRpc());
  });
  // A reload that changed an upstream's tools tells that upstream's connected clients.
  const unsubscribe = generations.onToolsChanged((names) => {
    for (const name of names) {
      const streams = upstreams.get(name)?.notifyToolsChanged?.() ?? 0;
      logger.info({ upstream: name, streams }, 'tools changed: notifications/tools/list_changed sent');
    }
  });

  const grace = options.shutdownGraceMs ?? DEFAULT_GRACE_MS;
  // New requests already get 503 here (Fastify is closing); in-flight ones get `grace` to finish.
  app.addHook('preClose', async () => {
    await inflight.drain(grace);
  });
  app.addHook('onClose', async () => {
    unsubscribe();
    await Promise.all([...upstreams.values()].map((u) => u.close()));
    await pools.close();
  });

  await app.ready();
  return app;
}
