/**
 * Regression: an upstream that sent a JSON answer's headers and then stalled (a Content-Length larger than
 * what it sends, a chunked body that stops, the socket left open) held its client forever: the gateway holds
 * such a body whole to rewrite it, and nothing bounded how long the rest may take. Now the rest must arrive
 * within the upstream's timeoutMs: then the upstream request is aborted, the client gets 504
 * RETROFIT_ERR_UPSTREAM_TIMEOUT, and the failure counts as the upstream's timeout.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

const TOOLS = { typed: { outputSchema: { type: 'object' } } } as const;

describe('regression: a JSON answer whose body stalls after its headers', () => {
  for (const [name, headers] of [
    ['a Content-Length larger than the body', { 'content-length': '4096' }],
    ['a chunked body that stops', {}],
  ] as const) {
    it(`${name}: 504 RETROFIT_ERR_UPSTREAM_TIMEOUT after timeoutMs, counted as the upstream's timeout`, async () => {
      let closed = false;
      const up = await listen((req, res) => {
        void readBody(req).then(() => {
          res.writeHead(200, { 'content-type': 'application/json', ...headers });
          res.write('{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\\"a\\"');
          res.on('close', () => (closed = true));
        });
      });
      const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`, { tools: TOOLS, timeoutMs: 500 })]));
      const answer = await fetch(gw.url('/remote/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'typed', arguments: {} } }),
      });
      expect(answer.status).toBe(504);
      expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', id: 3, error: { data: { code: 'RETROFIT_ERR_UPSTREAM_TIMEOUT' } } });
      expect((await gw.metrics.upstreamErrors.get()).values).toMatchObject([{ labels: { upstream: 'remote', kind: 'timeout' }, value: 1 }]);
      // The upstream request was aborted, not left open.
      await expect.poll(() => closed).toBe(true);
    });
  }
});
