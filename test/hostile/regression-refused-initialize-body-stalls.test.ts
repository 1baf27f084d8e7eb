/**
 * Regression: a `url:` upstream that refused an `initialize` with a 400 JSON answer and then stalled in its body
 * held the client for ever: the refusal is read (up to 64 KiB) to see whether the upstream serves only
 * 2026-07-28, and that read had no deadline, where every other body the gateway holds is bounded by the
 * upstream's timeoutMs. Now it is: the client gets RETROFIT_ERR_UPSTREAM_TIMEOUT (504) at timeoutMs.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/listen.js';

describe('regression: a refused initialize whose body stalls', () => {
  it('gets the client UPSTREAM_TIMEOUT at timeoutMs', async () => {
    const { origin } = await listen((req, res) => {
      req.resume();
      // Headers and the start of a JSON body, then nothing (the connection stays open).
      req.on('end', () => res.writeHead(400, { 'content-type': 'application/json' }).write('{"jsonrpc":"2.0","id":1,'));
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${origin}/mcp`, { timeoutMs: 300 })]));
    const res = await fetch(gw.url('/up/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
    });
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { data: { code: 'RETROFIT_ERR_UPSTREAM_TIMEOUT' } } });
  });
});
