/**
 * Regression: clients controlled metric cardinality — the `method` label of requests_total was whatever
 * JSON-RPC method a client sent (5,001 label sets after 5,000 made-up methods), and a made-up
 * `MCP-Protocol-Version` became a `revision` label. Now labels are MCP methods and revisions the gateway
 * knows; anything else counts as `other`.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

describe('regression: metric labels a client chooses', () => {
  it('made-up methods and revisions count as `other`', async () => {
    const up = await listen((req, res) => {
      void readBody(req).then(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}'));
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`)]));
    for (let i = 0; i < 50; i++) {
      const answer = await fetch(gw.url('/remote/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': `2999-01-${String(i % 28 + 1).padStart(2, '0')}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: `made/up-${i}`, params: {} }),
      });
      await answer.arrayBuffer();
    }
    const text = await (await fetch(gw.url('/metrics'))).text();
    expect(text).not.toContain('made/up');
    expect(text).not.toContain('2999-01');
    expect(text).toContain('mcp_retrofit_requests_total{upstream="remote",method="other",status="200"} 50');
    expect(text).toContain('mcp_retrofit_protocol_revisions_total{upstream="remote",revision="other",source="header"} 50');
  });
});
