/**
 * Regression: an upstream that reset a tools/call's POST stream after its priming event (an event id, 2025-11-25)
 * got the client RETROFIT_ERR_UPSTREAM_RESET as an event, which the v1 SDK client took as the final answer: it
 * never resumed, though it does directly to the upstream (GET with Last-Event-ID), and the answer replayed
 * there would have passed un-rewritten (the request was no longer awaited). Now the gateway ends the stream
 * cleanly and keeps the request awaited: the client resumes, and the replayed answer is retrofitted. Without an
 * event id seen, or for a 2026-07-28 client (its revision has no resumption), the reset is answered as before.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startDroppingUpstream } from '../helpers/dropping-upstream.js';
import { startGateway } from '../helpers/gateway.js';
import { MODERN, startRawModern } from '../helpers/raw-modern.js';

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

  it('a 2026-07-28 client, which cannot resume, gets UPSTREAM_RESET though it saw an event id', async () => {
    const url = await startRawModern(['num'], (_m, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: e1\ndata: \n\n', () => res.socket?.destroy());
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('modern', url, { tools: TOOLS })]));
    const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
    const answer = await fetch(gw.url('/modern/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'num' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'num', arguments: {}, _meta: meta } }),
    });
    const data = (await answer.text()).split('\n').filter((l) => l.startsWith('data: {'));
    expect(data.map((l) => JSON.parse(l.slice(6)) as unknown)).toMatchObject([{ id: 5, error: { data: { code: 'RETROFIT_ERR_UPSTREAM_RESET' } } }]);
  });
});
