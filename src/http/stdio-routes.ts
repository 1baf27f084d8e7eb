/**
 * Routes for stdio upstreams (`command:`): the gateway serves Streamable HTTP at the upstream's path and
 * owns the sessions; each session gets its own child process (src/upstream/stdio-*.ts).
 *
 * The route lives in its own encapsulated scope with its own JSON body parser, so protocol errors come back
 * as JSON-RPC error bodies from the registry in src/errors.ts whatever the app does with other routes.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import type { StdioUpstreamConfig } from '../config/types.js';
import { RetrofitError, type ErrorCode } from '../errors.js';
import { classifyBody, type ClassifiedBody } from '../jsonrpc/classify.js';
import { REVISIONS, eraOf, isRevision } from '../protocol/era.js';
import { TOOLS_LIST_CHANGED } from '../reload/notify.js';
import { StdioPool, type StdioOptions } from '../upstream/stdio-pool.js';
import type { GatewayDeps } from './deps.js';
import { authGuard, rebindingGuard } from './guards.js';

export type { StdioOptions } from '../upstream/stdio-pool.js';

export interface UpstreamRoutes {
  /** Ready-check for /readyz. */
  ready(): Promise<{ ok: boolean; detail?: string }>;
  /** Close sessions, children and streams (graceful shutdown). */
  close(): Promise<void>;
  /** After a reload changed this upstream's tools: send tools/list_changed on open server streams; returns how many. */
  notifyToolsChanged?(): number;
}

/** What a stdio upstream adds: visibility into its children (for tests and operations). */
export interface StdioUpstreamRoutes extends UpstreamRoutes {
  /** Pids of the child processes currently running. */
  pids(): number[];
  /** Number of open client sessions. */
  sessions(): number;
}

/** The revisions a stdio upstream serves: the session-based (pre-2026-07-28) ones, newest first. */
export const LEGACY_REVISIONS: readonly string[] = REVISIONS.filter((r) => eraOf(r) !== 'modern').reverse();

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The modern revision a session-less request claims (header or `_meta`), if any. */
function claimedModernRevision(protocolHeader: string | undefined, body: ClassifiedBody): string | undefined {
  if (isRevision(protocolHeader) && eraOf(protocolHeader) === 'modern') return protocolHeader;
  for (const m of body.messages) if (isRevision(m.metaRevision) && eraOf(m.metaRevision) === 'modern') return m.metaRevision;
  return undefined;
}

function sendError(reply: FastifyReply, code: ErrorCode, args: readonly unknown[] = [], id: string | number | null = null): FastifyReply {
  const err = new RetrofitError(code, args);
  return reply.code(err.status).type('application/json').send(err.toJsonRpc(id));
}

/**
 * The answer the v2 SDK client's version negotiation recognises (HTTP 400, JSON-RPC -32022 with
 * `data.supported` and `data.requested`): it then falls back to a legacy initialize on the same URL.
 */
function sendUnsupportedVersion(reply: FastifyReply, requested: string, body: ClassifiedBody): FastifyReply {
  const err = new RetrofitError('RETROFIT_ERR_UNSUPPORTED_VERSION', [requested, LEGACY_REVISIONS.join(', ')]);
  const only = body.batch ? undefined : body.messages[0];
  const id = only?.kind === 'request' && only.id !== undefined ? only.id : null;
  const error = { code: err.rpcCode, message: err.message, data: { code: err.code, supported: [...LEGACY_REVISIONS], requested } };
  return reply.code(err.status).type('application/json').send({ jsonrpc: '2.0', id, error });
}

/** Map body-parsing failures to registry errors. */
function mapError(error: FastifyError): { code: ErrorCode; args: unknown[] } {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'RETROFIT_ERR_BODY_TOO_LARGE', args: [] };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE', args: [] };
    default:
      return error.statusCode !== undefined && error.statusCode < 500 ? { code: 'RETROFIT_ERR_PARSE', args: [error.message] } : { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL', args: [] };
  }
}

export function registerStdioRoutes(app: FastifyInstance, upstream: StdioUpstreamConfig, deps: GatewayDeps, options: StdioOptions = {}): StdioUpstreamRoutes {
  const pool = new StdioPool(upstream, deps, options);
  const { metrics, config } = deps;
  const requestLog = deps.logger.child({ upstream: upstream.name });
  // Fastify waits for open connections before onClose hooks run, and a session's GET stream never ends by
  // itself: drain here, before the server closes.
  app.addHook('preClose', () => pool.drain(pool.shutdownGraceMs));

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: config.limits.maxRequestBytes }, (_req, text, done) => {
      try {
        done(null, JSON.parse(text as string));
      } catch (err) {
        done(new RetrofitError('RETROFIT_ERR_PARSE', [(err as Error).message], { cause: err }), undefined);
      }
    });
    scope.setErrorHandler((error: FastifyError, _req, reply) => {
      if (error instanceof RetrofitError) return sendError(reply, error.code, [error.message.replace(/^parse error: /, '')]);
      const mapped = mapError(error);
      if (mapped.code === 'RETROFIT_ERR_BODY_TOO_LARGE') mapped.args.push(config.limits.maxRequestBytes);
      return sendError(reply, mapped.code, mapped.args);
    });

    scope.route({
      method: ['GET', 'POST', 'DELETE'],
      url: upstream.path,
      // The same guards as HTTP upstreams: Host and Origin (DNS rebinding), then the gateway's bearer tokens.
      onRequest: [rebindingGuard(config), authGuard(config)],
      handler: async (req, reply) => {
        const body = req.method === 'POST' ? classifyBody(req.body) : { batch: false, messages: [] };
        const first = body.messages[0];
        const label = req.method !== 'POST' ? req.method : body.batch ? 'batch' : (first?.method ?? first?.kind ?? 'invalid');
        const sessionId = header(req.headers['mcp-session-id']);
        const started = performance.now();
        const tool = !body.batch && first?.method === 'tools/call' ? first.name : undefined;
        // One line and one count per HTTP exchange, as for proxied upstreams (src/http/proxy.ts).
        reply.raw.once('close', () => {
          const status = reply.raw.statusCode;
          metrics.requests.inc({ upstream: upstream.name, method: label, status });
          const outcome = !reply.raw.writableFinished ? 'aborted' : status >= 400 ? 'error' : 'ok';
          requestLog.info(
            { reqId: req.id, method: label, ...(tool !== undefined && { tool }), status, outcome, durationMs: Math.round(performance.now() - started), ...(sessionId !== undefined && { session: sessionId }) },
            'request',
          );
        });

        if (sessionId === undefined) {
          const modern = req.method === 'POST' ? claimedModernRevision(header(req.headers['mcp-protocol-version']), body) : undefined;
          if (modern !== undefined) return sendUnsupportedVersion(reply, modern, body);
          if (req.method === 'POST' && body.messages.some((m) => m.kind === 'request' && m.method === 'initialize')) {
            const session = pool.create();
            reply.hijack();
            await session.handle(req.raw, reply.raw, req.body);
            return reply;
          }
          return sendError(reply, 'RETROFIT_ERR_SESSION_REQUIRED');
        }
        const session = pool.get(sessionId);
        if (!session) return sendError(reply, 'RETROFIT_ERR_SESSION_NOT_FOUND');
        reply.hijack();
        await session.handle(req.raw, reply.raw, req.body);
        return reply;
      },
    });
  });

  return {
    ready: () => pool.ready(),
    close: () => pool.close(),
    notifyToolsChanged: () => pool.notifyAll(TOOLS_LIST_CHANGED),
    pids: () => pool.pids(),
    sessions: () => pool.size,
  };
}
