import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/listen.js';

describe('a client that disconnects mid-stream', () => {
  it('aborts the upstream request (GET stream and POST stream), and the gateway stays healthy', async () => {
    const closes: string[] = [];
    let notify: () => void = () => {};
    const upstream = await listen((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\n\n');
      res.on('close', () => {
        closes.push(`${req.method} ${res.writableEnded ? 'ended' : 'aborted'}`);
        notify();
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${upstream.origin}/mcp`)]));

    for (const method of ['GET', 'POST'] as const) {
      const upstreamClosed = new Promise<void>((resolve) => (notify = resolve));
      const controller = new AbortController();
      const res = await fetch(gw.url('/up/mcp'), {
        method,
        signal: controller.signal,
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': 's' },
        ...(method === 'POST' && { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'long' } }) }),
      });
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(Buffer.from(first.value!).toString()).toContain('notifications/message');
      controller.abort();
      await upstreamClosed;
    }
    expect(closes).toEqual(['GET aborted', 'POST aborted']);
    expect((await fetch(gw.url('/healthz'))).status).toBe(200);
  });
});
