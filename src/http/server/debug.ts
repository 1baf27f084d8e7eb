import { getHeapSpaceStatistics } from 'node:v8';
/**
 * GET /debug/retrofit: what the gateway holds right now, counted from inside, for the fault suite
 * (test/faults/) to prove that nothing outlives its session — sessions (the proxied session table, each
 * upstream's gateway-owned sessions and legacy connections), their pending requests and answer streams,
 * exchanges in flight, relayed server streams, child processes, timers (unref'd ones included), the
 * event loop's active handles, listeners on the process and the server, metric series, and memory.
 *
 * Off unless the process was started with MCP_RETROFIT_DEBUG=1, and then served to loopback peers only
 * (anyone else gets the 404 of a route that is not there). `?gc=1` runs a full collection first when the
 * process was started with --expose-gc, so `memory.rss` can be compared with a baseline.
 *
 * Timers: process.getActiveResourcesInfo() lists only timers that keep the loop alive; most of the
 * gateway's are unref'd. An async hook sees every Timeout when it is made; one is live until it fired
 * (one-shot) or was cleared, which Node marks on the object (`_destroyed`). The hook watches init only,
 * and exists only in a debug process.
 */
import { createHook } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import { DEBUG_PATH } from '../../config/routes.js';
import { RetrofitError } from '../../errors.js';
import type { GatewayContext } from '../context.js';
import type { UpstreamRoutes } from '../upstream-routes.js';
import { writeError, writeJson } from '../write.js';
import type { Gate } from './gate.js';
import { isLoopbackAddress } from './guards.js';

/** The route (reserved in the config whether served or not). */
export { DEBUG_PATH };

/** True when the process was started to serve the debug endpoint. */
export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.MCP_RETROFIT_DEBUG === '1';
}

/** What Node keeps on a Timeout (internal, stable since Node 0.x): set once it fired or was cleared; its delay. */
interface TimeoutLike {
  _destroyed?: boolean;
  _idleTimeout?: number;
  _repeat?: number | null;
}

/** Every Timeout made since the hook was installed that has not yet fired or been cleared. */
class TimerCount {
  #live = new Set<TimeoutLike>();
  #made = 0;
  readonly #hook = createHook({
    init: (_id, type, _trigger, resource) => {
      if (type !== 'Timeout') return;
      this.#live.add(resource as TimeoutLike);
      // Forget finished timers now and then, so what the count holds does not keep closures alive.
      if (++this.#made % 4096 === 0) this.live();
    },
  });

  constructor() {
    this.#hook.enable();
  }

  /** Stop watching (the app closed). */
  stop(): void {
    this.#hook.disable();
    this.#live.clear();
  }

  live(): number {
    for (const timer of this.#live) if (timer._destroyed === true) this.#live.delete(timer);
    return this.#live.size;
  }

  /** The live timers by delay (`every 15000ms` for intervals): which kind of timer a leak is made of. */
  byDelay(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const timer of this.#live) {
      const key = `${timer._repeat ? 'every ' : ''}${String(timer._idleTimeout)}ms`;
      out[key] = (out[key] ?? 0) + 1;
    }
    return out;
  }
}

/** How many of each active resource type (TCPSocketWrap, ProcessWrap, PipeWrap, Timeout, …). */
function activeResources(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) out[type] = (out[type] ?? 0) + 1;
  return out;
}

function listenerTotal(emitter: NodeJS.EventEmitter): number {
  let n = 0;
  for (const name of emitter.eventNames()) n += emitter.listenerCount(name);
  return n;
}

/** Register the endpoint when MCP_RETROFIT_DEBUG=1 (else nothing, not even the timer hook). */
export function registerDebugRoutes(app: FastifyInstance, gate: Gate, ctx: GatewayContext, upstreams: ReadonlyMap<string, UpstreamRoutes>): void {
  if (!debugEnabled()) return;
  const timers = new TimerCount();
  app.addHook('onClose', async () => timers.stop());
  const gc = (globalThis as { gc?: () => void }).gc;
  gate.route(app, {
    method: 'GET',
    url: DEBUG_PATH,
    guards: 'none',
    handle: async (request, res) => {
      if (!isLoopbackAddress(request.socket.remoteAddress ?? '')) return writeError(res, new RetrofitError('RETROFIT_ERR_NOT_FOUND', [`GET ${DEBUG_PATH}`]));
      // Count first: finished timers are let go before a collection, which then frees what they held.
      const live = timers.live();
      const collect = new URLSearchParams(request.query).get('gc') === '1' && gc !== undefined;
      if (collect) gc();
      const series = (await ctx.metrics.registry.getMetricsAsJSON()).reduce((n, metric) => n + metric.values.length, 0);
      const memory = process.memoryUsage();
      writeJson(res, 200, {
        pid: process.pid,
        gc: collect,
        memory: { spaces: Object.fromEntries(getHeapSpaceStatistics().filter((s) => s.space_size > 0).map((s) => [s.space_name, Math.round(s.space_size / 1e6)])), rss: memory.rss, heapUsed: memory.heapUsed, heapTotal: memory.heapTotal, external: memory.external, arrayBuffers: memory.arrayBuffers },
        timers: live,
        timersByDelay: timers.byDelay(),
        resources: activeResources(),
        listeners: { process: listenerTotal(process), server: listenerTotal(app.server) },
        inflight: ctx.inflight.size,
        proxiedSessions: ctx.sessions.size,
        proxiedPending: ctx.sessions.pending(),
        metricSeries: series,
        upstreams: Object.fromEntries([...upstreams].map(([name, routes]) => [name, routes.counts?.() ?? {}])),
      });
    },
  });
}
