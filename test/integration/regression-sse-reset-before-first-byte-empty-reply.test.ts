/**
 * Regression: a tools/call answered over SSE that the upstream reset before any event reached the client got
 * an empty reply — not even a status line — instead of a JSON-RPC error. Now a failed SSE relay answers every
 * request of its exchange still awaited with an event of its own (RETROFIT_ERR_UPSTREAM_RESET) whenever no
 * event was cut short, and ends the stream cleanly.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

const TOOLS = { typed: { outputSchema: { type: 'object' } } } as const;

describe('regression: an SSE answer reset before its first event', () => {
  for (const [name, start] of [
    ['headers only', ''],
    ['half an event', 'event: message\ndata: {"result":{"conte'],
  ] as const) {
    it(`${name}: the call gets RETROFIT_ERR_UPSTREAM_RESET as an SSE event, counted as the upstream's reset`, async () => {
      const up = await listen((req, res) => {
        void readBody(req).then(() => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.flushHeaders();
          res.write(start, () => res.socket?.destroy());
        });
      });
      const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`, { tools: TOOLS })]));
      const answer = await fetch(gw.url('/remote/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'typed', arguments: {} } }),
      });
      expect(answer.status).toBe(200);
      const text = await answer.text();
      const data = text.split('\n').find((l) => l.startsWith('data: '));
      expect(JSON.parse(data!.slice(6))).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32000, data: { code: 'RETROFIT_ERR_UPSTREAM_RESET' } } });
      expect((await gw.metrics.upstreamErrors.get()).values).toMatchObject([{ labels: { upstream: 'remote', kind: 'reset' }, value: 1 }]);
    });
  }
});
