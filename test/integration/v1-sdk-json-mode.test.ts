import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { requestLines, startGateway } from '../helpers/gateway.js';
import { startV1Server } from '../helpers/v1-server.js';
import { runV1Scenario } from '../helpers/v1-scenario.js';

describe('a v1 SDK client and server (JSON responses) through the gateway', () => {
  it('initializes, lists and calls tools, reads resources and prompts, logs, streams progress, and ends the session', async () => {
    const upstream = await startV1Server({ jsonResponse: true });
    const gw = await startGateway(gatewayConfig([httpUpstream('v1', upstream.url)]));
    await runV1Scenario({ url: gw.url('/v1/mcp'), streaming: false });
    expect(upstream.sessions.size).toBe(0);
    // The mode really is JSON through the gateway: one application/json body with a correct length.
    const init = await fetch(gw.url('/v1/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
    });
    expect(init.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await init.text();
    expect(Number(init.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text)).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } });
    const lines = requestLines(gw.logs);
    const methods = lines.map((l) => l.method);
    expect(methods).toContain('initialize');
    expect(methods).toContain('DELETE');
    // After initialize the session's revision is known to the gateway (header or session source).
    const call = lines.find((l) => l.method === 'tools/call');
    expect(call).toMatchObject({ upstream: 'v1', tool: 'echo', status: 200, revision: '2025-11-25' });
  });
});
