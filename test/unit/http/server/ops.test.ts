import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../../../helpers/config.js';
import { startGateway } from '../../../helpers/gateway.js';
import { listen, readBody } from '../../../helpers/listen.js';

describe('operations endpoints', () => {
  it('/healthz is 200; /readyz reports each upstream; /metrics counts requests, latency and revisions', async () => {
    const up = await listen((req, res) => {
      void readBody(req).then(() => res.writeHead(req.method === 'HEAD' ? 405 : 200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('a', `${up.origin}/mcp`), httpUpstream('b', `${up.origin}/other`)]));

    const health = await fetch(gw.url('/healthz'));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const ready = await fetch(gw.url('/readyz'));
    expect(ready.status).toBe(200);
    // Any HTTP answer means reachable, even a 405 to the probe.
    expect(await ready.json()).toEqual({ status: 'ready', upstreams: { a: { ok: true, detail: 'HTTP 405' }, b: { ok: true, detail: 'HTTP 405' } } });

    await fetch(gw.url('/a/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2025-06-18' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    const metrics = await fetch(gw.url('/metrics'));
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metrics.text();
    expect(text).toContain('mcp_retrofit_requests_total{upstream="a",method="ping",status="200"} 1');
    expect(text).toContain('mcp_retrofit_upstream_latency_seconds_count{upstream="a",method="ping"} 1');
    expect(text).toContain('mcp_retrofit_protocol_revisions_total{upstream="a",revision="2025-06-18",source="header"} 1');
  });
});
