import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { requestLines, startGateway } from '../helpers/gateway.js';
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

  it('before its body was in: the exchange is still logged and counted once, as aborted (status 0)', async () => {
    let asked = 0;
    const upstream = await listen((_req, res) => {
      asked += 1;
      res.writeHead(500).end();
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${upstream.origin}/mcp`)]));
    const socket = connect(Number(new URL(gw.origin).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write('POST /up/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"jsonrpc":', () => socket.destroy());
    await vi.waitFor(() => expect(requestLines(gw.logs)).toHaveLength(1));
    expect(requestLines(gw.logs)[0]).toMatchObject({ upstream: 'up', method: 'POST', status: 0, aborted: true });
    expect(await (await fetch(gw.url('/metrics'))).text()).toMatch(/^mcp_retrofit_requests_total\{upstream="up",method="POST",status="0"\} 1$/m);
    expect(asked).toBe(0);
  });
});
