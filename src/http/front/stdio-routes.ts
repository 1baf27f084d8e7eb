/**
 * Routes for stdio upstreams (`command:`): the gateway serves Streamable HTTP on the upstream's path and owns
 * the sessions (src/http/front/), each with its own child process over a stdio link.
 */
import type { FastifyInstance } from 'fastify';
import type { StdioUpstreamConfig } from '../../config/types.js';
import { checkSpawnable, childCwd, childEnv } from '../../upstream/stdio-env.js';
import { StdioLink } from '../../upstream/stdio-link.js';
import { SharedStdio } from '../../upstream/shared-stdio.js';
import type { Logger } from '../../log.js';
import { snapshot, type GatewayContext, type Snapshot } from '../context.js';
import { registerFront } from './route.js';
import type { Gate } from '../server/gate.js';
import { TOOLS_LIST_CHANGED } from '../../protocol/list-changed.js';
import type { StdioUpstreamRoutes } from '../upstream-routes.js';

/** Tunables of stdio children; all have defaults. */
export interface StdioOptions {
  /** Grace between SIGTERM and SIGKILL when stopping a child (default 5 s). */
  readonly killTimeoutMs?: number;
  /** Overrides the upstream's idleTimeoutMs (tests). */
  readonly idleTimeoutMs?: number;
  /** Keep-alive interval of waiting answers and open streams (default 15 s; tests shorten it). */
  readonly keepAliveMs?: number;
}

export const STDIO_DEFAULTS = Object.freeze({ killTimeoutMs: 5_000 });

export function registerStdioRoutes(app: FastifyInstance, gate: Gate, name: string, ctx: GatewayContext, options: StdioOptions = {}): StdioUpstreamRoutes {
  let lastSpawnFailure: string | undefined;
  // share: true — one child for every session, made on first use. A reload that changes how the child is
  // started gives later sessions a new child; sessions already attached keep theirs until they end.
  let shared: { readonly key: string; readonly child: SharedStdio } | undefined;
  const stdio = (snap: Snapshot): StdioUpstreamConfig => snap.upstream as StdioUpstreamConfig;
  const { sessions, modern } = registerFront(
    app,
    gate,
    {
      name,
      path: snapshot(ctx, name).upstream.path,
      link(snap, _headers, sessionLog) {
        const upstream = stdio(snap);
        // share: true — every session's link is a view of one child (src/upstream/shared-stdio.ts), which
        // logs to the upstream's logger rather than to the session that happened to spawn it.
        const spawn = (log: Logger): StdioLink => new StdioLink({
          upstream: name,
          command: upstream.command,
          args: upstream.args,
          env: childEnv(upstream),
          cwd: childCwd(upstream, snap.loaded.config),
          maxLineBytes: snap.loaded.config.limits.maxResultBytes,
          stderrLevel: upstream.stderr,
          killTimeoutMs: options.killTimeoutMs ?? STDIO_DEFAULTS.killTimeoutMs,
          log,
          scrub: ctx.scrub,
          onStarted: (pid) => {
            lastSpawnFailure = undefined;
            ctx.metrics.children.inc({ upstream: name });
            log.info({ pid, command: upstream.command }, 'upstream child started');
          },
          onEnded: (closed, pid) => {
            if (pid !== undefined) ctx.metrics.children.dec({ upstream: name });
            if (closed.kind === 'spawn') lastSpawnFailure = closed.stderr ? `${closed.reason}: ${closed.stderr}` : closed.reason;
            if (closed.kind === 'requested') log.info({ pid, reason: closed.reason }, 'upstream child stopped');
          },
        });
        if (!upstream.share) return spawn(sessionLog);
        const key = JSON.stringify([upstream.command, upstream.args, childEnv(upstream), childCwd(upstream, snap.loaded.config), snap.loaded.config.limits.maxResultBytes]);
        if (shared?.key !== key) {
          const sharedLog = ctx.logger.child({ upstream: name });
          shared = {
            key,
            child: new SharedStdio({
              upstream: name,
              log: sharedLog,
              demux: (data) => ctx.rewriter.demux(data, sharedLog),
              maxHeldBytes: snap.loaded.config.limits.maxResultBytes,
              oncutoff: () => ctx.metrics.slowClients.inc({ upstream: name }),
            }),
          };
        }
        return shared.child.attach(sessionLog, spawn);
      },
      maxSessions: (snap) => stdio(snap).maxSessions,
      idleTimeoutMs: (snap) => options.idleTimeoutMs ?? stdio(snap).idleTimeoutMs,
      bridge: (snap) => snap.upstream.bridge,
      stateless: (snap) => stdio(snap).stateless,
      ...(options.keepAliveMs !== undefined && { keepAliveMs: options.keepAliveMs }),
    },
    ctx,
  );

  const routes: StdioUpstreamRoutes = {
    async ready() {
      const snap = snapshot<StdioUpstreamConfig>(ctx, name);
      const upstream = snap.upstream;
      const check = await checkSpawnable(upstream.command, childCwd(upstream, snap.loaded.config), childEnv(upstream));
      if (!check.ok) return check;
      if (lastSpawnFailure !== undefined) return { ok: false, detail: `last spawn failed: ${lastSpawnFailure}` };
      return { ok: true };
    },
    notifyToolsChanged: () => sessions.notifyAll(JSON.stringify(TOOLS_LIST_CHANGED)) + modern.notifyAll(JSON.stringify(TOOLS_LIST_CHANGED)),
    drain: async (graceMs) => {
      await Promise.all([sessions.drain(graceMs), modern.close()]);
    },
    close: async () => {
      await Promise.all([sessions.closeAll('shutting down'), modern.close()]);
    },
    // One entry per child: sessions of a shared child report its pid once; the pool's children too.
    pids: () => [...new Set([...sessions.all().flatMap((s) => (s.owned.link.pid === undefined ? [] : [s.owned.link.pid])), ...modern.pids()])],
    sessions: () => sessions.size,
    counts: () => ({ ...sessions.counts(), ...modern.counts(), children: routes.pids().length }),
  };
  return routes;
}
