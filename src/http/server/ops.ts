/**
 * Operations endpoints: /healthz (the process serves), /readyz (every upstream answers; JSON per upstream),
 * /metrics (Prometheus text). Served through the gate like every route (no guards: they say nothing of the
 * upstreams' data).
 */
import type { FastifyInstance } from 'fastify';
import { HEALTHZ_PATH, METRICS_PATH, READYZ_PATH } from '../../config/routes.js';
import type { Metrics } from '../../metrics.js';
import type { UpstreamRoutes } from '../upstream-routes.js';
import { writeBody, writeJson } from '../write.js';
import type { Gate } from './gate.js';

/** /readyz body. */
export interface ReadyReport {
  readonly status: 'ready' | 'unavailable';
  readonly upstreams: Record<string, { readonly ok: boolean; readonly detail?: string }>;
}

const HEALTHY = Object.freeze({ status: 'ok' });

export function registerOpsRoutes(app: FastifyInstance, gate: Gate, metrics: Metrics, upstreams: ReadonlyMap<string, UpstreamRoutes>): void {
  gate.route(app, { method: 'GET', url: HEALTHZ_PATH, guards: 'none', handle: (_request, res) => writeJson(res, 200, HEALTHY) });

  gate.route(app, {
    method: 'GET',
    url: READYZ_PATH,
    guards: 'none',
    handle: async (_request, res) => {
      const entries = await Promise.all(
        [...upstreams].map(async ([name, routes]) => {
          try {
            return [name, await routes.ready()] as const;
          } catch (err) {
            return [name, { ok: false, detail: err instanceof Error ? err.message : String(err) }] as const;
          }
        }),
      );
      const report: ReadyReport = { status: entries.every(([, r]) => r.ok) ? 'ready' : 'unavailable', upstreams: Object.fromEntries(entries) };
      writeJson(res, report.status === 'ready' ? 200 : 503, report);
    },
  });

  gate.route(app, {
    method: 'GET',
    url: METRICS_PATH,
    guards: 'none',
    handle: async (_request, res) => {
      const text = await metrics.registry.metrics();
      writeBody(res, 200, { 'content-type': metrics.registry.contentType }, text);
    },
  });
}
