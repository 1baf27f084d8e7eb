import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { connectEraClient } from '../helpers/eras-clients.js';
import { eraTool } from '../helpers/eras-tools.js';
import { startV2NativeServer } from '../helpers/eras-tools.js';
import { startGateway } from '../helpers/gateway.js';

/**
 * Regression: what tools/list taught the gateway about a native schema was remembered per tool only. A
 * modern upstream shows each revision a different root (the natural one to 2026-07-28, its own wrapped
 * object to 2025-11-25), so a 2026-07-28 client listing between a 2025-11-25 client's list and call made the
 * gateway wrap the upstream's already wrapped {result: V} again, and the strict v1 client threw.
 */
describe('a native schema listed by a client of another revision in between', () => {
  it('does not change what a 2025-11-25 client gets from its call (no {result: {result: V}})', async () => {
    const upstream = await startV2NativeServer();
    const gw = await startGateway(gatewayConfig([httpUpstream('native', upstream.url)]));
    const legacy = await connectEraClient(gw.url('/native/mcp'), '2025-11-25');
    const modern = await connectEraClient(gw.url('/native/mcp'), '2026-07-28');

    await legacy.listTools();
    await modern.listTools();
    for (const name of ['users', 'count', 'shape']) {
      const tool = eraTool(name);
      expect((await legacy.callTool(name)).structuredContent).toEqual({ result: tool.value });
      expect((await modern.callTool(name)).structuredContent).toEqual(tool.value);
    }

    // And the other way round: a 2025-11-25 list in between leaves the modern client's values unwrapped.
    await modern.listTools();
    await legacy.listTools();
    expect((await modern.callTool('users')).structuredContent).toEqual(eraTool('users').value);
    expect((await legacy.callTool('users')).structuredContent).toEqual({ result: eraTool('users').value });
  });
});
