/**
 * Operations endpoints: /healthz (the process serves), /readyz (every upstream answers; JSON per upstream),
 * /metrics (Prometheus text).
 */
import type { FastifyInstance } from 'fastify';
import type { GatewayContext } from '../context.js';
import type { UpstreamRoutes } from '../upstream-routes.js';

/** /readyz body. */
export interface ReadyReport {
  readonly status: 'ready' | 'unavailable';
  readonly upstreams: Record<string, { readonly ok: boolean; readonly detail?: string }>;
}

export function registerOpsRoutes(app: FastifyInstance, deps: GatewayContext, upstreams: ReadonlyMap<string, UpstreamRoutes>): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const entries = await Promise.all(
      [...upstreams].map(async ([name, routes]) => {
        try {
          return [name, await routes.ready()] as const;
        } catch (err) {
          return [name, { ok: false, detail: err instanceof Error ? err.message : String(err) }] as const;
        }
      }),
    );
    const report: ReadyReport = {
      status: entries.every(([, r]) => r.ok) ? 'ready' : 'unavailable',
      upstreams: Object.fromEntries(entries),
    };
    return reply.code(report.status === 'ready' ? 200 : 503).send(report);
  });

  app.get('/metrics', async (_request, reply) => {
    const text = await deps.metrics.registry.metrics();
    return reply.type(deps.metrics.registry.contentType).send(text);
  });
}
