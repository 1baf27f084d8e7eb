/**
 * Regression: one POST of a batch of 80,000 pings (4 MB, under limits.maxRequestBytes) held the gateway's
 * event loop for about ten seconds in front of a `command` upstream (each message registered, each evicting the
 * oldest past the 1000 a session keeps in flight, each eviction answered and logged), and other clients' bodies
 * timed out meanwhile. Now a batch of more than 1000 messages is refused at once on every route, with 400 -32600
 * RETROFIT_ERR_INVALID_REQUEST, and nothing of it goes upstream.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' };
const batch = (n: number): string => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })));

describe('regression: a batch of more than 1000 messages', () => {
  it('in front of a command upstream: 400 -32600 at once, the session unharmed', async () => {
    const gateway = await startStdioGateway();
    const init = await fetch(gateway.url, { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'b', version: '1' } } }) });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const refused = await fetch(gateway.url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': session }, body: batch(80_000) });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: a batch of 80000 messages (at most 1000)', data: { code: 'RETROFIT_ERR_INVALID_REQUEST' } } });
    const pings = await fetch(gateway.url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': session }, body: batch(3) });
    expect(pings.status).toBe(200);
    expect(await pings.text()).toContain('"id":2');
  });

  it('in front of a url upstream: refused before anything goes upstream', async () => {
    let reached = 0;
    const up = await listen((req, res) => {
      reached += 1;
      void readBody(req).then(() => res.writeHead(202).end());
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`)]));
    const refused = await fetch(gw.url('/remote/mcp'), { method: 'POST', headers: HEADERS, body: batch(1001) });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: -32600, data: { code: 'RETROFIT_ERR_INVALID_REQUEST' } } });
    expect(reached).toBe(0);
  });
});
