import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/listen.js';

describe('an unreachable upstream', () => {
  it('gives 502 with a JSON-RPC error naming it, logged and counted', async () => {
    const port = await freePort();
    const gw = await startGateway(gatewayConfig([httpUpstream('gone', `http://127.0.0.1:${port}/mcp`)]));
    const res = await fetch(gw.url('/gone/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'tools/list' }),
    });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 42,
      error: { code: -32000, message: 'upstream "gone" is unreachable', data: { code: 'RETROFIT_ERR_UPSTREAM_UNREACHABLE' } },
    });
    const warn = gw.logs.find((l) => l.code === 'RETROFIT_ERR_UPSTREAM_UNREACHABLE');
    expect(warn).toMatchObject({ upstream: 'gone', kind: 'unreachable', method: 'tools/list' });
    expect((warn?.err as { message?: string } | undefined)?.message).toBeTruthy();
    expect(await gw.metrics.registry.getSingleMetricAsString('mcp_retrofit_upstream_errors_total')).toContain(
      'mcp_retrofit_upstream_errors_total{upstream="gone",kind="unreachable"} 1',
    );

    // A GET stream has no JSON-RPC id to answer with: id null.
    const get = await fetch(gw.url('/gone/mcp'), { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(502);
    expect(((await get.json()) as { id: unknown }).id).toBeNull();

    const ready = await fetch(gw.url('/readyz'));
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'unavailable', upstreams: { gone: { ok: false } } });
  });
});
