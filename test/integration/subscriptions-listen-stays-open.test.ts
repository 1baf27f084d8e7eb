import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { requestLines, startGateway } from '../helpers/gateway.js';
import { startV2Server } from '../helpers/v2-server.js';

describe('a 2026-07-28 subscriptions/listen stream through the gateway', () => {
  it('outlives timeoutMs (which only bounds the wait for headers) and carries change notifications', async () => {
    const upstream = await startV2Server();
    const gw = await startGateway(gatewayConfig([httpUpstream('v2', upstream.url, { timeoutMs: 300 })]));
    const client = new Client({ name: 'listener', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/v2/mcp'))));
    onTestFinished(() => client.close());

    const changed = new Promise<string>((resolve) => client.setNotificationHandler('notifications/tools/list_changed', (n) => resolve(n.method)));
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });

    // A request that never gets headers is cut at timeoutMs: once it has failed, the listen stream (opened
    // before it) has been open longer than timeoutMs.
    await expect(client.callTool({ name: 'hang', arguments: {} })).rejects.toThrow();
    expect(requestLines(gw.logs).find((l) => l.tool === 'hang')).toMatchObject({ status: 504 });

    upstream.notify.toolsChanged();
    expect(await changed).toBe('notifications/tools/list_changed');
    await subscription.close();
    expect(await subscription.closed).toBe('local');
    // Regression: the v2 client leaves a connection that never sent a request; close() used to wait on it
    // until Node's headers timeout (the test then timed out here).
    await gw.app.close();
    expect(gw.app.server.listening).toBe(false);
  });
});
