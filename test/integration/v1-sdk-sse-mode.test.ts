import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { requestLines, startGateway } from '../helpers/gateway.js';
import { startV1Server } from '../helpers/v1-server.js';
import { runV1Scenario } from '../helpers/v1-scenario.js';

describe('a v1 SDK client and server (SSE responses) through the gateway', () => {
  it('initializes, lists and calls tools, reads resources and prompts, logs, streams progress, elicits, and ends the session', async () => {
    const upstream = await startV1Server();
    const gw = await startGateway(gatewayConfig([httpUpstream('v1', upstream.url)]));
    await runV1Scenario({ url: gw.url('/v1/mcp'), streaming: true });
    expect(upstream.sessions.size).toBe(0);
    const lines = requestLines(gw.logs);
    const methods = lines.map((l) => l.method);
    expect(methods).toContain('initialize');
    expect(methods).toContain('DELETE');
    // After initialize the session's revision is known to the gateway (header or session source).
    const call = lines.find((l) => l.method === 'tools/call');
    expect(call).toMatchObject({ upstream: 'v1', tool: 'echo', status: 200, revision: '2025-11-25' });
  });
});
