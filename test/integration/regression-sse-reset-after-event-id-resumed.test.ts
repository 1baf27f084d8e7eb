/**
 * Regression: an upstream that reset a tools/call's POST stream after its priming event (an event id, 2025-11-25)
 * got the client RETROFIT_ERR_UPSTREAM_RESET as an event, which the v1 SDK client took as the final answer: it
 * never resumed, though it does directly to the upstream (GET with Last-Event-ID), and the answer replayed
 * there would have passed un-rewritten (the request was no longer awaited). Now the gateway ends the stream
 * cleanly and keeps the request awaited: the client resumes, and the replayed answer is retrofitted. Without an
 * event id seen, the reset is answered as before.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startDroppingUpstream } from '../helpers/dropping-upstream.js';
import { startGateway } from '../helpers/gateway.js';

const TOOLS = { num: { outputSchema: { type: 'number' } } } as const;

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'resume-test', version: '1' });
  // No retries after the first reconnection: a client that should not resume fails at once.
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { reconnectionOptions: { initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1, maxRetries: 1 } }));
  onTestFinished(() => client.close());
  return client;
}

describe('regression: an upstream resets a POST stream after its event id', () => {
  it('the v1 client resumes through the gateway with Last-Event-ID and gets the retrofitted answer', async () => {
    const up = await startDroppingUpstream('id: s1-0\nretry: 10\ndata: \n\n');
    const gw = await startGateway(gatewayConfig([httpUpstream('h', up.url, { tools: TOOLS })]));
    const client = await connect(gw.url('/h/mcp'));
    await client.listTools();
    const result = await client.callTool({ name: 'num', arguments: {} }, undefined, { timeout: 10_000 });
    expect(result.structuredContent).toEqual({ result: 42 });
    expect(up.resumed).toEqual(['s1-0']);
    // Still the upstream's reset, for the operator.
    expect((await gw.metrics.upstreamErrors.get()).values).toMatchObject([{ labels: { upstream: 'h', kind: 'reset' }, value: 1 }]);
  });

  it('without an event id (an id-less event, an empty id, an id on an event with no data) the call gets UPSTREAM_RESET', async () => {
    const up = await startDroppingUpstream(': hello\n\nevent: ping\ndata: \n\nid: s1-0\nid:\ndata: \n\nid: s1-0\n\n');
    const gw = await startGateway(gatewayConfig([httpUpstream('h', up.url, { tools: TOOLS })]));
    const client = await connect(gw.url('/h/mcp'));
    await client.listTools();
    await expect(client.callTool({ name: 'num', arguments: {} }, undefined, { timeout: 10_000 })).rejects.toThrow(/ended the connection before its answer was complete/);
    expect(up.resumed).toEqual([]);
  });
});
