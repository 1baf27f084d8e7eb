/**
 * server-everything over the legacy HTTP+SSE transport, through the gateway's `sse:` upstream: the endpoint
 * is rewritten to the gateway's route, a v1 SSE client gets exactly what it gets direct, and configured
 * schemas turn text results (which arrive on the GET stream) into structuredContent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { ToolConfig } from '../../src/config/types.js';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway as startTestGateway } from '../helpers/gateway.js';
import { startEverythingSse, type EverythingSse } from '../helpers/everything-sse.js';

let upstreamServer: EverythingSse | undefined;
let routes: { ready(): Promise<{ ok: boolean; detail?: string }> } | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await upstreamServer?.close();
  upstreamServer = undefined;
});

async function startGateway(sse: string, tools: Record<string, ToolConfig> = {}): Promise<string> {
  const gw = await startTestGateway(gatewayConfig([sseUpstream('legacy', sse, { timeoutMs: 10_000, tools })], { file: '/tmp/gateway.yaml' }));
  routes = gw.app.upstreams.get('legacy');
  return gw.url('/legacy/mcp');
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'sse-differential', version: '1.0.0' });
  clients.push(client);
  await client.connect(new SSEClientTransport(new URL(url)));
  return client;
}

async function script(client: Client): Promise<unknown> {
  const tools = await client.listTools();
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'legacy hello' } });
  const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } });
  const structured = await client.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } });
  const invalid = await client.callTool({ name: 'get-sum', arguments: { a: 'x' } }).catch((err: { code?: number }) => ({ rejected: err.code }));
  const prompts = await client.listPrompts();
  const resources = await client.listResources();
  return { tools, echo, sum, structured, invalid, prompts, resources, server: client.getServerVersion(), caps: client.getServerCapabilities() };
}

describe('server-everything over legacy HTTP+SSE through the gateway', () => {
  it('rewrites the announced endpoint to the gateway route', async () => {
    upstreamServer = await startEverythingSse();
    const url = await startGateway(upstreamServer.url);
    const controller = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(text).toMatch(/^event: endpoint\ndata: \/legacy\/mcp\/message\?sessionId=[0-9a-f-]{36}\n\n$/);
    expect(await routes!.ready()).toEqual({ ok: true });
  });

  it('gives a v1 SSE client exactly what it gets direct', async () => {
    upstreamServer = await startEverythingSse();
    const url = await startGateway(upstreamServer.url);
    const direct = await script(await connect(upstreamServer.url));
    const proxied = await script(await connect(url));
    expect((proxied as { tools: { tools: unknown[] } }).tools.tools.length).toBeGreaterThan(5);
    expect(proxied).toEqual(direct);
  });

  it('retrofits results that arrive on the GET stream', async () => {
    upstreamServer = await startEverythingSse();
    const url = await startGateway(upstreamServer.url, {
      'get-sum': {
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
        extract: { format: 'regex', pattern: String.raw`is (?<sum>-?[\d.]+)\.$` },
      },
    });
    const client = await connect(url);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'get-sum')?.outputSchema).toMatchObject({ type: 'object', required: ['sum'] });
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } });
    expect(sum.structuredContent).toEqual({ sum: 42 });
  });

  it('answers 404 for an unknown message endpoint session and is not ready when the upstream is down', async () => {
    upstreamServer = await startEverythingSse();
    const url = await startGateway(upstreamServer.url);
    const res = await fetch(`${url}/message?sessionId=nope`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(404);
    await upstreamServer.close();
    upstreamServer = undefined;
    expect(await routes!.ready()).toMatchObject({ ok: false });
  });
});
