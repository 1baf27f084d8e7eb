/**
 * Regression: a `url:` upstream that redirected its MCP endpoint (a Starlette/FastMCP server sends 307 from
 * `/mcp` to `/mcp/`) had its redirect passed to the client as it came: its Location names the upstream's own
 * address, so a client that follows it leaves the gateway (no retrofit, no auth, no Origin check), and one that
 * does not (the SDK clients refuse a cross-origin redirect) fails without a word on why. Now the client gets
 * RETROFIT_ERR_UPSTREAM_PROTOCOL and the log names where the upstream points.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/listen.js';

describe('regression: an upstream that redirects its MCP endpoint', () => {
  it('gets the client an error, never the upstream\'s Location; the log says where it points', async () => {
    const { origin } = await listen((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(307, { location: `${origin}/mcp/` }).end());
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${origin}/mcp`)]));
    const res = await fetch(gw.url('/up/mcp'), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(res.status).toBe(502);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32002, data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } } });
    expect(JSON.stringify(gw.logs)).toContain(`redirecting to ${origin}/mcp/: point url: there`);
  });
});
