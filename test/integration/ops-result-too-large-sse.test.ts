/**
 * limits.maxResultBytes on SSE answers: an upstream that answers a tools/call with an SSE event larger than
 * the limit (here, one that never ends) gets the client a clean RESULT_TOO_LARGE JSON-RPC error event for
 * that request, never a truncated message, and the gateway stops reading the upstream. Events of a stream
 * that carries nothing to rewrite are not bounded (as for JSON bodies).
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { DEFAULT_LIMITS } from '../../src/config/types.js';

describe('an SSE event over limits.maxResultBytes', () => {
  it('becomes an error event for the waiting request, and the upstream stream is dropped', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    const big = JSON.stringify({ jsonrpc: '2.0', id: 9, result: { contents: [{ uri: 'x', text: 'y'.repeat(3000) }] } });
    const upstream = await listen((req, res) => {
      void readBody(req).then((body) => {
        const { method } = JSON.parse(body.toString('utf8')) as { method: string };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (method === 'resources/read') {
          res.end(`event: message\ndata: ${big}\n\n`);
          return;
        }
        // tools/call: an event that keeps growing and never ends.
        res.write('event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"');
        const timer = setInterval(() => res.write('z'.repeat(512)), 1);
        res.on('close', () => {
          clearInterval(timer);
          upstreamClosed();
        });
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${upstream.origin}/mcp`)], { limits: { ...DEFAULT_LIMITS, maxRequestBytes: 4096, maxResultBytes: 2000 } }));
    const post = (id: number, method: string) =>
      fetch(gw.url('/up/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { name: 't', uri: 'x' } }),
      });

    const call = await post(7, 'tools/call');
    expect(call.status).toBe(200);
    const text = await call.text();
    const data = text.split('\n').filter((l) => l.startsWith('data: '));
    expect(data).toHaveLength(1);
    expect(JSON.parse(data[0]!.slice(6))).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { message: 'upstream "up" sent a result larger than 2000 bytes', data: { code: 'RETROFIT_ERR_RESULT_TOO_LARGE' } },
    });
    expect(text).not.toContain('zzzz');
    await closed;
    expect(gw.logs.some((l) => l.msg === 'upstream SSE event over maxResultBytes dropped' && l.id === 7)).toBe(true);

    // Nothing to rewrite on this stream: the event passes whole.
    const read = await post(9, 'resources/read');
    expect(await read.text()).toBe(`event: message\ndata: ${big}\n\n`);
  });
});
