/**
 * Regression: the pooled sessions that serve 2026-07-28 clients of a session-revision `url:` upstream speak
 * 2025-11-25 to it, which lets an SDK server with an event store end a call's POST stream after its priming
 * event and before the answer (SEP-1699 polling, `closeSSEStream`), as a client is expected to resume it with GET
 * and Last-Event-ID. The session link never resumed: after a clean end the 2026-07-28 client waited the whole
 * timeoutMs for UPSTREAM_TIMEOUT, after a reset it got UPSTREAM_RESET. Now the link resumes the stream (after its
 * `retry:`, bounded, within timeoutMs) and the answer replayed there is delivered and retrofitted.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startDroppingUpstream } from '../helpers/dropping-upstream.js';
import { startGateway } from '../helpers/gateway.js';
import { startV1Server } from '../helpers/v1-server.js';

async function modernClient(url: string): Promise<ClientV2> {
  const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
  onTestFinished(() => client.close());
  await client.connect(new TransportV2(new URL(url)));
  return client;
}

/** A v1 SDK server whose `poll` tool closes its POST stream (polling) and then answers: the answer is replayed. */
function pollingServer(): McpServer {
  const server = new McpServer({ name: 'polling', version: '1.0.0' });
  server.registerTool('poll', { inputSchema: {} }, async (_args, extra) => {
    if (!extra.closeSSEStream) throw new Error('the session is not resumable');
    extra.closeSSEStream();
    return { content: [{ type: 'text', text: '{"done":true}' }] };
  });
  return server;
}

describe('regression: a pooled session resumes an answer stream the upstream ended after an event id', () => {
  it('a v1 SDK server that polls (closeSSEStream): the 2026-07-28 client gets the retrofitted answer, not UPSTREAM_TIMEOUT', async () => {
    const up = await startV1Server({ eventStore: true, retryInterval: 10, build: pollingServer });
    const tools = { poll: { outputSchema: { type: 'object', properties: { done: { type: 'boolean' } }, required: ['done'] } } };
    // Short enough that the old code's timeout fails the test, long enough for a slow machine.
    const gw = await startGateway(gatewayConfig([httpUpstream('polling', up.url, { timeoutMs: 8_000, tools })]));
    const client = await modernClient(gw.url('/polling/mcp'));
    const result = await client.callTool({ name: 'poll', arguments: {} });
    expect(result.structuredContent).toEqual({ done: true });
    expect(result.isError).toBeFalsy();
    // The priming event's empty data is no message (it was logged as "not JSON").
    expect(gw.logs.filter((l) => l.msg === 'upstream sent something that is not JSON; skipped')).toEqual([]);
  });

  it('a stream reset after its event id: resumed, the answer retrofitted', async () => {
    const up = await startDroppingUpstream('id: s1-0\nretry: 10\ndata: \n\n');
    const gw = await startGateway(gatewayConfig([httpUpstream('h', up.url, { tools: { num: { outputSchema: { type: 'number' } } } })]));
    const client = await modernClient(gw.url('/h/mcp'));
    const result = await client.callTool({ name: 'num', arguments: {} });
    expect(result.structuredContent).toBe(42);
    expect(up.resumed).toEqual(['s1-0']);
  });

  it('a resumption the upstream refuses: the call gets UPSTREAM_RESET at once, not at its deadline', async () => {
    const up = await startDroppingUpstream('id: s1-0\nretry: 10\ndata: \n\n', { end: 'clean', resumes: 'refuse' });
    // A deadline the test would time out long before: an answer means it came at once.
    const gw = await startGateway(gatewayConfig([httpUpstream('h', up.url, { timeoutMs: 600_000 })]));
    const client = await modernClient(gw.url('/h/mcp'));
    await expect(client.callTool({ name: 'num', arguments: {} })).rejects.toThrow(/ended the connection before its answer was complete/);
    expect(gw.logs.filter((l) => l.msg === 'the upstream refused to resume an answer stream')).toMatchObject([{ status: 405, lastEventId: 's1-0' }]);
  });

  it('resumptions that bring nothing: given up after three in a row, the call gets UPSTREAM_RESET', async () => {
    const up = await startDroppingUpstream('id: s1-0\nretry: 10\ndata: \n\n', { end: 'clean', resumes: 'end' });
    const gw = await startGateway(gatewayConfig([httpUpstream('h', up.url, { timeoutMs: 600_000 })]));
    const client = await modernClient(gw.url('/h/mcp'));
    await expect(client.callTool({ name: 'num', arguments: {} })).rejects.toThrow(/ended the connection before its answer was complete/);
    expect(up.resumed).toEqual(['s1-0', 's1-0', 's1-0']);
  });
});
