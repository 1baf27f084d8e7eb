import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/listen.js';
import { DEFAULT_LIMITS } from '../../src/config/types.js';

describe('an upstream result over limits.maxResultBytes', () => {
  it('becomes a clean 502 JSON-RPC error for a rewritten method, and streams through for others', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'x'.repeat(5000) }] } });
    const upstream = await listen((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(big));
    const loaded = gatewayConfig([httpUpstream('big', `${upstream.origin}/mcp`)], {
      limits: { ...DEFAULT_LIMITS, maxRequestBytes: 1024, maxResultBytes: 1000 },
    });
    const gw = await startGateway(loaded);
    const send = (method: string, body?: string) =>
      fetch(gw.url('/big/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: body ?? JSON.stringify({ jsonrpc: '2.0', id: 5, method, params: { name: 't' } }),
      });

    const call = await send('tools/call');
    expect(call.status).toBe(502);
    expect(await call.json()).toMatchObject({ id: 5, error: { data: { code: 'RETROFIT_ERR_RESULT_TOO_LARGE' }, message: 'upstream "big" sent a result larger than 1000 bytes' } });

    const read = await send('resources/read');
    expect(read.status).toBe(200);
    expect(await read.text()).toBe(big);

    // The request side has its own limit: 413 as a JSON-RPC error.
    const huge = await send('tools/call', JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { pad: 'y'.repeat(2000) } }));
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: { code: -32600, data: { code: 'RETROFIT_ERR_BODY_TOO_LARGE' } } });
  });
});
