/**
 * Older clients in front of a server that speaks only 2026-07-28 (issue 24, item 2): a v2 SDK server built with
 * `legacy: 'reject'` refuses `initialize` (400 / -32022), so no session-era client can use it alone. Through the
 * gateway they can: it holds their sessions and speaks 2026-07-28 to the server (src/upstream/modern-link.ts).
 * Shown for v1 clients at 2025-11-25 and 2025-03-26 and a v2 client in its default (session) negotiation:
 * initialize answered from server/discover, list and call with the server's own structuredContent and a
 * configured array root (wrapped for 2025-11-25, removed for 2025-03-26), and a sampling request the server
 * makes through `input_required`, which reaches the client as a server→client request on its session.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { McpServer, inputRequired, inputResponse, type ServerNotifier } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startV2Server } from '../helpers/v2-server.js';

function modernOnly(): McpServer {
  const server = new McpServer({ name: 'modern-only', version: '3.0.0' });
  server.registerTool('add', { inputSchema: z.object({ a: z.number(), b: z.number() }), outputSchema: z.object({ sum: z.number() }) }, async ({ a, b }) => ({
    content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }],
    structuredContent: { sum: a + b },
  }));
  server.registerTool('primes', { inputSchema: z.object({}) }, async () => ({ content: [{ type: 'text', text: '[2, 3, 5]' }] }));
  server.registerTool('ask', { inputSchema: z.object({ question: z.string() }) }, async ({ question }, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'llm');
    if (answer.kind !== 'sampling') {
      return inputRequired({ inputRequests: { llm: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens: 5 }) } });
    }
    const content = answer.result.content;
    return { content: [{ type: 'text', text: `sampled: ${!Array.isArray(content) && content.type === 'text' ? content.text : '?'}` }] };
  });
  return server;
}

async function gateway(): Promise<{ gw: TestGateway; url: string; notify: ServerNotifier }> {
  const upstream = await startV2Server(modernOnly, { legacy: 'reject' });
  // The server alone refuses every session-era client.
  const direct = await fetch(upstream.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
  });
  expect(direct.status).toBe(400);
  expect(((await direct.json()) as { error: { code: number } }).error.code).toBe(-32022);
  const gw = await startGateway(gatewayConfig([httpUpstream('modern', upstream.url, { tools: { primes: { outputSchema: { type: 'array', items: { type: 'integer' } } } } })]));
  return { gw, url: gw.url('/modern/mcp'), notify: upstream.notify };
}

/** A v1 client, at its default 2025-11-25 or made to ask for 2025-03-26. */
async function v1(url: string, revision: '2025-11-25' | '2025-03-26', sampling = false): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const fetchAt: typeof fetch = async (input, init) => {
    if (revision !== '2025-11-25' && typeof init?.body === 'string' && init.body.includes('"initialize"')) {
      const body = JSON.parse(init.body) as { params: { protocolVersion: string } };
      body.params.protocolVersion = revision;
      return fetch(input, { ...init, body: JSON.stringify(body) });
    }
    return fetch(input, init);
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: fetchAt });
  const client = new Client({ name: `v1-${revision}`, version: '1.0.0' }, { capabilities: sampling ? { sampling: {} } : {} });
  onTestFinished(() => client.close());
  await client.connect(transport);
  return { client, transport };
}

describe('session-era clients in front of a 2026-07-28-only server', () => {
  it('a v1 client at 2025-11-25: initialize, list, call (native and configured array roots), sampling via input_required', async () => {
    const { gw, url } = await gateway();
    const { client, transport } = await v1(url, '2025-11-25', true);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(client.getServerVersion()).toEqual({ name: 'modern-only', version: '3.0.0' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['add', 'ask', 'primes']);
    expect(tools.find((t) => t.name === 'primes')?.outputSchema).toEqual({ type: 'object', properties: { result: { type: 'array', items: { type: 'integer' } } }, required: ['result'] });
    expect((await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).structuredContent).toEqual({ sum: 3 });
    expect((await client.callTool({ name: 'primes', arguments: {} })).structuredContent).toEqual({ result: [2, 3, 5] });
    const asked: unknown[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(request.params.messages);
      return { model: 'test', role: 'assistant', content: { type: 'text', text: 'Paris' } };
    });
    const answered = await client.callTool({ name: 'ask', arguments: { question: 'capital of France?' } });
    expect(asked).toEqual([[{ role: 'user', content: { type: 'text', text: 'capital of France?' } }]]);
    expect(answered.content).toEqual([{ type: 'text', text: 'sampled: Paris' }]);
    expect(gw.app.upstreams.get('modern')?.counts?.()).toMatchObject({ heldSessions: 1 });
  });

  it('the session\'s GET stream carries the list changes the upstream announces on the gateway\'s subscriptions/listen', async () => {
    const { url, notify } = await gateway();
    const { client } = await v1(url, '2025-11-25');
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed += 1;
    });
    // The v1 client opens its GET stream after initialize; the gateway's listen stream is open once acknowledged.
    await expect
      .poll(() => {
        notify.toolsChanged();
        return changed;
      }, { interval: 50 })
      .toBeGreaterThan(0);
  });

  it('a v1 client at 2025-03-26 gets no structured output (its revision has none) and the same texts', async () => {
    const { url } = await gateway();
    const { client, transport } = await v1(url, '2025-03-26');
    expect(transport.protocolVersion).toBe('2025-03-26');
    const { tools } = await client.listTools();
    expect(tools.every((t) => t.outputSchema === undefined)).toBe(true);
    const primes = await client.callTool({ name: 'primes', arguments: {} });
    expect(primes.structuredContent).toBeUndefined();
    expect(primes.content).toEqual([{ type: 'text', text: '[2, 3, 5]' }]);
  });

  it('a v2 client in its default (session) negotiation', async () => {
    const { url } = await gateway();
    const client = new ClientV2({ name: 'v2', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(new TransportV2(new URL(url)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect((await client.callTool({ name: 'add', arguments: { a: 2, b: 5 } })).structuredContent).toEqual({ sum: 7 });
  });

  it('a 2026-07-28 client is proxied to it as before', async () => {
    const { gw, url } = await gateway();
    const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    onTestFinished(() => client.close());
    await client.connect(new TransportV2(new URL(url)));
    expect((await client.callTool({ name: 'primes', arguments: {} })).structuredContent).toEqual([2, 3, 5]);
    expect(gw.app.upstreams.get('modern')?.counts?.()).toMatchObject({ pooled: 0, heldSessions: 0 });
  });
});
