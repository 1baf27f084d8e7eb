/**
 * Regression: the same failure ended differently on the two HTTP paths — a Fastify route that had hijacked its
 * reply and then rejected left the response open forever, while the direct lane wrote a 500 or destroyed the
 * socket. Now every route is entered through the one gate, with one failure path: a handler that throws or
 * rejects before answering gets 500 RETROFIT_ERR_INTERNAL (which tells the client nothing of the bug), one
 * that fails after its headers went out has its connection ended, and each is logged with its cause.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Generations } from '../../src/config/generations.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { gatewayServer } from '../../src/http/server/create.js';
import { Gate } from '../../src/http/server/gate.js';
import { requestIds } from '../../src/http/server/ids.js';
import { gatewayConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/gateway.js';

async function serve(): Promise<{ origin: string; lines: Record<string, unknown>[] }> {
  const loaded = gatewayConfig([]);
  const { lines, stream } = captureLogs();
  const logger = createLogger({ destination: stream });
  const gate = new Gate({ generations: new Generations(loaded), logger, metrics: createMetrics({ defaultMetrics: false }), bodyLimit: 1024 });
  const app = gatewayServer({ config: loaded.config, logger, nextId: requestIds() });
  gate.route(app, {
    method: 'GET',
    url: '/throws',
    guards: 'none',
    handle: () => {
      throw new Error('sync bug');
    },
  });
  gate.route(app, { method: 'POST', url: '/rejects', guards: 'none', handle: async () => Promise.reject(new Error('async bug')) });
  gate.route(app, {
    method: 'GET',
    url: '/midway',
    guards: 'none',
    handle: async (_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': started\n\n');
      await new Promise<void>((resolve) => setImmediate(resolve));
      throw new Error('late bug');
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  onTestFinished(() => app.close());
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { origin: `http://127.0.0.1:${address.port}`, lines };
}

describe('regression: a route handler that fails', () => {
  it('throws or rejects before answering: 500 RETROFIT_ERR_INTERNAL, logged with its cause', async () => {
    const { origin, lines } = await serve();
    for (const [method, path] of [['GET', '/throws'], ['POST', '/rejects']] as const) {
      const answer = await fetch(`${origin}${path}`, { method, ...(method === 'POST' && { body: '{}', headers: { 'content-type': 'application/json' } }) });
      expect(answer.status).toBe(500);
      expect(await answer.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'internal error: the gateway failed to answer this request', data: { code: 'RETROFIT_ERR_INTERNAL' } } });
    }
    const errors = lines.filter((l) => l.msg === 'unhandled error').map((l) => (l.err as { message?: string }).message);
    expect(errors).toEqual(['sync bug', 'async bug']);
  });

  it('fails after its headers went out: the connection ends (never left open)', async () => {
    const { origin, lines } = await serve();
    const answer = await fetch(`${origin}/midway`);
    expect(answer.status).toBe(200);
    await expect(answer.text()).rejects.toThrow();
    expect(lines.some((l) => l.msg === 'unhandled error' && (l.err as { message?: string }).message === 'late bug')).toBe(true);
  });
});
