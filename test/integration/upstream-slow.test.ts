import { describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/listen.js';

describe('an upstream slower than timeoutMs', () => {
  it('gives 504 with a JSON-RPC error, and the upstream request is abandoned', async () => {
    const held: ServerResponse[] = [];
    let closed!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    const upstream = await listen((_req, res) => {
      // Never answers; the gateway's headers timeout must fire.
      held.push(res);
      res.on('close', closed);
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('slow', `${upstream.origin}/mcp`, { timeoutMs: 150 })]));
    const res = await fetch(gw.url('/slow/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'wait' } }),
    });
    expect(res.status).toBe(504);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      error: { code: -32001, message: 'upstream "slow" did not answer within 150ms', data: { code: 'RETROFIT_ERR_UPSTREAM_TIMEOUT' } },
    });
    await upstreamClosed;
    expect(held).toHaveLength(1);
    expect(await gw.metrics.registry.getSingleMetricAsString('mcp_retrofit_upstream_errors_total')).toContain('kind="timeout"} 1');
    expect(gw.logs.find((l) => l.msg === 'request')).toMatchObject({ upstream: 'slow', method: 'tools/call', tool: 'wait', status: 504 });
  });
});
